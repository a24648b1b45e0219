package io.fencepost.lock.benchmarks.report;

import static io.fencepost.lock.benchmarks.clients.Library.FENCEPOST;
import static io.fencepost.lock.benchmarks.clients.Library.FENCEPOST_FAIR;
import static io.fencepost.lock.benchmarks.clients.Library.FENCEPOST_STORE;
import static io.fencepost.lock.benchmarks.clients.Library.RAW;
import static io.fencepost.lock.benchmarks.clients.Library.RAW_ASYNC;
import static io.fencepost.lock.benchmarks.clients.Library.RAW_INSERT;
import static io.fencepost.lock.benchmarks.clients.Library.REDISSON;
import static io.fencepost.lock.benchmarks.clients.Library.SELECT_ONE;

import io.fencepost.lock.benchmarks.Results;
import io.fencepost.lock.benchmarks.Series;
import io.fencepost.lock.benchmarks.clients.Library;
import io.fencepost.lock.benchmarks.scenarios.AnnotationResult;
import io.fencepost.lock.benchmarks.scenarios.ContendedResult;
import io.fencepost.lock.benchmarks.scenarios.ContendedWorker;
import io.fencepost.lock.benchmarks.scenarios.CountingResult;
import io.fencepost.lock.benchmarks.scenarios.CycleResult;
import java.util.Optional;

/** Explains where the time goes when Fencepost misses a target, from the parts of the measurements that show it. */
final class MissEvidence {

    private final Results r;

    MissEvidence(Results r) {
        this.r = r;
    }

    /** Evidence for the uncontended throughput targets: where a Fencepost cycle spends its time next to raw SQL. */
    String throughputWhy() {
        Series<CycleResult> s = r.sameKey;
        StringBuilder why = new StringBuilder("**Uncontended cycle.** ");
        why.append("A Fencepost cycle takes ")
                .append(Fmt.us(s.median(FENCEPOST, CycleResult::p50Micros)))
                .append(" at the median: acquire ")
                .append(Fmt.us(s.median(FENCEPOST, CycleResult::acquireP50Micros)))
                .append(", release ")
                .append(Fmt.us(s.median(FENCEPOST, CycleResult::releaseP50Micros)))
                .append(". The raw durable ceiling takes ")
                .append(Fmt.us(s.median(RAW, CycleResult::p50Micros)))
                .append(" (acquire ")
                .append(Fmt.us(s.median(RAW, CycleResult::acquireP50Micros)))
                .append(", release ")
                .append(Fmt.us(s.median(RAW, CycleResult::releaseP50Micros)))
                .append(")");
        if (s.has(RAW_ASYNC)) {
            why.append(", and the same raw SQL with Fencepost's asynchronous release takes ")
                    .append(Fmt.us(s.median(RAW_ASYNC, CycleResult::p50Micros)))
                    .append(" (release ")
                    .append(Fmt.us(s.median(RAW_ASYNC, CycleResult::releaseP50Micros)))
                    .append("): that is the ceiling of this design, ")
                    .append(Fmt.ratio(s.ratio(RAW_ASYNC, RAW, CycleResult::perSecond)))
                    .append(" the durable one, and Fencepost reaches ")
                    .append(Fmt.pct(s.ratio(FENCEPOST, RAW_ASYNC, CycleResult::perSecond)))
                    .append(" of it");
        }
        if (s.has(SELECT_ONE)) {
            why.append(". A bare `SELECT 1` round trip takes ")
                    .append(Fmt.us(s.median(SELECT_ONE, CycleResult::p50Micros)));
        }
        why.append(".");
        if (s.has(FENCEPOST_STORE)) {
            double engine = s.difference(FENCEPOST, FENCEPOST_STORE, CycleResult::p50Micros);
            why.append(" Fencepost's store called directly (the same two statements through the same statement runner,"
                            + " without the engine) cycles in ")
                    .append(Fmt.us(s.median(FENCEPOST_STORE, CycleResult::p50Micros)))
                    .append(" (acquire ")
                    .append(Fmt.us(s.median(FENCEPOST_STORE, CycleResult::acquireP50Micros)))
                    .append(", release ")
                    .append(Fmt.us(s.median(FENCEPOST_STORE, CycleResult::releaseP50Micros)))
                    .append(
                            engine > 0
                                    ? "), so the engine (validation, owner token, local queue, grant and renewal"
                                            + " bookkeeping, listener) accounts for " + Fmt.us(engine)
                                            + " per cycle and the statements and their JDBC handling for the rest."
                                    : "), no faster than through the engine: the time is in the statements and their"
                                            + " JDBC handling, not in the engine.");
        }
        Optional<CountingResult> f = Measured.counted(r, FENCEPOST);
        Optional<CountingResult> raw = Measured.counted(r, RAW);
        Optional<CountingResult> rawAsync = Measured.counted(r, RAW_ASYNC);
        if (f.isPresent() && raw.isPresent()) {
            why.append(" Per cycle the server flushed the WAL ")
                    .append(Fmt.num(f.get().walSyncsPerCycle()))
                    .append(" times for Fencepost, ")
                    .append(Fmt.num(raw.get().walSyncsPerCycle()))
                    .append(" for raw durable");
            rawAsync.ifPresent(a ->
                    why.append(" and ").append(Fmt.num(a.walSyncsPerCycle())).append(" for raw async"));
            why.append(" (`pg_stat_wal.wal_sync`, cluster-wide) and wrote ")
                    .append(Fmt.count(f.get().walBytesPerCycle()))
                    .append(" WAL bytes against ")
                    .append(Fmt.count(raw.get().walBytesPerCycle()))
                    .append(".");
        }
        double acquireGap = s.difference(FENCEPOST, RAW, CycleResult::acquireP50Micros);
        double releaseSaving = s.difference(RAW, FENCEPOST, CycleResult::releaseP50Micros);
        if (releaseSaving > 0) {
            why.append(" The asynchronous release saves ")
                    .append(Fmt.us(releaseSaving))
                    .append(" against the durable ceiling's release, as designed.");
        }
        if (acquireGap > 0) {
            why.append(" The acquire costs ")
                    .append(Fmt.us(acquireGap))
                    .append(" more than raw's single durable INSERT: besides the insert, Fencepost's one statement"
                            + " takes a transaction-scoped advisory lock on the key's hash (for token order), sets"
                            + " `synchronous_commit` for its transaction (durable whatever the server default) and"
                            + " writes a wider row (holder, acquisition time, contended mark), and each call also pays"
                            + " the statement runner's per-call settings (autocommit check, network timeout set and"
                            + " restored).");
        }
        why.append(" The target ≥ 1.5× the durable ceiling needs a cycle of at most ")
                .append(Fmt.us(s.median(RAW, CycleResult::p50Micros) / 1.5))
                .append(" at the median: a durable acquire as cheap as the raw one plus a release close to a bare"
                        + " round trip. The WAL flush of the acquire, which must stay durable, is what remains."
                        + " Going below the asynchronous-release ceiling would take a release that does not wait for"
                        + " its statement; but `release()` reports whether it removed the lease, and once it returns"
                        + " the key is free for everyone, so it waits for one round trip.");
        return why.toString();
    }

