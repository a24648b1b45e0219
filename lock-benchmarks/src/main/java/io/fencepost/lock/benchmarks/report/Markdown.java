package io.fencepost.lock.benchmarks.report;

/** The report's Markdown as it is written, line by line, shared by the sections that write it. */
final class Markdown {

    private final StringBuilder text = new StringBuilder();

    void line(String s) {
        text.append(s).append('\n');
    }

    void line() {
        text.append('\n');
    }

    /** {@code s} as one table cell: a pipe would end the cell early and a line break the row. */
    static String cell(String s) {
        return s.replace("|", "\\|").replace("\n", " ");
    }

    @Override
    public String toString() {
        return text.toString();
    }
}
