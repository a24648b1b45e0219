package io.fencepost.lock.benchmarks.report;

import io.fencepost.lock.benchmarks.Results;
import io.fencepost.lock.benchmarks.Series;
import io.fencepost.lock.benchmarks.Settings;
import io.fencepost.lock.benchmarks.clients.Library;
import io.fencepost.lock.benchmarks.scenarios.HandOffPhases;
import java.util.List;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;

/** Writes the section that takes one hand-off between two nodes apart, Fencepost beside the durable floor. */
record HandOffPhasesSection(Settings settings, Results r, Markdown md) implements Section {

    /** The columns of a hand-off's steps, in table order. */
    private static final List<ToDoubleFunction<HandOffPhases>> STEPS = List.of(
            HandOffPhases::handOffUs,
            HandOffPhases::beforeReleaseUs,
            HandOffPhases::wakeUpUs,
            HandOffPhases::waiterHopUs,
            HandOffPhases::grantUs,
            HandOffPhases::afterGrantUs,
            HandOffPhases::releaseStatementUs);

    @Override
    public void write() {
        Series<HandOffPhases> s = r.handOffPhases;
        if (s == null || s.libraries().isEmpty()) {
            return;
        }
        md.line("## Where a hand-off between nodes goes");
        md.line();
        md.line("Two nodes (each its own client and pool, as in the nodes scenario, both in one JVM) take turns on one"
                + " key for " + Fmt.secs(settings.nodesWindow()) + " per library and round (" + settings.rounds()
                + " measured rounds after a warm-up); every statement either node's thread runs is timed on the"
                + " client, from the call into the JDBC driver to its return. Each hand-off from one node to the other"
                + " is cut at its statements: *before the release*, from the start of `release()` to its statement"
                + " being sent; *release to wake-up*, from the release statement being sent to the waiter's blocked"
                + " statement returning (the release's own work in the server up to the unlock that wakes the waiter,"
                + " and the wake-up); *waiter*, from there to the waiter's grant statement being sent; *grant*, that"
                + " statement's round trip with its durable commit; *after the grant*, from its return to the"
                + " critical section. Each column is the median over the hand-offs of a round, then the median over"
                + " rounds, so the steps add up to the hand-off only roughly. Hand-offs whose next holder was not"
                + " blocked in a statement when the release began are left out (counted). The release statement's own"
                + " round trip runs beside the later steps and is shown for reference. The rows *Fencepost − …* give,"
                + " per step, the median over rounds of the difference within each round. The floor whose release"
                + " ends the row is the least a lease store pays: its release must end the lease in the store, so it"
                + " writes the row (committed asynchronously) before it unlocks, as Fencepost's release deletes it.");
        md.line();
        md.line("| library | CS/s | hand-off p50 | before the release | release to wake-up | waiter | grant |"
                + " after the grant | release statement | statements: release / wait / grant | hand-offs taken apart"
                + " (left out) |");
        md.line("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
        for (Library library : s.libraries()) {
            HandOffPhases last = s.of(library).get(s.of(library).size() - 1);
            md.line("| " + (library == Library.FENCEPOST ? "**" + library.label() + "**" : library.label())
                    + " | " + Fmt.count(s.median(library, HandOffPhases::perSecond))
                    + steps(metric -> Fmt.us(s.median(library, metric)))
                    + " | `" + last.releaseKind() + "` / `" + last.waitKind() + "` / `" + last.grantKind() + "`"
                    + " | " + Fmt.count(s.median(library, HandOffPhases::handOffs))
                    + " (" + Fmt.count(s.median(library, HandOffPhases::skipped)) + ") |");
        }
        for (Library floor :
                List.of(Library.DURABLE_FLOOR, Library.DURABLE_FLOOR_KEYED, Library.DURABLE_FLOOR_ENDING)) {
            if (s.has(Library.FENCEPOST) && s.has(floor)) {
                md.line("| Fencepost − " + shortName(floor) + " | " + steps(metric -> diff(s, floor, metric))
                        + " | | |");
            }
        }
        md.line();
    }

    /** The step columns, from the hand-off to the release statement, each cell as {@code cell} shows a metric. */
    private static String steps(Function<ToDoubleFunction<HandOffPhases>, String> cell) {
        return STEPS.stream().map(metric -> " | " + cell.apply(metric)).collect(Collectors.joining());
    }

    private static String shortName(Library floor) {
        return switch (floor) {
            case DURABLE_FLOOR_KEYED -> "floor with the token as a key";
            case DURABLE_FLOOR_ENDING -> "floor whose release ends the row";
            default -> "floor";
        };
    }

    private static String diff(Series<HandOffPhases> s, Library floor, ToDoubleFunction<HandOffPhases> metric) {
        double d = s.difference(Library.FENCEPOST, floor, metric);
        return (d >= 0 ? "+" : "−") + Fmt.us(Math.abs(d));
    }
}
