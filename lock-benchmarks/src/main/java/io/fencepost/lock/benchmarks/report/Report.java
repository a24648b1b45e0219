package io.fencepost.lock.benchmarks.report;

import static io.fencepost.lock.benchmarks.clients.Library.ADVISORY;
import static io.fencepost.lock.benchmarks.clients.Library.FENCEPOST;
import static io.fencepost.lock.benchmarks.clients.Library.FENCEPOST_FAIR;
import static io.fencepost.lock.benchmarks.clients.Library.FENCEPOST_STORE;
import static io.fencepost.lock.benchmarks.clients.Library.RAW;
import static io.fencepost.lock.benchmarks.clients.Library.RAW_ASYNC;
import static io.fencepost.lock.benchmarks.clients.Library.REDISSON;
import static io.fencepost.lock.benchmarks.clients.Library.SELECT_ONE;
import static io.fencepost.lock.benchmarks.clients.Library.SHEDLOCK;
import static io.fencepost.lock.benchmarks.clients.Library.SPRING_INTEGRATION;

import io.fencepost.lock.benchmarks.Results;
import io.fencepost.lock.benchmarks.Samples;
import io.fencepost.lock.benchmarks.Series;
import io.fencepost.lock.benchmarks.Settings;
import io.fencepost.lock.benchmarks.clients.Library;
import io.fencepost.lock.benchmarks.scenarios.AnnotationResult;
import io.fencepost.lock.benchmarks.scenarios.ContendedResult;
import io.fencepost.lock.benchmarks.scenarios.ContendedWorker;
import io.fencepost.lock.benchmarks.scenarios.CountingResult;
import io.fencepost.lock.benchmarks.scenarios.CycleResult;
import io.fencepost.lock.benchmarks.scenarios.RenewalResult;
import io.fencepost.lock.jdbc.PostgresLeaseStore;
import io.fencepost.lock.spi.LeaseStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.ToDoubleFunction;

/**
 * Writes {@code docs/benchmarks.md} from one run's {@link Results}: how to run, the environment, the tables, the
 * chart and the targets of issue 8 against what was measured, with the evidence for every miss.
 */
public final class Report {

    private static final String RUN_COMMAND = "lock-benchmarks/run.sh";

    private final Settings settings;

    private final Results r;

    private final StringBuilder md = new StringBuilder();

    public Report(Settings settings, Results results) {
        this.settings = settings;
        this.r = results;
    }

    // ---------------------------------------------------------------------------------------------------------------
    // chart

    public String chart() {
        SvgChart chart = new SvgChart("Fencepost and alternatives on one machine ("
                + r.environment.getOrDefault("CPU", "") + "), " + r.startedAt.toLocalDate());
        if (r.sameKey != null) {
            List<Library> libs =
                    present(r.sameKey, RAW, RAW_ASYNC, FENCEPOST, SHEDLOCK, SPRING_INTEGRATION, REDISSON, ADVISORY);
            boolean distinct = r.distinctKeys != null;
            double[][] values = new double[libs.size()][distinct ? 2 : 1];
            for (int i = 0; i < libs.size(); i++) {
                values[i][0] = r.sameKey.median(libs.get(i), CycleResult::perSecond);
                if (distinct) {
                    values[i][1] = r.distinctKeys.median(libs.get(i), CycleResult::perSecond);
                }
            }
            chart.add(new SvgChart.Panel(
                    "Uncontended acquire + release cycles per second (one thread)",
                    labels(libs),
                    distinct ? List.of("same key", "a new key every cycle") : List.of("same key"),
                    values,
                    false,
                    v -> Fmt.count(v) + "/s",
                    FENCEPOST.label()));
        }
        if (!r.contended.isEmpty()) {
            List<Library> libs = contendedLibraries();
            List<String> series = new ArrayList<>();
            r.contended.keySet().forEach(t -> series.add(t + " threads"));
            double[][] cs = new double[libs.size()][series.size()];
            double[][] p99 = new double[libs.size()][series.size()];
            for (int i = 0; i < libs.size(); i++) {
                int s = 0;
                for (Series<ContendedResult> byThreads : r.contended.values()) {
                    cs[i][s] = byThreads.median(libs.get(i), ContendedResult::perSecond);
                    p99[i][s] = byThreads.median(libs.get(i), ContendedResult::waitP99Ms);
                    s++;
                }
            }
            chart.add(new SvgChart.Panel(
                    "Contended: critical sections per second, threads on one key across 2 JVMs",
                    labels(libs),
                    series,
                    cs,
                    false,
                    v -> Fmt.count(v) + "/s",
                    FENCEPOST.label()));
            chart.add(new SvgChart.Panel(
                    "Contended: wait p99 (ms, log scale; shorter is better)",
                    labels(libs),
                    series,
                    p99,
                    true,
                    v -> Fmt.num(v) + " ms",
                    FENCEPOST.label()));
        }
        return chart.render();
    }

