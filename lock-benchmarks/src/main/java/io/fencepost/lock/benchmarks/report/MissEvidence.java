package io.fencepost.lock.benchmarks.report;

import static io.fencepost.lock.benchmarks.clients.Library.DURABLE_FLOOR;
import static io.fencepost.lock.benchmarks.clients.Library.FENCEPOST;
import static io.fencepost.lock.benchmarks.clients.Library.FENCEPOST_FAIR;
import static io.fencepost.lock.benchmarks.clients.Library.FENCEPOST_STORE;
import static io.fencepost.lock.benchmarks.clients.Library.RAW;
import static io.fencepost.lock.benchmarks.clients.Library.RAW_ASYNC;
import static io.fencepost.lock.benchmarks.clients.Library.REDISSON;
import static io.fencepost.lock.benchmarks.clients.Library.REDISSON_FSYNC;
import static io.fencepost.lock.benchmarks.clients.Library.SELECT_ONE;

import io.fencepost.lock.benchmarks.Results;
import io.fencepost.lock.benchmarks.Series;
import io.fencepost.lock.benchmarks.clients.Library;
import io.fencepost.lock.benchmarks.scenarios.AnnotationResult;
import io.fencepost.lock.benchmarks.scenarios.ContendedResult;
import io.fencepost.lock.benchmarks.scenarios.ContendedWorker;
import io.fencepost.lock.benchmarks.scenarios.CycleResult;

/**
 * Explains where the time goes when Fencepost misses a target, from the parts of the measurements that show it. The
 * sentences are in {@code miss-evidence.properties}; this class picks those that apply and works out their values.
 */
final class MissEvidence {

    private static final Prose PROSE = Prose.load("miss-evidence.properties");

    /** The uncontended target against the durable raw ceiling, and the nodes target against Redisson. */
    private static final double CEILING_GOAL = 1.5;

    private final Results r;

    MissEvidence(Results r) {
        this.r = r;
    }

    /** Evidence for the uncontended throughput targets: where a Fencepost cycle spends its time next to raw SQL. */
    String throughputWhy() {
        Series<CycleResult> s = r.sameKey;
        double engine = s.difference(FENCEPOST, FENCEPOST_STORE, CycleResult::p50Micros);
        double acquireGap = s.difference(FENCEPOST, RAW, CycleResult::acquireP50Micros);
        double releaseSaving = s.difference(RAW, FENCEPOST, CycleResult::releaseP50Micros);
        boolean walCounted = counted(FENCEPOST) && counted(RAW);
        Figures figures = new Figures(r)
                .cycles(s)
                .put("asyncOverDurable", Fmt.ratio(s.ratio(RAW_ASYNC, RAW, CycleResult::perSecond)))
                .put("fencepostOfAsync", Fmt.pct(s.ratio(FENCEPOST, RAW_ASYNC, CycleResult::perSecond)))
                .put("engine", Fmt.us(engine))
                .put("releaseSaving", Fmt.us(releaseSaving))
                .put("acquireGap", Fmt.us(acquireGap))
                .put("goal", Fmt.dec(CEILING_GOAL, 1))
                .put("goalCycle", Fmt.us(s.median(RAW, CycleResult::p50Micros) / CEILING_GOAL));
        return PROSE.paragraph(figures)
                .add("throughput.1")
                .addIf(s.has(RAW_ASYNC), "throughput.async")
                .addIf(s.has(SELECT_ONE), "throughput.selectOne")
                .add("throughput.2")
                .addIf(s.has(FENCEPOST_STORE), "throughput.store")
                .addIf(s.has(FENCEPOST_STORE), engine > 0 ? "throughput.store.engine" : "throughput.store.noEngine")
                .addIf(walCounted, "throughput.wal")
                .addIf(walCounted && counted(RAW_ASYNC), "throughput.wal.async")
                .addIf(walCounted, "throughput.wal.bytes")
                .addIf(releaseSaving > 0, "throughput.releaseSaving")
                .addIf(acquireGap > 0, "throughput.acquireGap")
                .add("throughput.3")
                .toString();
    }

    /** Evidence for the uncontended targets against another library: its cycle's parts next to Fencepost's. */
    String competitorWhy(Library other, double goal) {
        Series<CycleResult> s = r.sameKey;
        Figures figures = new Figures(r)
                .cycles(s)
                .alias("other", other)
                .put("other", other.label())
                .put("flush", Fmt.us(s.difference(RAW, RAW_ASYNC, CycleResult::releaseP50Micros)))
                .put("goal", Fmt.dec(goal, 1))
                .put("goalCycle", Fmt.us(s.median(other, CycleResult::p50Micros) / goal));
        return PROSE.paragraph(figures)
                .add("competitor.1")
                .addIf(counted(FENCEPOST) && counted(other), "competitor.counted")
                .addIf(s.has(RAW) && s.has(RAW_ASYNC), "competitor.flush")
                .add("competitor.2")
                .toString();
    }

