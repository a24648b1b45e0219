package io.fencepost.lock.core;

import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Fair waiting on one key inside one manager: the local waiters in ticket order. Only the head (the lowest
 * ticket) talks to the store; the others wait here without touching the database. The lock guards only memory.
 */
final class FairQueue {

    private final ReentrantLock lock = new ReentrantLock();

    private final Condition changed = lock.newCondition();

    private final TreeSet<Long> tickets = new TreeSet<>();

    /** Threads using this queue; guarded by the manager's map operations. */
    int users;

    void add(long ticket) {
        lock.lock();
        try {
            tickets.add(ticket);
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    void remove(long ticket) {
        lock.lock();
        try {
            tickets.remove(ticket);
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    boolean isHead(long ticket) {
        lock.lock();
        try {
            return !tickets.isEmpty() && tickets.first() == ticket;
        } finally {
            lock.unlock();
        }
    }

    /** Whether no local thread waits in the queue. */
    boolean isEmpty() {
        lock.lock();
        try {
            return tickets.isEmpty();
        } finally {
            lock.unlock();
        }
    }

    /** Wakes every local waiter: the head re-checks the store, the others whether they became the head. */
    void wake() {
        lock.lock();
        try {
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Waits up to {@code nanos} for a change or a wake-up. */
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
