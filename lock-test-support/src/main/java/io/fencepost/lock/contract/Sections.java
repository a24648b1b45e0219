package io.fencepost.lock.contract;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What threads saw inside their leases of one key: a section is entered after the grant and left before the release,
 * so sections of a correct store overlap only as its leases may. Records violations instead of failing on the worker
 * thread.
 */
final class Sections {

    private final AtomicInteger readers = new AtomicInteger();

    private final AtomicInteger writers = new AtomicInteger();

    private final AtomicInteger counted = new AtomicInteger();

    private final AtomicInteger mostReaders = new AtomicInteger();

    private final AtomicInteger mostCounted = new AtomicInteger();

    private final AtomicInteger reads = new AtomicInteger();

    private final AtomicInteger writes = new AtomicInteger();

    /** The highest token of a section left so far, and of an exclusive one. */
    private final AtomicLong lastLeft = new AtomicLong();

    private final AtomicLong lastExclusiveLeft = new AtomicLong();

    private final List<String> violations = new CopyOnWriteArrayList<>();

    /**
     * Runs {@code work} inside a shared or an exclusive lease with {@code token}. A section that starts after another
     * has ended was granted after it when either of them is exclusive, so its token must be higher.
     */
    void inside(boolean exclusive, long token, Runnable work) {
        long exclusiveBefore = lastExclusiveLeft.get();
        long anyBefore = lastLeft.get();
        if (token <= exclusiveBefore || (exclusive && token <= anyBefore)) {
            violations.add("token " + token + " entered after a section with token "
                    + (exclusive ? anyBefore : exclusiveBefore) + " had ended");
        }
        if (exclusive) {
            int writing = writers.incrementAndGet();
            if (writing > 1 || readers.get() > 0) {
                violations.add("writer " + token + " entered with " + (writing - 1) + " writers and " + readers.get()
                        + " readers inside");
            }
        } else {
            int reading = readers.incrementAndGet();
            mostReaders.accumulateAndGet(reading, Math::max);
            if (writers.get() > 0) {
                violations.add("reader " + token + " entered with a writer inside");
            }
        }
        try {
            work.run();
        } finally {
            (exclusive ? writers : readers).decrementAndGet();
            (exclusive ? writes : reads).incrementAndGet();
            lastLeft.accumulateAndGet(token, Math::max);
            if (exclusive) {
                lastExclusiveLeft.accumulateAndGet(token, Math::max);
            }
        }
    }

    /** Runs {@code work} inside one of the key's permits. */
    void insideCounted(long token, Runnable work) {
        mostCounted.accumulateAndGet(counted.incrementAndGet(), Math::max);
        try {
            work.run();
        } finally {
            counted.decrementAndGet();
        }
    }

    int reads() {
        return reads.get();
    }

    int writes() {
        return writes.get();
    }

    int mostReadersAtOnce() {
        return mostReaders.get();
    }

    int mostCountedAtOnce() {
        return mostCounted.get();
    }

    void assertNoViolations() {
        assertThat(violations).isEmpty();
    }
}