    String losingWhy() {
        Series<CycleResult> s = r.losing;
        return PROSE.paragraph(new Figures(r).cycles(s))
                .add("losing.1")
                .addIf(s.has(RAW), "losing.raw")
                .addIf(counted(FENCEPOST), "losing.counted")
                .addIf(s.has(FENCEPOST_STORE), "losing.store")
                .add("losing.2")
                .toString();
    }

    String annotationWhy() {
        Figures figures = new Figures(r)
                .put("plain", Fmt.num(Measured.median(r.annotation, AnnotationResult::plainCpuNanos)))
                .put("direct", Fmt.num(Measured.median(r.annotation, AnnotationResult::directCpuNanos)))
                .put("annotated", Fmt.num(Measured.median(r.annotation, AnnotationResult::annotatedCpuNanos)));
        return PROSE.paragraph(figures).add("annotation.1").toString();
    }

    /**
     * Evidence for the targets on one node per thread: what one hand-off between nodes is made of, and how much time
     * the target leaves for it next to one durable statement measured in the same run.
     */
    String nodesWhy(int nodes) {
        Series<ContendedResult> s = r.nodes.get(nodes);
        if (s == null || !s.has(FENCEPOST)) {
            return "";
        }
        boolean redisson = s.has(REDISSON);
        boolean durableKnown = redisson && r.sameKey != null && r.sameKey.has(RAW);
        // One critical section's share of a second at the target rate, next to one durable INSERT's round trip.
        double allowedMicros = 1e6 / (CEILING_GOAL * s.median(REDISSON, ContendedResult::perSecond));
        double durable = durableKnown ? r.sameKey.median(RAW, CycleResult::acquireP50Micros) : Double.NaN;
        Figures figures = new Figures(r)
                .contended(s)
                .cycles(r.sameKey)
                .put("nodes", nodes)
                .put("goal", Fmt.dec(CEILING_GOAL, 1))
                .put("allowed", Fmt.us(allowedMicros))
                .put("spare", Fmt.us(allowedMicros - durable));
        return PROSE.paragraph(figures)
                .add("nodes.1")
                .addIf(s.has(FENCEPOST_FAIR), "nodes.fair")
                .add("nodes.2")
                .addIf(redisson, "nodes.redisson")
                .addIf(durableKnown, "nodes.redisson.durable")
                .addIf(
                        durableKnown,
                        durable >= allowedMicros ? "nodes.redisson.durable.over" : "nodes.redisson.durable.under")
                .addIf(redisson, "nodes.redisson.end")
                .addIf(s.has(RAW), "nodes.raw")
                .addIf(s.has(DURABLE_FLOOR), "nodes.floor")
                .addIf(s.has(REDISSON_FSYNC), "nodes.fsync")
                .add("nodes.3")
                .toString();
    }

    String contendedWhy(int threads) {
        Series<ContendedResult> s = r.contended.get(threads);
        if (s == null || !s.has(FENCEPOST)) {
            return "";
        }
        boolean fairTimedOut = s.of(FENCEPOST_FAIR).stream()
                        .mapToLong(ContendedResult::timeouts)
                        .sum()
                > 0;
        // The mean wait of a first-come-first-served queue of every thread at the measured rate.
        double queuedMillis = threads / s.median(FENCEPOST, ContendedResult::perSecond) * 1e3;
        Figures figures = new Figures(r)
                .contended(s)
                .cycles(r.sameKey)
                .put("threads", threads)
                .put("threadsPerJvm", threads / 2)
                .put("queuedWait", Fmt.ms(queuedMillis))
                .put("grace", Fmt.secs(ContendedWorker.GRACE));
        return PROSE.paragraph(figures)
                .add("contended.1")
                .addIf(s.has(REDISSON), "contended.redisson")
                .addIf(r.sameKey != null && r.sameKey.has(FENCEPOST), "contended.inOneJvm")
                .add("contended.queue")
                .add(Measured.pushHandOff() ? "contended.push" : "contended.poll")
                .addIf(s.has(FENCEPOST_FAIR), "contended.fair")
                .addIf(s.has(FENCEPOST_FAIR), fairTimedOut ? "contended.fair.timeouts" : "contended.fair.end")
                .add("contended.2")
                .toString();
    }

    private boolean counted(Library library) {
        return Measured.counted(r, library).isPresent();
    }
}