    /** Evidence for the uncontended targets against another library: its cycle's parts next to Fencepost's. */
    String competitorWhy(Library other, double goal) {
        Series<CycleResult> s = r.sameKey;
        StringBuilder why = new StringBuilder("**Uncontended cycle against " + other.label() + ".** ");
        why.append(other.label())
                .append(" cycles in ")
                .append(Fmt.us(s.median(other, CycleResult::p50Micros)))
                .append(" at the median (acquire ")
                .append(Fmt.us(s.median(other, CycleResult::acquireP50Micros)))
                .append(", release ")
                .append(Fmt.us(s.median(other, CycleResult::releaseP50Micros)))
                .append("), Fencepost in ")
                .append(Fmt.us(s.median(FENCEPOST, CycleResult::p50Micros)))
                .append(" (acquire ")
                .append(Fmt.us(s.median(FENCEPOST, CycleResult::acquireP50Micros)))
                .append(", release ")
                .append(Fmt.us(s.median(FENCEPOST, CycleResult::releaseP50Micros)))
                .append(").");
        Optional<CountingResult> f = Measured.counted(r, FENCEPOST);
        Optional<CountingResult> o = Measured.counted(r, other);
        if (f.isPresent() && o.isPresent()) {
            why.append(" Per cycle ")
                    .append(other.label())
                    .append(" sends ")
                    .append(Fmt.num(o.get().statementsPerCycle()))
                    .append(" statements in ")
                    .append(Fmt.num(o.get().roundTripsPerCycle()))
                    .append(" round trips and makes the server flush the WAL ")
                    .append(Fmt.num(o.get().walSyncsPerCycle()))
                    .append(" times; Fencepost ")
                    .append(Fmt.num(f.get().statementsPerCycle()))
                    .append(" in ")
                    .append(Fmt.num(f.get().roundTripsPerCycle()))
                    .append(", ")
                    .append(Fmt.num(f.get().walSyncsPerCycle()))
                    .append(" flush.");
        }
        if (s.has(RAW) && s.has(RAW_ASYNC)) {
            double flush = s.difference(RAW, RAW_ASYNC, CycleResult::releaseP50Micros);
            why.append(" A WAL flush costs about ")
                    .append(Fmt.us(flush))
                    .append(
                            " on this machine in this run (the raw durable release's p50 minus the asynchronous one's).");
        }
        why.append(" ")
                .append(Fmt.dec(goal, 1))
                .append("× would need a Fencepost cycle of at most ")
                .append(Fmt.us(s.median(other, CycleResult::p50Micros) / goal))
                .append(": with one durable commit of its own, Fencepost's lead over a library with two is at most"
                        + " the second flush and the extra round trips, and shrinks wherever the flush is cheap"
                        + " relative to the statements' own work.");
        return why.toString();
    }

