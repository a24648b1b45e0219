package io.fencepost.lock.benchmarks.report;

import io.fencepost.lock.benchmarks.Results;
import io.fencepost.lock.benchmarks.Samples;
import io.fencepost.lock.benchmarks.Series;
import io.fencepost.lock.benchmarks.clients.Library;
import io.fencepost.lock.benchmarks.scenarios.CycleResult;
import io.fencepost.lock.benchmarks.scenarios.FailoverResult;
import java.util.Arrays;

/** Writes the sections on extending a held lease by hand and on leader failover. */
record ExtendAndFailoverSections(Results r, Markdown md) implements Section {

    @Override
    public void write() {
        extend();
        failover();
    }

    private void extend() {
        Series<CycleResult> s = r.extend;
        if (s == null) {
            return;
        }
        md.line("## Extending a held lease");
        md.line();
        md.line("One thread holds one lease and moves its end to 30 s from now, call after call. Every call here is"
                + " owner-checked: Fencepost's `Lease.extend` is one `UPDATE` that presents the owner token (for a"
                + " shared lease or a permit it also takes the key's draw lock and recomputes the row's end);"
                + " ShedLock's `SimpleLock.extend` and Spring Integration's `JdbcLockRegistry.renewLock` update their"
                + " row where it is still theirs; Redisson's `RPermitExpirableSemaphore.updateLeaseTime` presents the"
                + " permit's id. Redisson's `RLock` has no such call: its watchdog renews, and `expire()` on the"
                + " lock's key would move anyone's lock, so it is not measured. Ratio: Fencepost's (exclusive) calls/s"
                + " divided by the row's.");
        md.line();
        md.line(
                "| call | calls/s | range over rounds | call p50 | call p99 | Fencepost ÷ this | statements / round trips"
                        + " per call (counted, see Statements and round trips) |");
        md.line("| --- | --- | --- | --- | --- | --- | --- |");
        for (Library library : s.libraries()) {
            long refused =
                    s.of(library).stream().mapToLong(CycleResult::anomalies).sum();
            md.line("| " + extendLabel(library) + " | " + Fmt.count(s.median(library, CycleResult::perSecond)) + " | "
                    + Fmt.range(s.min(library, CycleResult::perSecond), s.max(library, CycleResult::perSecond)) + " | "
                    + Fmt.us(s.median(library, CycleResult::p50Micros)) + " | "
                    + Fmt.us(s.median(library, CycleResult::p99Micros)) + " | "
                    + (library == Library.FENCEPOST
                            ? "1"
                            : Fmt.ratio(s.ratio(Library.FENCEPOST, library, CycleResult::perSecond)))
                    + " | " + counted(library) + " |" + (refused > 0 ? " (" + refused + " calls refused)" : ""));
        }
        md.line();
    }

    private String counted(Library library) {
        return Measured.counted(r, library)
                .filter(c -> !Double.isNaN(c.statementsPerExtend()))
                .map(c -> Fmt.num(c.statementsPerExtend()) + " / " + Fmt.num(c.roundTripsPerExtend()) + " ("
                        + Markdown.cell(c.extendBreakdown()) + ")")
                .orElse(Fmt.NONE);
    }

    private static String extendLabel(Library library) {
        return switch (library) {
            case FENCEPOST -> "**Fencepost `Lease.extend`, exclusive lease**";
            case FENCEPOST_SHARED -> "**Fencepost `Lease.extend`, shared lease**";
            case FENCEPOST_PERMITS -> "**Fencepost `Lease.extend`, one of " + Library.PERMITS + " permits**";
            case SHEDLOCK -> "ShedLock `SimpleLock.extend` (JdbcTemplate, usingDbTime)";
            case SPRING_INTEGRATION -> "Spring Integration `JdbcLockRegistry.renewLock`";
            case REDISSON_PERMITS -> "Redisson `RPermitExpirableSemaphore.updateLeaseTime`";
            default -> library.label();
        };
    }

    private void failover() {
        if (r.failover.isEmpty()) {
            return;
        }
        FailoverResult any = r.failover.get(0);
        md.line("## Leader failover");
        md.line();
        md.line("Fencepost's `LeaderElection` next to Spring Integration's `LockRegistryLeaderInitiator` over a"
                + " `JdbcLockRegistry` (heartbeat and busy wait as shipped; its lock polls every 100 ms), every"
                + " candidate its own application instance (its own manager, or repository with its own client id)."
                + " Redisson has no leader election. **yield** and **close**: two candidates in this JVM, one leading,"
                + " the other waiting; the time is from the leader's `yieldLeadership()` (Spring Integration:"
                + " `getContext().yield()`) or `close()` (`stop()`) call to the other's grant callback. A Fencepost"
                + " candidate that yielded stays out for 1 s, so the other is granted; Spring Integration's competes"
                + " again at once and may take the lock back, which shows as a hand-over missed (none within 5 s). **kill**: the leader runs in a second JVM that is killed with"
                + " SIGKILL, so its lease is abandoned, never released; the time is from the kill to the waiting"
                + " candidate's grant, with the lease time (Spring Integration: the registry's time to live) "
                + Fmt.secs(any.leaseTime()) + ". That time is dominated by the lease left at the kill (read from the"
                + " database just after it); *after expiry* is the rest, the time the waiting candidate took to"
                + " notice the expired lease and take it.");
        md.line();
        md.line("| library | how | hand-overs | to the next grant, median | range | lease left at kill, median | after"
                + " expiry, median |");
        md.line("| --- | --- | --- | --- | --- | --- | --- |");
        for (FailoverResult f : r.failover) {
            double[] after = new double[f.millis().length];
            for (int i = 0; i < after.length && i < f.leaseLeftMillis().length; i++) {
                after[i] = f.millis()[i] - f.leaseLeftMillis()[i];
            }
            boolean kill = f.how().equals("kill");
            md.line("| " + Section.label(f.library()) + " | " + f.how() + " | " + f.millis().length + " of "
                    + f.attempts() + " | " + Fmt.ms(Samples.median(f.millis())) + " | "
                    + (f.millis().length == 0
                            ? Fmt.NONE
                            : Fmt.num(Samples.min(f.millis())) + "–" + Fmt.num(Samples.max(f.millis())) + " ms")
                    + " | " + (kill ? Fmt.ms(Samples.median(f.leaseLeftMillis())) : Fmt.NONE) + " | "
                    + (kill && after.length > 0 && Arrays.stream(after).noneMatch(Double::isNaN)
                            ? Fmt.ms(Samples.median(after))
                            : Fmt.NONE)
                    + " |");
        }
        md.line();
    }
}
