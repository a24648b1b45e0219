package io.fencepost.lock.benchmarks.report;

import static io.fencepost.lock.benchmarks.clients.Library.DURABLE_FLOOR;
import static io.fencepost.lock.benchmarks.clients.Library.FENCEPOST;
import static io.fencepost.lock.benchmarks.clients.Library.FENCEPOST_FAIR;
import static io.fencepost.lock.benchmarks.clients.Library.RAW;
import static io.fencepost.lock.benchmarks.clients.Library.RAW_ASYNC;
import static io.fencepost.lock.benchmarks.clients.Library.RAW_INSERT;
import static io.fencepost.lock.benchmarks.clients.Library.REDISSON;
import static io.fencepost.lock.benchmarks.clients.Library.REDISSON_FSYNC;
import static io.fencepost.lock.benchmarks.clients.Library.SHEDLOCK;
import static io.fencepost.lock.benchmarks.clients.Library.SPRING_INTEGRATION;

import io.fencepost.lock.benchmarks.Results;
import io.fencepost.lock.benchmarks.Series;
import io.fencepost.lock.benchmarks.Settings;
import io.fencepost.lock.benchmarks.clients.Library;
import io.fencepost.lock.benchmarks.scenarios.AnnotationResult;
import io.fencepost.lock.benchmarks.scenarios.ContendedResult;
import io.fencepost.lock.benchmarks.scenarios.CountingResult;
import io.fencepost.lock.benchmarks.scenarios.CycleResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.DoubleFunction;
import java.util.function.ToDoubleFunction;

/** Writes the summary table and the targets measured against, with the evidence for every target missed. */
record Summary(Settings settings, Results r, Markdown md, MissEvidence evidence) implements Section {

    Summary(Settings settings, Results r, Markdown md) {
        this(settings, r, md, new MissEvidence(r));
    }

    @Override
    public void write() {
        headline();
        targets();
    }

    private void headline() {
        md.line("## Summary");
        md.line();
        md.line("The headline figures of this run. Cycles/s and p50 are for one thread on one key;"
                + " statements / round trips per acquire + release are counted on the wire; the contended columns are"
                + " threads on one key across two JVMs.");
        md.line();
        StringBuilder header = new StringBuilder("| case | uncontended cycles/s (p50) | statements / round trips |");
        StringBuilder rule = new StringBuilder("| --- | --- | --- |");
        for (int threads : r.contended.keySet()) {
            header.append(" ").append(threads).append(" threads: CS/s, hand-off to another thread p50, wait p99 |");
            rule.append(" --- |");
        }
        md.line(header.toString());
        md.line(rule.toString());
        for (Library library : Library.values()) {
            if (!settings.uses(library) || library.isEvidence()) {
                continue;
            }
            if (library.isVariant() && r.contended.values().stream().noneMatch(s -> s.has(library))) {
                continue;
            }
            StringBuilder row = new StringBuilder("| " + Section.label(library) + " | ");
            if (r.sameKey != null && r.sameKey.has(library)) {
                row.append(Fmt.count(r.sameKey.median(library, CycleResult::perSecond)))
                        .append(" (")
                        .append(Fmt.us(r.sameKey.median(library, CycleResult::p50Micros)))
                        .append(")");
            } else {
                row.append(Fmt.NONE);
            }
            row.append(" | ");
            Optional<CountingResult> counted = Measured.counted(r, library);
            row.append(counted.map(c -> Fmt.num(c.statementsPerCycle()) + " / " + Fmt.num(c.roundTripsPerCycle()))
                    .orElse(Fmt.NONE));
            row.append(" |");
            for (Series<ContendedResult> byThreads : r.contended.values()) {
                if (byThreads.has(library)) {
                    row.append(" ")
                            .append(Fmt.count(byThreads.median(library, ContendedResult::perSecond)))
                            .append(" CS/s, ")
                            .append(Fmt.ms(byThreads.median(library, ContendedResult::handoffP50Ms)))
                            .append(", ")
                            .append(Fmt.ms(byThreads.median(library, ContendedResult::waitP99Ms)))
                            .append(" |");
                } else {
                    row.append(" ").append(Fmt.NONE).append(" |");
                }
            }
            md.line(row.toString());
        }
        md.line();
    }

    private record Target(String target, String measured, boolean met, String verdict, String why) {}

