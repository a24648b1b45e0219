package io.fencepost.lock.benchmarks.report;

import static io.fencepost.lock.benchmarks.clients.SetVariant.FENCEPOST_ALL;
import static io.fencepost.lock.benchmarks.clients.SetVariant.FENCEPOST_ONE_BY_ONE;

import io.fencepost.lock.benchmarks.KeyedSeries;
import io.fencepost.lock.benchmarks.Results;
import io.fencepost.lock.benchmarks.Settings;
import io.fencepost.lock.benchmarks.clients.SetVariant;
import io.fencepost.lock.benchmarks.scenarios.CycleResult;
import io.fencepost.lock.benchmarks.scenarios.SetCounts;
import io.fencepost.lock.benchmarks.scenarios.SetsResult;
import io.fencepost.lock.benchmarks.scenarios.SetsScenario;

/** Writes the section on taking several keys at once: {@code acquireAll}, one acquire per key, RedissonMultiLock. */
record SetsSection(Settings settings, Results r, Markdown md) implements Section {

    @Override
    public void write() {
        if (r.sets.isEmpty()) {
            return;
        }
        md.line("## Several keys at once");
        md.line();
        md.line("A set of keys taken all together and released together, three ways. Fencepost's"
                + " `LockManager.acquireAll`: one statement takes every key of the set or none, so the acquire is one"
                + " round trip and one durable WAL flush however many keys; `MultiLease.release()` releases them."
                + " One `LockManager.acquire` per key, in sorted key order (the order is what keeps two such callers"
                + " from deadlocking): one statement, one round trip and one WAL flush per key, then one release per"
                + " key. Redisson's `RedissonMultiLock` (`getMultiLock(getLock(k1), …)`, a timed `tryLock`,"
                + " `unlock()`): it takes the keys one after the other in the order given, one Redis round trip each,"
                + " and persists nothing. Fencepost's release of a lease nobody waits for commits without waiting for"
                + " a flush, so the flushes of an uncontended cycle are its acquire's; the statements column shows"
                + " what the release sends.");
        md.line();
        md.line("**Uncontended:** one thread takes and releases the same free set back to back for "
                + Fmt.secs(settings.cycleWindow()) + " per variant and round (" + settings.shortRounds()
                + " measured rounds after a warm-up, the variants in a rotating order); the median over rounds."
                + " Statements, round trips and WAL flushes are counted, not timed, over "
                + settings.countedCycles() + " further cycles of the Fencepost variants as in the statements and"
                + " round trips section (in the JDBC driver's socket; `pg_stat_wal`, which counts the whole cluster:"
                + " when other databases had more rows written meanwhile than a tenth of the cycles, twice, the"
                + " flushes are not shown). Ratios are per round, then the median over"
                + " rounds. Issue 33's target: one statement and one WAL flush per uncontended acquire of a set of 2"
                + " and of 8 keys, and at least 1.5× the rate of sequential single-key acquires for 2 keys.");
        md.line();
        for (SetsResult result : r.sets) {
            uncontended(result);
        }
        md.line("**Contended:** two clients (two managers on the pool, two Redisson clients), one thread each, take"
                + " overlapping sets back to back for " + Fmt.secs(settings.contendedWindow()) + " per variant and"
                + " round (" + settings.rounds() + " measured rounds): the first `[k0 … kn-1]`, the second"
                + " `[kn … k1]`, so they share n-1 keys and list them in opposite orders. `acquireAll` gets the keys"
                + " as given; one `acquire` per key sorts them first, as a careful user must (in the given orders"
                + " the two would deadlock, each holding what the other waits for, until a wait runs out);"
                + " `RedissonMultiLock` gets them as given, and waits for each busy lock while it holds the ones"
                + " before it. A wait may run until " + Fmt.secs(SetsScenario.GRACE)
                + " past the window; a call that did not get its set by then"
                + " counts as a timeout, and its wait enters the percentiles as a lower bound. Sets/s are both"
                + " clients' sets over the time until both stopped.");
        md.line();
        md.line("| keys | how | sets/s (both clients) | range over rounds | acquire wait p50 | acquire wait p99 |"
                + " timed out |");
        md.line("| --- | --- | --- | --- | --- | --- | --- |");
        for (SetsResult result : r.sets) {
            contended(result);
        }
        md.line();
    }

