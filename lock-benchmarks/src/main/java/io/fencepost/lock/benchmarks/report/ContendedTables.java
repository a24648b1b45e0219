package io.fencepost.lock.benchmarks.report;

import static io.fencepost.lock.benchmarks.clients.Library.FENCEPOST;

import io.fencepost.lock.benchmarks.Series;
import io.fencepost.lock.benchmarks.clients.Library;
import io.fencepost.lock.benchmarks.scenarios.ContendedResult;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The tables that the contended and the nodes sections share: contenders on one key across two JVMs, one table per
 * contender count, one row per library. The contenders are threads of a client or nodes (a client each); the columns
 * on where the hand-offs went between the JVMs are shown only where asked for.
 */
final class ContendedTables {

    private ContendedTables() {}

    /** Overlapping critical sections (a safety check) over every count, library and round. */
    static long overlaps(Map<Integer, Series<ContendedResult>> byCount) {
        return byCount.values().stream()
                .flatMap(s -> s.libraries().stream().flatMap(l -> s.of(l).stream()))
                .mapToLong(ContendedResult::overlaps)
                .sum();
    }

    /**
     * Writes one table per count, headed "### <count> <who>s". {@code who} names a contender ("thread", "node");
     * {@code jvmColumns} adds the hand-offs to the other JVM and the busier JVM's share.
     */
    static void write(
            Markdown md,
            Map<Integer, Series<ContendedResult>> byCount,
            String who,
            boolean jvmColumns,
            Function<Library, String> waitsBy) {
        List<String> head =
                new ArrayList<>(List.of("library", "waits by", "CS/s", "hand-off to another " + who + " p50"));
        if (jvmColumns) {
            head.add("to the other JVM: p50 (share)");
        }
        head.addAll(List.of("wait p50", "wait p99", "re-acquired by the releasing " + who));
        if (jvmColumns) {
            head.add("busier JVM's share of CS");
        }
        head.add("Fencepost ÷ this: CS/s, wait p99");
        for (Map.Entry<Integer, Series<ContendedResult>> entry : byCount.entrySet()) {
            Series<ContendedResult> s = entry.getValue();
            md.line("### " + entry.getKey() + " " + who + "s");
            md.line();
            md.line(row(head));
            md.line(row(Collections.nCopies(head.size(), "---")));
            for (Library library : s.libraries()) {
                long problems = s.of(library).stream()
                        .mapToLong(c -> c.timeouts() + c.errors())
                        .sum();
                List<String> cells = new ArrayList<>(List.of(
                        Section.label(library),
                        waitsBy.apply(library),
                        Fmt.count(s.median(library, ContendedResult::perSecond))
                                + (problems > 0 ? " (" + problems + " timeouts/errors)" : ""),
                        Fmt.ms(s.median(library, ContendedResult::handoffP50Ms))));
                if (jvmColumns) {
                    cells.add(Fmt.ms(s.median(library, ContendedResult::crossJvmHandoffP50Ms)) + " ("
                            + Fmt.pct(s.median(library, ContendedResult::crossJvmShare)) + ")");
                }
                cells.addAll(List.of(
                        Fmt.ms(s.median(library, ContendedResult::waitP50Ms)),
                        Fmt.ms(s.median(library, ContendedResult::waitP99Ms)),
                        Fmt.pct(s.median(library, ContendedResult::reacquireShare))));
                if (jvmColumns) {
                    cells.add(Fmt.pct(s.median(library, ContendedResult::busierJvmShare)));
                }
                cells.add(
                        library == FENCEPOST
                                ? "1"
                                : Fmt.ratio(s.ratio(FENCEPOST, library, ContendedResult::perSecond)) + ", "
                                        + Fmt.ratio(s.ratio(FENCEPOST, library, ContendedResult::waitP99Ms)));
                md.line(row(cells));
            }
            md.line();
        }
    }

    private static String row(List<String> cells) {
        return "| " + String.join(" | ", cells) + " |";
    }
}
