package io.fencepost.lock.benchmarks.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Merges the report of a run of only some scenarios into the report that is there: each section the run measured
 * replaces the section of the same title (or is added before the caveats), marked with when and how it was measured;
 * the sections that describe the harness are taken from the run; everything else (the environment, the summary and
 * targets, which need every scenario, and the sections of scenarios that did not run) stays as it was.
 */
public final class ReportMerge {

    /** Sections that describe the harness rather than a run's figures: always the newest text. */
    private static final Set<String> HARNESS = Set.of("How to run", "Method", "Caveats");

    /** Sections drawn from every scenario, or from the run as a whole: only a full run writes them. */
    private static final Set<String> WHOLE_RUN = Set.of("Environment", "Summary", "Targets vs measured");

    static final String NOTE = "Sections that begin with their own *Measured …* line were measured later, by a run of"
            + " only their scenarios, and merged into this report; the figures everywhere else, the environment"
            + " table included, are from the run above.";

    private ReportMerge() {}

    /**
     * @param existing the report as it is
     * @param fresh the report of this (partial) run
     * @param stamp the line that marks a section as measured by this run
     */
    public static String merge(String existing, String fresh, String stamp) {
        Parsed old = Parsed.of(existing);
        Parsed run = Parsed.of(fresh);
        Map<String, String> sections = new LinkedHashMap<>(old.sections);
        List<String> added = new ArrayList<>();
        run.sections.forEach((title, text) -> {
            if (WHOLE_RUN.contains(title)) {
                return;
            }
            String merged = HARNESS.contains(title) ? text : stamped(text, stamp);
            if (sections.containsKey(title)) {
                sections.put(title, merged);
            } else {
                added.add(merged);
            }
        });
        StringBuilder out = new StringBuilder(old.preamble.contains(NOTE) ? old.preamble : withNote(old.preamble));
        boolean placed = false;
        for (Map.Entry<String, String> section : sections.entrySet()) {
            if (section.getKey().equals("Caveats") && !placed) {
                added.forEach(out::append);
                placed = true;
            }
            out.append(section.getValue());
        }
        if (!placed) {
            added.forEach(out::append);
        }
        return out.toString();
    }

    /** The section with the stamp as its first paragraph, under the title. */
    private static String stamped(String section, String stamp) {
        int endOfTitle = section.indexOf('\n');
        return section.substring(0, endOfTitle + 1) + "\n" + stamp + "\n" + section.substring(endOfTitle + 1);
    }

    /** The preamble with the note added as its last paragraph. */
    private static String withNote(String preamble) {
        return preamble.stripTrailing() + "\n\n" + NOTE + "\n\n";
    }

    /** A report cut into what comes before its first section, and its sections by title, in order. */
    private record Parsed(String preamble, Map<String, String> sections) {

        static Parsed of(String markdown) {
            Map<String, String> sections = new LinkedHashMap<>();
            String preamble = null;
            String title = null;
            StringBuilder current = new StringBuilder();
            boolean fenced = false;
            for (String line : markdown.split("\n", -1)) {
                if (line.startsWith("```")) {
                    fenced = !fenced;
                }
                if (!fenced && line.startsWith("## ")) {
                    if (title == null) {
                        preamble = current.toString();
                    } else {
                        sections.put(title, current.toString());
                    }
                    title = line.substring(3).trim();
                    current = new StringBuilder();
                }
                current.append(line).append('\n');
            }
            String last = current.toString();
            // split() leaves one empty piece after the final newline: do not add a line for it
            last = markdown.endsWith("\n") ? last.substring(0, last.length() - 1) : last;
            if (title == null) {
                return new Parsed(last, sections);
            }
            sections.put(title, last);
            return new Parsed(preamble, sections);
        }
    }
}
