package io.fencepost.sample.lab;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/** What the failovers of one variant did since the last reset, counted from the clients' and the store's answers. */
final class FailoverTally {

    private final ReentrantLock lock = new ReentrantLock();

    private final List<Long> commitMicros = new ArrayList<>();

    private int failovers;

    private int doubleGrants;

    private int reissued;

    private long lostUpdates;

    void commits(List<Long> micros) {
        lock.lock();
        try {
            commitMicros.addAll(micros);
        } finally {
            lock.unlock();
        }
    }

    void failover(boolean doubleGrant, boolean tokenReissued, long lost) {
        lock.lock();
        try {
            failovers++;
            doubleGrants += doubleGrant ? 1 : 0;
            reissued += tokenReissued ? 1 : 0;
            lostUpdates += lost;
        } finally {
            lock.unlock();
        }
    }

    int failovers() {
        return read(() -> failovers);
    }

    int doubleGrants() {
        return read(() -> doubleGrants);
    }

    int reissued() {
        return read(() -> reissued);
    }

    long lostUpdates() {
        return read(() -> lostUpdates);
    }

    /** The median grant time, in milliseconds with one decimal. */
    String medianCommitMillis() {
        lock.lock();
        try {
            if (commitMicros.isEmpty()) {
                return "?";
            }
            List<Long> sorted = commitMicros.stream().sorted().toList();
            return String.format(Locale.ROOT, "%.1f", sorted.get(sorted.size() / 2) / 1000.0);
        } finally {
            lock.unlock();
        }
    }

    void reset() {
        lock.lock();
        try {
            commitMicros.clear();
            failovers = 0;
            doubleGrants = 0;
            reissued = 0;
            lostUpdates = 0;
        } finally {
            lock.unlock();
        }
    }

    private <T> T read(Supplier<T> value) {
        lock.lock();
        try {
            return value.get();
        } finally {
            lock.unlock();
        }
    }
}