    // ---------------------------------------------------------------------------------------------------------------
    // markdown

    public String markdown() {
        md.setLength(0);
        line("# Benchmarks");
        line();
        line("<!-- Generated by " + RUN_COMMAND + " (io.fencepost.lock.benchmarks.BenchmarkMain). Do not edit by"
                + " hand: run it again. -->");
        line();
        line("Fencepost next to the raw SQL ceiling, ShedLock, Spring Integration's `JdbcLockRegistry`, Redisson and"
                + " `pg_advisory_lock`, all measured in the same run on the same machine (issue 8). Generated "
                + r.startedAt + " by `" + RUN_COMMAND + (settings.command().isEmpty() ? "" : " " + settings.command())
                + "` in " + r.duration.toSeconds() + " s"
                + (settings.quick() ? " (**quick mode: smoke figures," + " not for comparison**)" : "") + ".");
        line();
        howToRun();
        environment();
        method();
        if (r.sameKey != null || !r.contended.isEmpty()) {
            line("![Uncontended cycles per second; contended critical sections per second and wait p99]("
                    + settings.chart().getFileName() + ")");
            line();
        }
        headline();
        targets();
        uncontended();
        losing();
        counting();
        contended();
        renewal();
        annotation();
        caveats();
        return md.toString();
    }

    private void howToRun() {
        line("## How to run");
        line();
        line("Needs PostgreSQL on 127.0.0.1:5432 (user `postgres`, trust authentication) and Redis on 127.0.0.1:6379;"
                + " the harness creates the database `fencepost_bench`, and drops it at the end.");
        line();
        line("```sh");
        line(RUN_COMMAND + "            # build, then the full run (about 10 minutes); rewrites docs/benchmarks.md"
                + " and docs/benchmarks.svg");
        line(RUN_COMMAND + " --quick    # smoke run (about 2 minutes), written to"
                + " lock-benchmarks/target/benchmarks-quick.md");
        line(RUN_COMMAND + " --help     # rounds, windows, thread counts, scenarios, libraries, addresses");
        line("```");
        line();
        line("The script runs `./mvnw -q -B -pl lock-benchmarks -am package -Dmaven.test.skip=true` and then `java -jar"
                + " lock-benchmarks/target/lock-benchmarks.jar`. The module is compiled by every build but runs"
                + " nothing during it (it has no tests).");
        line();
    }

    private void environment() {
        line("## Environment");
        line();
        line("| | |");
        line("| --- | --- |");
        r.environment.forEach((k, v) -> line("| " + k + " | " + cell(v) + " |"));
        line("| run settings | after 1 warm-up round, " + settings.shortRounds() + " measured rounds of "
                + secs(settings.cycleWindow()) + " per library (uncontended) and of " + secs(settings.losingWindow())
                + " (losing), " + settings.rounds() + " of " + secs(settings.contendedWindow()) + " (contended), "
                + 2 * settings.rounds() + " of " + secs(settings.annotationWindow()) + " (annotation); "
                + settings.leases() + " leases for renewal |");
        line();
        line("| library | exactly what ran |");
        line("| --- | --- |");
        r.versions.forEach((k, v) -> line("| " + k + " | " + cell(v) + " |"));
        line();
    }