    private void uncontended(SetsResult result) {
        KeyedSeries<SetVariant, CycleResult> s = result.uncontended();
        md.line("### Uncontended, " + result.keys() + " keys");
        md.line();
        md.line("| how | sets/s | range over rounds | cycle p50 | cycle p99 | acquire p50 | release p50 | `acquireAll`"
                + " ÷ this | statements per cycle: acquire + release (round trips) | WAL flushes per cycle |");
        md.line("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
        for (SetVariant variant : s.keys()) {
            SetCounts counts = result.counted().get(variant);
            long failed =
                    s.of(variant).stream().mapToLong(CycleResult::anomalies).sum();
            md.line("| " + name(variant) + " | " + Fmt.count(s.median(variant, CycleResult::perSecond))
                    + (failed > 0 ? " (" + failed + " failed acquires)" : "") + " | "
                    + Fmt.range(s.min(variant, CycleResult::perSecond), s.max(variant, CycleResult::perSecond))
                    + " | " + Fmt.us(s.median(variant, CycleResult::p50Micros)) + " | "
                    + Fmt.us(s.median(variant, CycleResult::p99Micros)) + " | "
                    + Fmt.us(s.median(variant, CycleResult::acquireP50Micros)) + " | "
                    + Fmt.us(s.median(variant, CycleResult::releaseP50Micros)) + " | "
                    + (variant == FENCEPOST_ALL
                            ? "1"
                            : Fmt.ratio(s.ratio(FENCEPOST_ALL, variant, CycleResult::perSecond)))
                    + " | "
                    + (counts == null
                            ? Fmt.NONE
                            : Fmt.num(counts.acquireStatements()) + " + " + Fmt.num(counts.releaseStatements())
                                    + " (" + Fmt.num(counts.roundTrips()) + "): "
                                    + Markdown.cell(counts.breakdown()))
                    + " | " + wal(counts) + " |");
        }
        md.line();
        md.line("`acquireAll` ÷ one `acquire` per key, " + result.keys() + " keys: "
                + Fmt.ratio(s.ratio(FENCEPOST_ALL, FENCEPOST_ONE_BY_ONE, CycleResult::perSecond))
                + " the sets per second (acquire and release); "
                + Fmt.ratio(s.ratio(FENCEPOST_ONE_BY_ONE, FENCEPOST_ALL, CycleResult::acquireP50Micros))
                + " the speed of the acquire alone (the inverse ratio of acquire p50).");
        md.line();
    }

    private static String wal(SetCounts counts) {
        if (counts == null) {
            return Fmt.NONE;
        }
        return Double.isNaN(counts.walFlushes())
                ? Fmt.NONE + " (others wrote " + Fmt.count(counts.rowsWrittenElsewhere()) + " rows meanwhile)"
                : Fmt.num(counts.walFlushes());
    }

    private void contended(SetsResult result) {
        KeyedSeries<SetVariant, CycleResult> s = result.contended();
        for (SetVariant variant : s.keys()) {
            md.line("| " + result.keys() + " | " + name(variant) + " | "
                    + Fmt.count(s.median(variant, CycleResult::perSecond)) + " | "
                    + Fmt.range(s.min(variant, CycleResult::perSecond), s.max(variant, CycleResult::perSecond))
                    + " | " + Fmt.us(s.median(variant, CycleResult::p50Micros)) + " | "
                    + Fmt.us(s.median(variant, CycleResult::p99Micros)) + " | "
                    + s.of(variant).stream().mapToLong(CycleResult::anomalies).sum() + " |");
        }
    }

    private static String name(SetVariant variant) {
        return variant.onPostgres() ? "**" + variant.label() + "**" : variant.label();
    }
}