    String losingWhy() {
        Series<CycleResult> s = r.losing;
        StringBuilder why = new StringBuilder("**Losing attempt.** ");
        why.append("Fencepost's losing attempt takes ")
                .append(Fmt.us(s.median(FENCEPOST, CycleResult::p50Micros)))
                .append(" at the median against the bare insert's ")
                .append(Fmt.us(s.median(RAW_INSERT, CycleResult::p50Micros)));
        if (s.has(RAW)) {
            why.append(" and raw's ").append(Fmt.us(s.median(RAW, CycleResult::p50Micros)));
        }
        Measured.counted(r, FENCEPOST)
                .ifPresent(c -> why.append("; it sends ")
                        .append(Fmt.num(c.statementsPerLosingTry()))
                        .append(" statement(s) in ")
                        .append(Fmt.num(c.roundTripsPerLosingTry()))
                        .append(" round trip(s) (")
                        .append(c.losingBreakdown())
                        .append(")"));
        if (s.has(FENCEPOST_STORE)) {
            why.append("; its store alone takes ").append(Fmt.us(s.median(FENCEPOST_STORE, CycleResult::p50Micros)));
        }
        why.append(". The bare insert neither locks the conflicting row nor draws a sequence value, and writes"
                + " nothing. Raw's statement locks the conflicting row even when it loses, so it writes and commits"
                + " durably. Fencepost's attempt that will not wait reads the live lease first and stops there: no"
                + " advisory lock, no row lock, no fencing token, nothing written. What it costs over the bare insert"
                + " is the size of its one statement, every part of which the server sets up before running it (the"
                + " conflict clause that takes over an expired lease and answers a key held with permits, the columns"
                + " of a grant), and the statement runner's per-call settings (autocommit check, network timeout set"
                + " and restored).");
        return why.toString();
    }

