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
import io.fencepost.lock.benchmarks.Settings;
import io.fencepost.lock.benchmarks.clients.Library;

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
        ContendedTables.write(md, r.contended, "thread", true, ContendedSection::waitsBy);
    }

    private static String waitsBy(Library library) {
        return switch (library) {
            case RAW, RAW_ASYNC -> "harness polls every 5 ms";
            case FENCEPOST ->
                Measured.pushHandOff()
                        ? "local line, hand-over in one statement; other JVM woken in the server's lock queue"
                        : "local queue; one poller per JVM, 5–100 ms backoff";
            case SHEDLOCK -> "harness polls every 5 ms (ShedLock never waits)";
            case SPRING_INTEGRATION -> "local lock; polls every 100 ms";
            case REDISSON -> "pub/sub wake-up";
            case ADVISORY -> "server-side queue";
            case FENCEPOST_FAIR -> "as Fencepost, every waiter registered and served in arrival order";
            case FENCEPOST_SHARED,
                    FENCEPOST_PERMITS,
                    REDISSON_READ,
                    REDISSON_PERMITS,
                    REDISSON_SEMAPHORE,
                    DURABLE_FLOOR,
                    DURABLE_FLOOR_KEYED,
                    DURABLE_FLOOR_ENDING,
                    REDISSON_FSYNC -> Fmt.NONE; // not in this scenario
            case SELECT_ONE, FENCEPOST_STORE, RAW_INSERT -> Fmt.NONE;
        };
    }

    private long totalOverlaps() {
        return ContendedTables.overlaps(r.contended);
    }
}