    private void method() {
        line("## Method");
        line();
        line("- **Rounds.** Each scenario runs a warm-up round (discarded), then measured rounds (see the run"
                + " settings above). A round runs every library once, one after the other, starting with a different"
                + " library each round, so that the drifts of a shared two-core machine spread over all libraries."
                + " Tables show the **median over rounds** (with the min–max range where useful).");
        line("- **Ratios and differences** between two libraries are the median of the per-round ratios (or"
                + " differences), i.e. always of two measurements taken seconds apart, in the same run.");
        line("- **Every library as documented.** Raw SQL: `INSERT … ON CONFLICT DO UPDATE … WHERE expired RETURNING"
                + " nextval` and `DELETE`, each its own autocommit transaction. Fencepost: `PostgresLockManager"
                + ".builder(dataSource).build()`, defaults (renewal on). ShedLock: `JdbcTemplateLockProvider` with"
                + " `usingDbTime()`, `LockProvider.lock(...)`; it never waits, so the harness retries every 5 ms when it"
                + " must wait. Spring Integration: `DefaultLockRepository` + `JdbcLockRegistry`, defaults (TTL 10 s,"
                + " 100 ms between tries), the `INT_LOCK` DDL from its jar. Redisson: `Redisson.create(config)` with"
                + " one server, `getLock(key)`, `tryLock(wait)`/`unlock()`, watchdog on. `pg_advisory_lock`: session"
                + " lock on `hashtext(key)`, the connection kept for the hold. Lease time 30 s wherever a library"
                + " asks for one.");
        line("- **One pool per JVM.** The JDBC libraries share one HikariCP pool per JVM (same settings for all);"
                + " Redisson has its own connections.");
        line("- **Two JVMs.** The contended scenario starts a second JVM (same class path and options) and splits the"
                + " threads evenly; both record `System.nanoTime()` (CLOCK_MONOTONIC, shared by the processes of"
                + " one machine; the harness checks the two agree) and the critical sections are merged in the order"
                + " they were entered.");
        line("- **Counting.** Statements and round trips are counted on the client's wire: for PostgreSQL inside the"
                + " JDBC driver's socket (a `socketFactory` that reads the protocol the driver writes: every Execute"
                + " or simple Query is a statement, every read after a write is a round trip, so a `BEGIN` the"
                + " driver pipelines ahead of a statement costs none), for Redis through a loopback proxy (every"
                + " command; every send after the server spoke). The servers count too: transactions in"
                + " `pg_stat_database` (read after the pool's backends have exited and reported, minus a pass that"
                + " only sets the client up), WAL flushes in `pg_stat_wal`, commands in Redis's `INFO commandstats`.");
        line();
    }

    private void headline() {
        line("## Summary");
        line();
        line("The shape of issue 8's table, measured now. Cycles/s and p50 are for one thread on one key;"
                + " statements / round trips per acquire + release are counted on the wire; the contended columns are"
                + " threads on one key across two JVMs.");
        line();
        StringBuilder header = new StringBuilder("| case | uncontended cycles/s (p50) | statements / round trips |");
        StringBuilder rule = new StringBuilder("| --- | --- | --- |");
        for (int threads : r.contended.keySet()) {
            header.append(" ").append(threads).append(" threads: CS/s, hand-off to another thread p50, wait p99 |");
            rule.append(" --- |");
        }
        line(header.toString());
        line(rule.toString());
        for (Library library : Library.values()) {
            if (!settings.uses(library) || library.isEvidence()) {
                continue;
            }
            if (library.isVariant() && r.contended.values().stream().noneMatch(s -> s.has(library))) {
                continue;
            }
            StringBuilder row = new StringBuilder(
                    "| " + (library == FENCEPOST ? "**" + library.label() + "**" : library.label()) + " | ");
            if (r.sameKey != null && r.sameKey.has(library)) {
                row.append(Fmt.count(r.sameKey.median(library, CycleResult::perSecond)))
                        .append(" (")
                        .append(Fmt.us(r.sameKey.median(library, CycleResult::p50Micros)))
                        .append(")");
            } else {
                row.append(Fmt.NONE);
            }
            row.append(" | ");
            Optional<CountingResult> counted = counted(library);
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
            line(row.toString());
        }
        line();
    }