    String annotationWhy() {
        return "**Annotation.** Per call, CPU: plain "
                + Fmt.num(Measured.median(r.annotation, AnnotationResult::plainCpuNanos))
                + " ns, `withLock` " + Fmt.num(Measured.median(r.annotation, AnnotationResult::directCpuNanos))
                + " ns, `@DistributedLock` "
                + Fmt.num(Measured.median(r.annotation, AnnotationResult::annotatedCpuNanos))
                + " ns. The difference is the proxy (CGLIB dispatch, the advisor's method matching), evaluating the"
                + " SpEL key against the arguments, and making the lease current (`LockContext`).";
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
        StringBuilder why = new StringBuilder("**" + nodes + " nodes.** ");
        why.append("Fencepost: ")
                .append(Fmt.count(s.median(FENCEPOST, ContendedResult::perSecond)))
                .append(" CS/s, hand-off to another node p50 ")
                .append(Fmt.ms(s.median(FENCEPOST, ContendedResult::handoffP50Ms)))
                .append(", wait p50 ")
                .append(Fmt.ms(s.median(FENCEPOST, ContendedResult::waitP50Ms)))
                .append(", p99 ")
                .append(Fmt.ms(s.median(FENCEPOST, ContendedResult::waitP99Ms)))
                .append(", the releasing node took the key straight back in ")
                .append(Fmt.pct(s.median(FENCEPOST, ContendedResult::reacquireShare)))
                .append(" of critical sections.");
        if (s.has(FENCEPOST_FAIR)) {
            why.append(" Fair mode: ")
                    .append(Fmt.count(s.median(FENCEPOST_FAIR, ContendedResult::perSecond)))
                    .append(" CS/s, wait p99 ")
                    .append(Fmt.ms(s.median(FENCEPOST_FAIR, ContendedResult::waitP99Ms)))
                    .append(".");
        }
        why.append(" Every waiter is in another node, registered with the store; a release hands the lease to the"
                + " oldest registration in its own statement, which commits durably (the new grant and its fencing"
                + " token must survive a crash) and notifies; the next node starts when its listener has the"
                + " message. So each hand-off between nodes has at least one WAL flush on its critical path, and the"
                + " rate of hand-offs is at most the rate of durable statements one after another.");
        if (s.has(REDISSON)) {
            double redisson = s.median(REDISSON, ContendedResult::perSecond);
            double allowedMicros = 1e6 / (1.5 * redisson);
            why.append(" Redisson: ")
                    .append(Fmt.count(redisson))
                    .append(" CS/s, hand-off p50 ")
                    .append(Fmt.ms(s.median(REDISSON, ContendedResult::handoffP50Ms)))
                    .append(", wait p99 ")
                    .append(Fmt.ms(s.median(REDISSON, ContendedResult::waitP99Ms)))
                    .append("; it persists nothing. 1.5× its rate leaves ")
                    .append(Fmt.us(allowedMicros))
                    .append(" per critical section");
            if (r.sameKey != null && r.sameKey.has(RAW)) {
                double durable = r.sameKey.median(RAW, CycleResult::acquireP50Micros);
                why.append(", against ")
                        .append(Fmt.us(durable))
                        .append(" for one durable `INSERT` round trip with nothing else running (the raw ceiling's"
                                + " uncontended acquire, this run)")
                        .append(
                                durable >= allowedMicros
                                        ? ": below one WAL flush per hand-off, which no lock whose grants are durable"
                                                + " can reach on this machine"
                                        : ": " + Fmt.us(allowedMicros - durable)
                                                + " for waking another process and for the statement's own work, on two"
                                                + " cores shared by " + nodes + " nodes' threads, their backends and"
                                                + " the database's disk writes");
            }
            why.append(".");
        }
        if (s.has(RAW)) {
            why.append(" The raw durable ceiling, polled by the harness on the same ")
                    .append(nodes)
                    .append(" nodes, made ")
                    .append(Fmt.count(s.median(RAW, ContendedResult::perSecond)))
                    .append(" CS/s (two flushes per critical section, ")
                    .append(Fmt.pct(s.median(RAW, ContendedResult::reacquireShare)))
                    .append(" of them taken straight back by the releasing node).");
        }
        why.append(" A release's notification goes to the next holder's own channel, yet PostgreSQL wakes every"
                        + " listening session of the database for it, and each checks the channel: ")
                .append(nodes)
                .append(" backends woken per hand-off, of which one passes the message on.");
        return why.toString();
    }

