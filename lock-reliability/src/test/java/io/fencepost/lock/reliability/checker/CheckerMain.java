package io.fencepost.lock.reliability.checker;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Runs the checker outside JUnit, configured by the {@code fencepost.checker.*} system properties, prints the report
 * and writes it to {@code fencepost.checker.report} (default {@code target/checker/report.md}); exits non-zero on
 * any violation or worker problem.
 */
public final class CheckerMain {

    private CheckerMain() {}

    public static void main(String[] args) throws Exception {
        Checker.Report report = Checker.run(CheckerConfig.fromSystemProperties());
        String markdown = report.markdown();
        System.out.println(markdown);
        Path file = Path.of(System.getProperty("fencepost.checker.report", "target/checker/report.md"));
        Files.createDirectories(file.toAbsolutePath().getParent());
        Files.writeString(file, markdown);
        System.exit(report.violationCount() == 0 && report.problems().isEmpty() ? 0 : 1);
    }
}
