package io.fencepost.sample.lab;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

/** The lab's event log and grant table, bounded, shared by the workers and read by the page. */
final class LabLog {

    private static final int MAX_EVENTS = 200;

    private static final int MAX_GRANTS = 14;

    private final ReentrantLock lock = new ReentrantLock();

    private final Deque<LabState.Event> events = new ArrayDeque<>();

    private final Map<Long, LabState.Grant> grants = new LinkedHashMap<>();

    private long seq;

    void event(String worker, String kind, String text) {
        lock.lock();
        try {
            events.addLast(new LabState.Event(++seq, Instant.now(), worker, kind, text));
            if (events.size() > MAX_EVENTS) {
                events.removeFirst();
            }
        } finally {
            lock.unlock();
        }
    }

    void grant(long token, String worker) {
        outcome(token, worker, "working");
    }

    void outcome(long token, String worker, String outcome) {
        lock.lock();
        try {
            LabState.Grant previous = grants.remove(token);
            grants.put(
                    token,
                    new LabState.Grant(
                            token, worker, previous == null ? Instant.now() : previous.grantedAt(), outcome));
            while (grants.size() > MAX_GRANTS) {
                grants.remove(grants.keySet().iterator().next());
            }
        } finally {
            lock.unlock();
        }
    }

    /** Events after {@code since}, oldest first. */
    List<LabState.Event> eventsSince(long since) {
        lock.lock();
        try {
            List<LabState.Event> newer = new ArrayList<>();
            for (LabState.Event event : events) {
                if (event.seq() > since) {
                    newer.add(event);
                }
            }
            return newer;
        } finally {
            lock.unlock();
        }
    }

    /** The latest grants, highest token first. */
    List<LabState.Grant> grants() {
        lock.lock();
        try {
            List<LabState.Grant> latest = new ArrayList<>(grants.values());
            latest.sort((a, b) -> Long.compare(b.fencingToken(), a.fencingToken()));
            return latest;
        } finally {
            lock.unlock();
        }
    }

    void clear() {
        lock.lock();
        try {
            events.clear();
            grants.clear();
        } finally {
            lock.unlock();
        }
    }
}