    // ---------------------------------------------------------------------------------------------------------------
    // targets

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
                        other == RAW ? throughputWhy() : competitorWhy(other, goal)));
            }
        }
        counted(FENCEPOST).ifPresent(c -> {
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
            double ratio = r.losing.ratio(FENCEPOST, RAW, CycleResult::perSecond);
            if (!Double.isNaN(ratio)) {
                targets.add(atLeast("losing `tryAcquire` ≥ 0.9× raw", Fmt.ratio(ratio), ratio, 0.9, losingWhy()));
            }
        }
        counted(FENCEPOST).ifPresent(c -> {
            boolean zero = c.reentrantRoundTrips() == 0;
            targets.add(new Target(
                    "reentrant acquire: 0 round trips",
                    Fmt.num(c.reentrantRoundTrips()) + " round trips per nested acquire + release",
                    zero,
                    zero ? "met" : "missed",
                    ""));
        });
        Series<ContendedResult> eight = r.contended.get(8);
        if (eight != null) {
            double cs = eight.ratio(FENCEPOST, REDISSON, ContendedResult::perSecond);
            if (!Double.isNaN(cs)) {
                targets.add(atLeast(
                        "8 threads: critical sections/s ≥ Redisson's",
                        Fmt.count(eight.median(FENCEPOST, ContendedResult::perSecond)) + " vs "
                                + Fmt.count(eight.median(REDISSON, ContendedResult::perSecond)) + " CS/s ("
                                + Fmt.ratio(cs) + ")",
                        cs,
                        1.0,
                        contendedWhy(8)));
            }
            double handoff = eight.median(FENCEPOST, ContendedResult::handoffP50Ms);
            if (!Double.isNaN(handoff)) {
                targets.add(atMost(
                        "8 threads: hand-off to another thread, median ≤ 1 ms",
                        Fmt.ms(handoff),
                        handoff,
                        1.0,
                        contendedWhy(8)));
            }
            double p99 = eight.ratio(FENCEPOST, REDISSON, ContendedResult::waitP99Ms);
            if (!Double.isNaN(p99)) {
                targets.add(atMost(
                        "8 threads: wait p99 ≤ ½ Redisson's",
                        Fmt.ms(eight.median(FENCEPOST, ContendedResult::waitP99Ms)) + " vs "
                                + Fmt.ms(eight.median(REDISSON, ContendedResult::waitP99Ms)) + " (" + Fmt.ratio(p99)
                                + ")",
                        p99,
                        0.5,
                        contendedWhy(8)));
            }
        }
        Series<ContendedResult> thirtyTwo = r.contended.get(32);
        if (thirtyTwo != null) {
            double p99 = thirtyTwo.ratio(FENCEPOST, SPRING_INTEGRATION, ContendedResult::waitP99Ms);
            if (!Double.isNaN(p99)) {
                targets.add(atMost(
                        "32 threads: wait p99 ≤ ⅕ of Spring Integration's",
                        Fmt.ms(thirtyTwo.median(FENCEPOST, ContendedResult::waitP99Ms)) + " vs "
                                + Fmt.ms(thirtyTwo.median(SPRING_INTEGRATION, ContendedResult::waitP99Ms)) + " ("
                                + Fmt.ratio(p99) + ")",
                        p99,
                        0.2,
                        contendedWhy(32)));
            }
        }
        if (!r.annotation.isEmpty()) {
            double overhead = median(r.annotation, AnnotationResult::overheadMicros);
            targets.add(atMost(
                    "`@DistributedLock` adds < 5 µs per call over a direct `LockManager` call",
                    Fmt.us(overhead) + " of CPU (wall clock: "
                            + Fmt.us(median(r.annotation, AnnotationResult::wallOverheadMicros)) + ")",
                    overhead,
                    5.0,
                    annotationWhy()));
        }
        line("## Targets vs measured");
        line();
        line("The targets of issue 8, as ratios measured in this run.");
        line();
        line("| target | measured | verdict |");
        line("| --- | --- | --- |");
        for (Target t : targets) {
            line("| " + t.target() + " | " + cell(t.measured()) + " | " + (t.met() ? "✅ " : "❌ ") + t.verdict() + " |");
        }
        line();
        List<String> reasons = new ArrayList<>();
        for (Target t : targets) {
            if (!t.met() && !t.why().isEmpty() && !reasons.contains(t.why())) {
                reasons.add(t.why());
            }
        }
        if (!reasons.isEmpty()) {
            line("### Where the time goes in the missed targets");
            line();
            reasons.forEach(reason -> {
                line(reason);
                line();
            });
        }
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

    /** Evidence for the uncontended throughput targets: where a Fencepost cycle spends its time next to raw SQL. */
    private String throughputWhy() {
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
        Optional<CountingResult> f = counted(FENCEPOST);
        Optional<CountingResult> raw = counted(RAW);
        Optional<CountingResult> rawAsync = counted(RAW_ASYNC);
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
                            + " the statement runner's per-call settings (autocommit check, network and query"
                            + " timeouts).");
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
    private String competitorWhy(Library other, double goal) {
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
        Optional<CountingResult> f = counted(FENCEPOST);
        Optional<CountingResult> o = counted(other);
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

    private String losingWhy() {
        Series<CycleResult> s = r.losing;
        StringBuilder why = new StringBuilder("**Losing attempt.** ");
        why.append("Fencepost's losing attempt takes ")
                .append(Fmt.us(s.median(FENCEPOST, CycleResult::p50Micros)))
                .append(" at the median against raw's ")
                .append(Fmt.us(s.median(RAW, CycleResult::p50Micros)));
        counted(FENCEPOST)
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
        why.append(". Both statements lock the conflicting row (and draw a sequence value) even when they lose, so"
                + " both commit durably; Fencepost's statement also takes the advisory lock and computes how long"
                + " the holder's lease still runs.");
        return why.toString();
    }

    /** Whether Fencepost's PostgreSQL store pushes releases to waiters (rather than leaving them to poll). */
    private static boolean pushHandOff() {
        try {
            return PostgresLeaseStore.class
                            .getMethod("subscribe", String.class, Runnable.class)
                            .getDeclaringClass()
                    != LeaseStore.class;
        } catch (NoSuchMethodException e) {
            return false;
        }
    }

    private String annotationWhy() {
        return "**Annotation.** Per call, CPU: plain " + Fmt.num(median(r.annotation, AnnotationResult::plainCpuNanos))
                + " ns, `withLock` " + Fmt.num(median(r.annotation, AnnotationResult::directCpuNanos))
                + " ns, `@DistributedLock` " + Fmt.num(median(r.annotation, AnnotationResult::annotatedCpuNanos))
                + " ns. The difference is the proxy (CGLIB dispatch, the advisor's method matching), evaluating the"
                + " SpEL key against the arguments, and making the lease current (`LockContext`).";
    }

    private String contendedWhy(int threads) {
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
        if (pushHandOff()) {
            why.append(" A waiter in the other JVM marks the lease as waited for; the key then changes hands locally at"
                            + " most three times in a row before a release frees it, notifies (LISTEN/NOTIFY) and lets"
                            + " the local line hold back for 10 ms, so the remote waiter gets it with its own acquire"
                            + " statement and keeps it for a similar slice: ")
                    .append(Fmt.pct(crossShare))
                    .append(" of hand-offs crossed JVMs, each slower than a local one (notification, wake-up, a"
                            + " statement), and the time a thread of one JVM spends behind the other JVM's stretch"
                            + " sets the tail.");
        } else {
            why.append(" Within one JVM a release wakes the local waiter at once, but a waiter in the other JVM only"
                    + " learns of a release at its next poll (backoff 5–100 ms; this version has no push hand-off),"
                    + " so the key stays in one JVM for stretches and a thread of the other JVM waits them out: that"
                    + " sets the tail.");
        }
        if (s.has(FENCEPOST_FAIR)) {
            why.append(" Fair mode (a ticket queue shared by all clients) gives ")
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
                                            + secs(ContendedWorker.GRACE)
                                            + " after the window (counted as timeouts; their time still enters the"
                                            + " percentiles)."
                                    : ".");
        }
        why.append(" Redisson's and the advisory lock's grants persist nothing, so their hand-off rate is not bound by"
                + " the disk.");
        return why.toString();
    }

    // ---------------------------------------------------------------------------------------------------------------
    // detail tables

    private void uncontended() {
        if (r.sameKey == null) {
            return;
        }
        line("## Uncontended acquire + release");
        line();
        line("One thread, nobody else. Cycle = acquire (or `lock`) + release on a free key; the `SELECT 1` row is one"
                + " pooled round trip, and the row in italics is Fencepost's PostgreSQL store called directly (same"
                + " statements, no engine), to show where Fencepost's time goes. Ratios: Fencepost's cycles/s"
                + " divided by the row's (above 1: Fencepost is faster).");
        line();
        cycleTable("Same key every cycle", r.sameKey, true);
        if (r.distinctKeys != null) {
            cycleTable("A new key every cycle", r.distinctKeys, true);
        }
    }

    private void cycleTable(String title, Series<CycleResult> s, boolean cycle) {
        line("### " + title);
        line();
        line(
                cycle
                        ? "| library | cycles/s | range over rounds | cycle p50 | cycle p99 | acquire p50 | release p50 | Fencepost ÷ this |"
                        : "| library | attempts/s | range over rounds | attempt p50 | attempt p99 | Fencepost ÷ this |");
        line(cycle ? "| --- | --- | --- | --- | --- | --- | --- | --- |" : "| --- | --- | --- | --- | --- | --- |");
        for (Library library : s.libraries()) {
            StringBuilder row = new StringBuilder("| ")
                    .append(name(library))
                    .append(" | ")
                    .append(Fmt.count(s.median(library, CycleResult::perSecond)))
                    .append(" | ")
                    .append(Fmt.range(s.min(library, CycleResult::perSecond), s.max(library, CycleResult::perSecond)))
                    .append(" | ")
                    .append(Fmt.us(s.median(library, CycleResult::p50Micros)))
                    .append(" | ")
                    .append(Fmt.us(s.median(library, CycleResult::p99Micros)))
                    .append(" | ");
            if (cycle) {
                row.append(Fmt.us(s.median(library, CycleResult::acquireP50Micros)))
                        .append(" | ")
                        .append(Fmt.us(s.median(library, CycleResult::releaseP50Micros)))
                        .append(" | ");
            }
            row.append(library == FENCEPOST ? "1" : Fmt.ratio(s.ratio(FENCEPOST, library, CycleResult::perSecond)))
                    .append(" |");
            long anomalies =
                    s.of(library).stream().mapToLong(CycleResult::anomalies).sum();
            if (anomalies > 0) {
                row.append(" (").append(anomalies).append(cycle ? " failed acquires)" : " unexpected wins)");
            }
            line(row.toString());
        }
        line();
    }

    private void losing() {
        if (r.losing == null) {
            return;
        }
        line("## Losing `tryAcquire`");
        line();
        line("The key is held by another client (another manager, registry, connection or Redisson client, on its own"
                + " thread); one thread makes single attempts as fast as it can, each of which must fail.");
        line();
        cycleTable("Attempts on a held key", r.losing, false);
    }

    private void counting() {
        if (r.counting.isEmpty()) {
            return;
        }
        line("## Statements and round trips");
        line();
        line("Counted on the client's wire (see Method) over " + settings.countedCycles()
                + " uncontended cycles (after 20 for"
                + " warm-up), 50 losing attempts and 50 nested acquires (see Method). The server's own counts are"
                + " transactions in the benchmark database (`pg_stat_database`) or Redis commands (`INFO"
                + " commandstats`), and WAL flushes and bytes of the whole cluster (`pg_stat_wal`: other activity on"
                + " the server, and checkpoints, add noise there; a negative value is such noise).");
        line();
        line("| library | per cycle: statements / round trips | statements in a cycle | server: transactions per"
                + " cycle (Redis: commands executed, those inside Lua scripts included) | WAL flushes / bytes per"
                + " cycle | losing attempt: statements / round trips | reentrant acquire + release: round trips |");
        line("| --- | --- | --- | --- | --- | --- | --- |");
        for (CountingResult c : r.counting) {
            Library library = c.library();
            String server = library.onRedis()
                    ? Fmt.num(c.serverCommandsPerCycle()) + " (" + c.serverBreakdown() + ")"
                    : Fmt.num(c.serverTransactionsPerCycle());
            String wal = library.onRedis()
                    ? Fmt.NONE
                    : Fmt.num(c.walSyncsPerCycle()) + " / " + Fmt.count(c.walBytesPerCycle());
            String losing = Double.isNaN(c.statementsPerLosingTry())
                    ? Fmt.NONE
                    : Fmt.num(c.statementsPerLosingTry()) + " / " + Fmt.num(c.roundTripsPerLosingTry()) + " ("
                            + c.losingBreakdown() + ")";
            line("| " + (library == FENCEPOST ? "**" + library.label() + "**" : library.label()) + " | "
                    + Fmt.num(c.statementsPerCycle()) + " / " + Fmt.num(c.roundTripsPerCycle()) + " | "
                    + cell(c.cycleBreakdown()) + " | " + cell(server) + " | " + wal + " | " + cell(losing) + " | "
                    + (Double.isNaN(c.reentrantRoundTrips()) ? "not reentrant here" : Fmt.num(c.reentrantRoundTrips()))
                    + " |");
        }
        line();
    }

    private void contended() {
        if (r.contended.isEmpty()) {
            return;
        }
        line("## Contended hand-off, two JVMs");
        line();
        line("N threads on one key, N/2 in each JVM, each looping acquire → (empty) critical section → release →"
                + " acquire again, for " + secs(settings.contendedWindow()) + " per library and round. *Hand-off to"
                + " another thread*: from the start of a release to the next critical section when that one belongs"
                + " to another thread (also shown: only those to the other JVM, and their share). *Wait*: from"
                + " calling acquire to holding the key. *Re-acquired*: share of critical sections followed by one of"
                + " the same thread. Overlapping critical sections (a safety check) were "
                + (totalOverlaps() == 0 ? "never seen." : "**seen " + totalOverlaps() + " times**."));
        line();
        for (Map.Entry<Integer, Series<ContendedResult>> entry : r.contended.entrySet()) {
            Series<ContendedResult> s = entry.getValue();
            line("### " + entry.getKey() + " threads");
            line();
            line("| library | waits by | CS/s | hand-off to another thread p50 | to the other JVM: p50 (share) | wait"
                    + " p50 | wait p99 | re-acquired by the releasing thread | busier JVM's share of CS | Fencepost ÷"
                    + " this: CS/s, wait p99 |");
            line("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
            for (Library library : s.libraries()) {
                long problems = s.of(library).stream()
                        .mapToLong(c -> c.timeouts() + c.errors())
                        .sum();
                line("| " + (library == FENCEPOST ? "**" + library.label() + "**" : library.label()) + " | "
                        + waitsBy(library) + " | " + Fmt.count(s.median(library, ContendedResult::perSecond))
                        + (problems > 0 ? " (" + problems + " timeouts/errors)" : "") + " | "
                        + Fmt.ms(s.median(library, ContendedResult::handoffP50Ms)) + " | "
                        + Fmt.ms(s.median(library, ContendedResult::crossJvmHandoffP50Ms)) + " ("
                        + Fmt.pct(s.median(library, ContendedResult::crossJvmShare)) + ") | "
                        + Fmt.ms(s.median(library, ContendedResult::waitP50Ms)) + " | "
                        + Fmt.ms(s.median(library, ContendedResult::waitP99Ms)) + " | "
                        + Fmt.pct(s.median(library, ContendedResult::reacquireShare)) + " | "
                        + Fmt.pct(s.median(library, ContendedResult::busierJvmShare)) + " | "
                        + (library == FENCEPOST
                                ? "1"
                                : Fmt.ratio(s.ratio(FENCEPOST, library, ContendedResult::perSecond)) + ", "
                                        + Fmt.ratio(s.ratio(FENCEPOST, library, ContendedResult::waitP99Ms)))
                        + " |");
            }
            line();
        }
    }

    private static String name(Library library) {
        if (library == FENCEPOST) {
            return "**" + library.label() + "**";
        }
        return library.isEvidence() ? "*" + library.label() + "*" : library.label();
    }

    private static String waitsBy(Library library) {
        return switch (library) {
            case RAW, RAW_ASYNC -> "harness polls every 5 ms";
            case FENCEPOST ->
                pushHandOff()
                        ? "local line, hand-over in one statement; other JVM woken by NOTIFY"
                        : "local queue; one poller per JVM, 5–100 ms backoff";
            case SHEDLOCK -> "harness polls every 5 ms (ShedLock never waits)";
            case SPRING_INTEGRATION -> "local lock; polls every 100 ms";
            case REDISSON -> "pub/sub wake-up";
            case ADVISORY -> "server-side queue";
            case FENCEPOST_FAIR -> "as Fencepost, plus a ticket queue shared by all clients";
            case SELECT_ONE, FENCEPOST_STORE -> Fmt.NONE;
        };
    }

    private long totalOverlaps() {
        return r.contended.values().stream()
                .flatMap(s -> s.libraries().stream().flatMap(l -> s.of(l).stream()))
                .mapToLong(ContendedResult::overlaps)
                .sum();
    }

    private void renewal() {
        if (r.renewal.isEmpty()) {
            return;
        }
        line("## Many held leases under renewal");
        line();
        line("N leases taken by 4 threads that stay alive (Fencepost stops renewing a lease whose holder thread has"
                + " died), then observed for 3 renewal periods after one period of settling. Fencepost renews every"
                + " lease a third of its lease time after its last confirmation, all that are due in one `UPDATE`"
                + " per tick; its statements are counted and timed by a wrapper around its `DataSource`. Redisson's"
                + " watchdog is set to the same lease time (so it also extends every third of it); the commands it"
                + " sends are counted on the wire by the proxy (it also carried the acquisitions, so their time is"
                + " not comparable), and what Redis executed, the calls inside its Lua scripts included, is listed"
                + " beside. Leases lost: renewals that failed, or locks no longer held when released at the end."
                + " Heap per lease: retained heap after full GCs, divided by N, the handles the caller keeps"
                + " included.");
        line();
        line("| library | leases | lease time / renewal period | statements per period | leases per statement |"
                + " lease extensions per period | renewal statement p50 / max | leases lost | heap per lease | taken"
                + " in | what was sent during the window |");
        line("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
        for (RenewalResult x : r.renewal) {
            line("| " + x.library() + " | " + Fmt.count(x.leases()) + " | " + Fmt.num(x.leaseSeconds()) + " s / "
                    + Fmt.num(x.period()) + " s | " + Fmt.num(x.statementsPerPeriod()) + " | "
                    + Fmt.count(x.leasesPerStatement()) + " | " + Fmt.count(x.renewedPerPeriod()) + " | "
                    + Fmt.ms(x.statementP50Ms()) + " / " + Fmt.ms(x.statementMaxMs()) + " | " + x.lost() + " | "
                    + Fmt.count(x.heapBytesPerLease()) + " B | " + Fmt.num(x.acquireSeconds()) + " s | "
                    + cell(x.breakdown()) + " |");
        }
        line();
    }

    private void annotation() {
        if (r.annotation.isEmpty()) {
            return;
        }
        line("## `@DistributedLock` overhead");
        line();
        line("The starter's auto-configuration and advisor in a Spring context, over `DefaultLockManager` with the"
                + " in-memory store (no I/O). The same trivial method is called plainly, inside"
                + " `lockManager.withLock(\"invoice:\" + id, options, ...)`, and through its CGLIB proxy with"
                + " `@DistributedLock(key = \"'invoice:' + #id\")`. Batches of 2,000 calls of the three variants"
                + " alternate for the whole window; per round each variant's median batch, then the median over"
                + " rounds. *CPU* is the calling thread's CPU time (what the call costs, and what the target is"
                + " judged on); *wall* is elapsed time, which on this shared machine also contains waiting for a"
                + " core and the renewal thread that every grant wakes.");
        line();
        line("| call | CPU ns per call | range over rounds | wall ns per call | range over rounds |");
        line("| --- | --- | --- | --- | --- |");
        annotationRow("plain method call", AnnotationResult::plainCpuNanos, AnnotationResult::plainWallNanos);
        annotationRow("`LockManager.withLock`", AnnotationResult::directCpuNanos, AnnotationResult::directWallNanos);
        annotationRow(
                "`@DistributedLock` proxy", AnnotationResult::annotatedCpuNanos, AnnotationResult::annotatedWallNanos);
        annotationRow(
                "**annotation overhead** (per-round difference)",
                a -> a.overheadMicros() * 1e3,
                a -> a.wallOverheadMicros() * 1e3);
        line();
    }

    private void annotationRow(
            String name, ToDoubleFunction<AnnotationResult> cpu, ToDoubleFunction<AnnotationResult> wall) {
        line("| " + name + " | " + Fmt.num(median(r.annotation, cpu)) + " | " + rangeOf(r.annotation, cpu) + " | "
                + Fmt.num(median(r.annotation, wall)) + " | " + rangeOf(r.annotation, wall) + " |");
    }

    private void caveats() {
        line("## Caveats");
        line();
        line("- The machine is shared and has 2 cores that the JVMs, PostgreSQL and Redis all compete for; compare"
                + " ratios within this run rather than absolute figures across runs. The load average at the start"
                + " and end is in the environment table.");
        line("- Redis runs without persistence here and Redisson's grants are never fsynced; `pg_advisory_lock`"
                + " grants persist nothing either and end with their session. Neither gives fencing tokens. They are"
                + " the speed a lock without durability can reach, not equivalents.");
        line("- ShedLock is a scheduler lock that skips rather than waits; its contended figures measure the"
                + " harness's 5 ms retry loop around it. Spring Integration's lock expires after 10 s unless renewed"
                + " explicitly.");
        line("- WAL flush counts are cluster-wide: anything else running on the same PostgreSQL during the run adds"
                + " to them.");
        line(
                pushHandOff()
                        ? "- The Fencepost measured here wakes waiters in other JVMs by LISTEN/NOTIFY (detected in the code"
                                + " under test); an older version without it would show its polling instead, with no change to"
                                + " the harness."
                        : "- Fencepost's waiters in another JVM poll in this version; when the LISTEN/NOTIFY hand-off lands,"
                                + " running `" + RUN_COMMAND + "` again measures it with no change to the harness.");
        line();
    }

    // ---------------------------------------------------------------------------------------------------------------
    // helpers

    private Optional<CountingResult> counted(Library library) {
        return r.counting.stream().filter(c -> c.library() == library).findFirst();
    }

    private List<Library> contendedLibraries() {
        List<Library> libs = new ArrayList<>();
        for (Library library : Library.values()) {
            if (r.contended.values().stream().anyMatch(s -> s.has(library))) {
                libs.add(library);
            }
        }
        return libs;
    }

    private static List<Library> present(Series<?> s, Library... libraries) {
        List<Library> out = new ArrayList<>();
        for (Library library : libraries) {
            if (s.has(library)) {
                out.add(library);
            }
        }
        return out;
    }

    private static List<String> labels(List<Library> libraries) {
        return libraries.stream().map(Library::label).toList();
    }

    private static <T> double median(List<T> xs, ToDoubleFunction<T> metric) {
        return Samples.median(xs.stream().mapToDouble(metric).toArray());
    }

    private static <T> String rangeOf(List<T> xs, ToDoubleFunction<T> metric) {
        double[] values = xs.stream().mapToDouble(metric).toArray();
        return Fmt.num(Samples.min(values)) + "–" + Fmt.num(Samples.max(values));
    }

    private static String secs(java.time.Duration d) {
        return String.format(Locale.ROOT, "%.1f s", d.toNanos() / 1e9);
    }

    private static String cell(String s) {
        return s.replace("|", "\\|").replace("\n", " ");
    }

    private void line(String s) {
        md.append(s).append('\n');
    }

    private void line() {
        md.append('\n');
    }
}