    private void targets() {
        List<Target> targets = new ArrayList<>();
        if (r.sameKey != null) {
            for (Library other : List.of(RAW, SHEDLOCK, SPRING_INTEGRATION)) {
                double goal = other == RAW ? 1.5 : 2.0;
                double ratio = r.sameKey.ratio(FENCEPOST, other, CycleResult::perSecond);
                if (Double.isNaN(ratio)) {
                    continue;
                }
                String distinct = r.distinctKeys == null
                        ? ""
                        : "; distinct keys "
                                + Fmt.ratio(r.distinctKeys.ratio(FENCEPOST, other, CycleResult::perSecond));
                targets.add(atLeast(
                        "uncontended cycle ≥ " + Fmt.dec(goal, 1) + "× " + other.label(),
                        Fmt.ratio(ratio) + " (same key" + distinct + ")",
                        ratio,
                        goal,
                        other == RAW ? evidence.throughputWhy() : evidence.competitorWhy(other, goal)));
            }
            double ratio = r.sameKey.ratio(FENCEPOST, RAW_ASYNC, CycleResult::perSecond);
            if (!Double.isNaN(ratio)) {
                targets.add(atLeast(
                        "uncontended cycle ≥ 0.95× " + RAW_ASYNC.label() + " (one WAL flush per cycle, as Fencepost's)",
                        Fmt.ratio(ratio),
                        ratio,
                        0.95,
                        evidence.throughputWhy()));
            }
        }
        Measured.counted(r, FENCEPOST).ifPresent(c -> {
            boolean two = Math.abs(c.statementsPerCycle() - 2) < 0.01;
            targets.add(new Target(
                    "still 2 statements per cycle",
                    Fmt.num(c.statementsPerCycle()) + " statements, " + Fmt.num(c.roundTripsPerCycle())
                            + " round trips (" + c.cycleBreakdown() + ")",
                    two,
                    two ? "met" : "missed",
                    ""));
        });
        if (r.losing != null) {
            double ratio = r.losing.ratio(FENCEPOST, RAW_INSERT, CycleResult::perSecond);
            if (!Double.isNaN(ratio)) {
                targets.add(atLeast(
                        "losing `tryAcquire` ≥ 0.9× a bare INSERT ... ON CONFLICT DO NOTHING",
                        Fmt.ratio(ratio),
                        ratio,
                        0.9,
                        evidence.losingWhy()));
            }
        }
        Measured.counted(r, FENCEPOST).ifPresent(c -> {
            boolean zero = c.reentrantRoundTrips() == 0;
            targets.add(new Target(
                    "reentrant acquire: 0 round trips",
                    Fmt.num(c.reentrantRoundTrips()) + " round trips per nested acquire + release",
                    zero,
                    zero ? "met" : "missed",
                    ""));
        });
        versus(
                        "8 threads: critical sections/s ≥ Redisson's",
                        r.contended.get(8),
                        REDISSON,
                        CRITICAL_SECTIONS,
                        Summary::atLeast,
                        1.0,
                        evidence.contendedWhy(8))
                .ifPresent(targets::add);
        Series<ContendedResult> eight = r.contended.get(8);
        if (eight != null) {
            double handoff = eight.median(FENCEPOST, ContendedResult::handoffP50Ms);
            if (!Double.isNaN(handoff)) {
                targets.add(atMost(
                        "8 threads: hand-off to another thread, median ≤ 1 ms",
                        Fmt.ms(handoff),
                        handoff,
                        1.0,
                        evidence.contendedWhy(8)));
            }
        }
        versus(
                        "8 threads: wait p99 ≤ ½ Redisson's",
                        r.contended.get(8),
                        REDISSON,
                        WAIT_P99,
                        Summary::atMost,
                        0.5,
                        evidence.contendedWhy(8))
                .ifPresent(targets::add);
        versus(
                        "32 threads: wait p99 ≤ ⅕ of Spring Integration's",
                        r.contended.get(32),
                        SPRING_INTEGRATION,
                        WAIT_P99,
                        Summary::atMost,
                        0.2,
                        evidence.contendedWhy(32))
                .ifPresent(targets::add);
        nodeTargets(targets);
        if (!r.annotation.isEmpty()) {
            double overhead = Measured.median(r.annotation, AnnotationResult::overheadMicros);
            targets.add(atMost(
                    "`@DistributedLock` adds < 5 µs per call over a direct `LockManager` call",
                    Fmt.us(overhead) + " of CPU (wall clock: "
                            + Fmt.us(Measured.median(r.annotation, AnnotationResult::wallOverheadMicros)) + ")",
                    overhead,
                    5.0,
                    evidence.annotationWhy()));
        }
        md.line("## Targets vs measured");
        md.line();
        md.line("The targets set for the benchmarks, as ratios measured in this run.");
        md.line();
        md.line("| target | measured | verdict |");
        md.line("| --- | --- | --- |");
        for (Target t : targets) {
            md.line("| " + t.target() + " | " + Markdown.cell(t.measured()) + " | " + (t.met() ? "✅ " : "❌ ")
                    + t.verdict() + " |");
        }
        md.line();
        List<String> reasons = new ArrayList<>();
        for (Target t : targets) {
            if (!t.met() && !t.why().isEmpty() && !reasons.contains(t.why())) {
                reasons.add(t.why());
            }
        }
        if (!reasons.isEmpty()) {
            md.line("### Where the time goes in the missed targets");
            md.line();
            reasons.forEach(reason -> {
                md.line(reason);
                md.line();
            });
        }
    }

