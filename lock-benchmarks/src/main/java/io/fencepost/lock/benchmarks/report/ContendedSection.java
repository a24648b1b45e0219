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
import io.fencepost.lock.benchmarks.Series;
import io.fencepost.lock.benchmarks.Settings;
import io.fencepost.lock.benchmarks.clients.Library;
import io.fencepost.lock.benchmarks.scenarios.ContendedResult;
import java.util.Map;

/** Writes the contended hand-off section: threads of two JVMs on one key, one table per thread count. */
record ContendedSection(Settings settings, Results r, Markdown md) implements Section {

    @Override
    public void write() {
        if (r.contended.isEmpty()) {
            return;
        }
        md.line("## Contended hand-off, two JVMs");
        md.line();
        md.line("N threads on one key, N/2 in each JVM, each looping acquire → (empty) critical section → release →"
                + " acquire again, for " + Fmt.secs(settings.contendedWindow()) + " per library and round. *Hand-off to"
                + " another thread*: from the start of a release to the next critical section when that one belongs"
                + " to another thread (also shown: only those to the other JVM, and their share). *Wait*: from"
                + " calling acquire to holding the key. *Re-acquired*: share of critical sections followed by one of"
                + " the same thread. Overlapping critical sections (a safety check) were "
                + (totalOverlaps() == 0 ? "never seen." : "**seen " + totalOverlaps() + " times**."));
        md.line();
        for (Map.Entry<Integer, Series<ContendedResult>> entry : r.contended.entrySet()) {
            Series<ContendedResult> s = entry.getValue();
            md.line("### " + entry.getKey() + " threads");
            md.line();
            md.line(
                    "| library | waits by | CS/s | hand-off to another thread p50 | to the other JVM: p50 (share) | wait"
                            + " p50 | wait p99 | re-acquired by the releasing thread | busier JVM's share of CS | Fencepost ÷"
                            + " this: CS/s, wait p99 |");
            md.line("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
            for (Library library : s.libraries()) {
                long problems = s.of(library).stream()
                        .mapToLong(c -> c.timeouts() + c.errors())
                        .sum();
                md.line("| " + Section.label(library) + " | "
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
            md.line();
        }
    }

    private static String waitsBy(Library library) {
        return switch (library) {
            case RAW, RAW_ASYNC -> "harness polls every 5 ms";
            case FENCEPOST ->
                Measured.pushHandOff()
                        ? "local line, hand-over in one statement; other JVM woken by NOTIFY"
                        : "local queue; one poller per JVM, 5–100 ms backoff";
            case SHEDLOCK -> "harness polls every 5 ms (ShedLock never waits)";
            case SPRING_INTEGRATION -> "local lock; polls every 100 ms";
            case REDISSON -> "pub/sub wake-up";
            case ADVISORY -> "server-side queue";
            case FENCEPOST_FAIR -> "as Fencepost, plus a ticket queue shared by all clients";
            case FENCEPOST_SHARED, FENCEPOST_PERMITS, REDISSON_READ, REDISSON_PERMITS, REDISSON_SEMAPHORE ->
                Fmt.NONE; // not in this scenario
            case SELECT_ONE, FENCEPOST_STORE -> Fmt.NONE;
        };
    }

    private long totalOverlaps() {
        return r.contended.values().stream()
                .flatMap(s -> s.libraries().stream().flatMap(l -> s.of(l).stream()))
                .mapToLong(ContendedResult::overlaps)
                .sum();
    }
}
