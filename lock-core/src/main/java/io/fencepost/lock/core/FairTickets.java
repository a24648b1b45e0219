package io.fencepost.lock.core;

import io.fencepost.lock.spi.QueueTicket;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Fair mode inside one manager: per key, the tickets its waiters hold, in order, so that only the lowest asks the
 * store. A line is made for the first waiter of a key and dropped when the last one leaves.
 */
final class FairTickets {

    private final ConcurrentHashMap<String, Line> byKey = new ConcurrentHashMap<>();

    /** The line of {@code key}, which the caller uses until it calls {@link #leave}. */
    Line enter(String key) {
        return byKey.compute(key, (k, line) -> {
            Line l = line == null ? new Line() : line;
            l.users++;
            return l;
        });
    }

    /** The caller of {@link #enter} is done with the line. */
    void leave(String key) {
        byKey.computeIfPresent(key, (k, line) -> --line.users == 0 ? null : line);
    }

    /** Wakes this manager's fair waiters for {@code key}: the head re-checks the store, the others their turn. */
    void wake(String key) {
        Line line = byKey.get(key);
        if (line != null) {
            line.wake();
        }
    }

    /** The tickets this manager's waiters hold for one key, in order. The lock guards only memory. */
    static final class Line {

        private final ReentrantLock lock = new ReentrantLock();

        private final Condition changed = lock.newCondition();

        private final TreeSet<Long> numbers = new TreeSet<>();

        /** Callers using this entry; changed only inside the map's per-key lock. */
        int users;

        void add(long number) {
            lock.lock();
            try {
                numbers.add(number);
                changed.signalAll();
            } finally {
                lock.unlock();
            }
        }

        void remove(long number) {
            lock.lock();
            try {
                numbers.remove(number);
                changed.signalAll();
            } finally {
                lock.unlock();
            }
        }

        boolean isHead(long number) {
            lock.lock();
            try {
                return !numbers.isEmpty() && numbers.first() == number;
            } finally {
                lock.unlock();
            }
        }

        /** Whether no local thread waits in the queue (a caller that does not wait holds {@code NOT_QUEUED}). */
        boolean isEmpty() {
            lock.lock();
            try {
                return numbers.headSet(QueueTicket.NOT_QUEUED).isEmpty();
            } finally {
                lock.unlock();
            }
        }

        void wake() {
            lock.lock();
            try {
                changed.signalAll();
            } finally {
                lock.unlock();
            }
        }

        void await(long nanos) throws InterruptedException {
            if (nanos <= 0) {
                return;
            }
            lock.lock();
            try {
                changed.await(nanos, TimeUnit.NANOSECONDS);
            } finally {
                lock.unlock();
            }
        }
    }
}