    /**
     * The targets on one node per thread, 8 nodes on one key: against Redisson, the releasing node's share, and fair
     * mode against Fencepost's own non-fair mode.
     */
    private void nodeTargets(List<Target> targets) {
        Series<ContendedResult> eight = r.nodes.get(8);
        if (eight == null || !eight.has(FENCEPOST)) {
            return;
        }
        String why = evidence.nodesWhy(8);
        versus(
                        "8 nodes: critical sections/s ≥ 0.8× the durable floor's",
                        eight,
                        DURABLE_FLOOR,
                        CRITICAL_SECTIONS,
                        Summary::atLeast,
                        0.8,
                        why)
                .ifPresent(targets::add);
        versus(
                        "8 nodes: hand-off to another node p50 ≤ 1.3× the durable floor's",
                        eight,
                        DURABLE_FLOOR,
                        HAND_OFF,
                        Summary::atMost,
                        1.3,
                        why)
                .ifPresent(targets::add);
        versus(
                        "8 nodes: critical sections/s ≥ 1.5× Redisson's on an fsyncing Redis",
                        eight,
                        REDISSON_FSYNC,
                        CRITICAL_SECTIONS,
                        Summary::atLeast,
                        1.5,
                        why)
                .ifPresent(targets::add);
        versus("8 nodes: wait p99 ≤ Redisson's (Redis in memory)", eight, REDISSON, WAIT_P99, Summary::atMost, 1.0, why)
                .ifPresent(targets::add);
        Series<ContendedResult> thirtyTwo = r.nodes.get(32);
        versus(
                        "32 nodes: critical sections/s ≥ 0.8× the durable floor's",
                        thirtyTwo,
                        DURABLE_FLOOR,
                        CRITICAL_SECTIONS,
                        Summary::atLeast,
                        0.8,
                        evidence.nodesWhy(32))
                .ifPresent(targets::add);
        double reacquired = eight.median(FENCEPOST, ContendedResult::reacquireShare);
        targets.add(atMost(
                "8 nodes: critical sections that go straight back to the releasing node ≤ 25 %",
                Fmt.pct(reacquired), reacquired, 0.25, why));
        if (eight.has(FENCEPOST_FAIR)) {
            double fair = eight.ratio(FENCEPOST_FAIR, FENCEPOST, ContendedResult::perSecond);
            targets.add(atMost(
                    "8 nodes: non-fair at least as fast as fair (fair ≤ 1.0× the critical sections/s of non-fair)",
                    Fmt.count(eight.median(FENCEPOST_FAIR, ContendedResult::perSecond)) + " vs "
                            + Fmt.count(eight.median(FENCEPOST, ContendedResult::perSecond)) + " CS/s ("
                            + Fmt.ratio(fair) + ")",
                    fair,
                    1.0,
                    why));
        }
    }

    /** A contended figure as the targets table compares it with another library's: formatted, with its unit. */
    private record Figure(ToDoubleFunction<ContendedResult> metric, DoubleFunction<String> format, String unit) {}

    private static final Figure CRITICAL_SECTIONS = new Figure(ContendedResult::perSecond, Fmt::count, " CS/s");

    private static final Figure WAIT_P99 = new Figure(ContendedResult::waitP99Ms, Fmt::ms, "");

    private static final Figure HAND_OFF = new Figure(ContendedResult::handoffP50Ms, Fmt::ms, "");

    /** How a measured value is judged against its goal: {@link #atLeast} or {@link #atMost}. */
    @FunctionalInterface
    private interface Bound {
        Target judge(String target, String measured, double value, double goal, String why);
    }

    /**
     * The target on Fencepost's ratio to {@code other} in one contended run {@code s} (threads or nodes on one key);
     * none where that run or either library's figure is missing.
     */
    private Optional<Target> versus(
            String target,
            Series<ContendedResult> s,
            Library other,
            Figure figure,
            Bound bound,
            double goal,
            String why) {
        if (s == null) {
            return Optional.empty();
        }
        double ratio = s.ratio(FENCEPOST, other, figure.metric());
        if (Double.isNaN(ratio)) {
            return Optional.empty();
        }
        String measured = figure.format().apply(s.median(FENCEPOST, figure.metric())) + " vs "
                + figure.format().apply(s.median(other, figure.metric())) + figure.unit() + " (" + Fmt.ratio(ratio)
                + ")";
        return Optional.of(bound.judge(target, measured, ratio, goal, why));
    }

    private static Target atLeast(String target, String measured, double value, double goal, String why) {
        boolean met = value >= goal;
        String verdict = met
                ? "met"
                : "missed: " + Fmt.dec(value, 2) + " vs " + Fmt.dec(goal, 2) + ", " + Fmt.pct(1 - value / goal)
                        + " short";
        return new Target(target, measured, met, verdict, why);
    }

    private static Target atMost(String target, String measured, double value, double goal, String why) {
        boolean met = value <= goal;
        String verdict = met
                ? "met"
                : "missed: " + Fmt.num(value) + " vs at most " + Fmt.num(goal) + ", " + Fmt.ratio(value / goal)
                        + " the bound";
        return new Target(target, measured, met, verdict, why);
    }
}