    String contendedWhy(int threads) {
        Series<ContendedResult> s = r.contended.get(threads);
        if (s == null || !s.has(FENCEPOST)) {
            return "";
        }
        StringBuilder why = new StringBuilder("**Contended, " + threads + " threads.** ");
        why.append("Fencepost: ")
                .append(Fmt.count(s.median(FENCEPOST, ContendedResult::perSecond)))
                .append(" CS/s, hand-off to another thread p50 ")
                .append(Fmt.ms(s.median(FENCEPOST, ContendedResult::handoffP50Ms)))
                .append(", of which ")
                .append(Fmt.pct(s.median(FENCEPOST, ContendedResult::crossJvmShare)))
                .append(" went to the other JVM with a p50 of ")
                .append(Fmt.ms(s.median(FENCEPOST, ContendedResult::crossJvmHandoffP50Ms)))
                .append("; the releasing thread took the key straight back in ")
                .append(Fmt.pct(s.median(FENCEPOST, ContendedResult::reacquireShare)))
                .append(" of the hand-offs, and the busier JVM had ")
                .append(Fmt.pct(s.median(FENCEPOST, ContendedResult::busierJvmShare)))
                .append(" of all critical sections; waits p50 ")
                .append(Fmt.ms(s.median(FENCEPOST, ContendedResult::waitP50Ms)))
                .append(", p99 ")
                .append(Fmt.ms(s.median(FENCEPOST, ContendedResult::waitP99Ms)))
                .append(".");
        if (s.has(REDISSON)) {
            why.append(" Redisson: ")
                    .append(Fmt.count(s.median(REDISSON, ContendedResult::perSecond)))
                    .append(" CS/s, hand-off p50 ")
                    .append(Fmt.ms(s.median(REDISSON, ContendedResult::handoffP50Ms)))
                    .append(", ")
                    .append(Fmt.pct(s.median(REDISSON, ContendedResult::crossJvmShare)))
                    .append(" to the other JVM, wait p99 ")
                    .append(Fmt.ms(s.median(REDISSON, ContendedResult::waitP99Ms)))
                    .append(".");
        }
        if (r.sameKey != null && r.sameKey.has(FENCEPOST)) {
            why.append(" A hand-off inside one JVM is one durable statement, the releasing thread's hand-over `UPDATE`"
                            + " that gives the lease to the next thread in line (an uncontended acquire statement, for"
                            + " comparison, takes ")
                    .append(Fmt.us(r.sameKey.median(FENCEPOST, CycleResult::acquireP50Micros)))
                    .append(
                            "); the rest of the measured hand-off is waking that thread and waiting for a CPU (two cores"
                                    + " for two JVMs of ")
                    .append(threads / 2)
                    .append(" threads each, PostgreSQL's backends and Redis).");
        }
        double perSecond = s.median(FENCEPOST, ContendedResult::perSecond);
        double crossShare = s.median(FENCEPOST, ContendedResult::crossJvmShare);
        why.append(" With ")
                .append(threads)
                .append(" threads queued, a first-come-first-served lock handing off ")
                .append(Fmt.count(perSecond))
                .append(" times a second keeps each waiting ")
                .append(Fmt.ms(threads / perSecond * 1e3))
                .append(" on average (threads ÷ rate), against the measured wait p50 of ")
                .append(Fmt.ms(s.median(FENCEPOST, ContendedResult::waitP50Ms)))
                .append(": the rate sets the body of the distribution, and the rate is bounded by one durable commit"
                        + " (a WAL flush) per grant.");
        if (Measured.pushHandOff()) {
            why.append(" The head of the other JVM's line registers as a waiter and marks the lease as waited for; the"
                            + " key then changes hands locally at most three times in a row before a release hands it"
                            + " to the oldest registration in the same statement and tells that JVM (LISTEN/NOTIFY),"
                            + " which keeps it for a similar slice: ")
                    .append(Fmt.pct(crossShare))
                    .append(" of hand-offs crossed JVMs, each slower than a local one (the release statement also"
                            + " notifies, then a wake-up in the other process), and the time a thread of one JVM"
                            + " spends behind the other JVM's stretch sets the tail.");
        } else {
            why.append(" Within one JVM a release wakes the local waiter at once, but a waiter in the other JVM only"
                    + " learns of a release at its next poll (backoff 5–100 ms; this version has no push hand-off),"
                    + " so the key stays in one JVM for stretches and a thread of the other JVM waits them out: that"
                    + " sets the tail.");
        }
        if (s.has(FENCEPOST_FAIR)) {
            why.append(" Fair mode (every waiter registered and served in arrival order) gives ")
                    .append(Fmt.count(s.median(FENCEPOST_FAIR, ContendedResult::perSecond)))
                    .append(" CS/s, wait p99 ")
                    .append(Fmt.ms(s.median(FENCEPOST_FAIR, ContendedResult::waitP99Ms)))
                    .append(", ")
                    .append(Fmt.pct(s.median(FENCEPOST_FAIR, ContendedResult::crossJvmShare)))
                    .append(" of hand-offs to the other JVM")
                    .append(
                            s.of(FENCEPOST_FAIR).stream()
                                                    .mapToLong(ContendedResult::timeouts)
                                                    .sum()
                                            > 0
                                    ? ", and some of its waits had not ended "
                                            + Fmt.secs(ContendedWorker.GRACE)
                                            + " after the window (counted as timeouts; their time still enters the"
                                            + " percentiles)."
                                    : ".");
        }
        why.append(" Redisson's and the advisory lock's grants persist nothing, so their hand-off rate is not bound by"
                + " the disk.");
        return why.toString();
    }
}
