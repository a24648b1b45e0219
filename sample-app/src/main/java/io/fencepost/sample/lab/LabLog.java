package io.fencepost.sample.lab;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The lab's records, kept here until "Reset" and read by the page on every poll, so that a reload shows what the
 * page showed before it: the event log (bounded), the grant table (the latest grants by token), the pinned events
 * (rejections, violations and what became of them) and each experiment's latest result.
 */
final class LabLog {

    /** Kinds of event that stay pinned until reset, however far the log moves on. */
    static final Set<String> PINNED_KINDS = Set.of("rejected", "violation", "overwrite");

    private static final int MAX_EVENTS = 200;

    private static final int MAX_GRANTS = 14;

    private static final int MAX_PINNED = 40;

    private final ReentrantLock lock = new ReentrantLock();

    private final Deque<LabState.Event> events = new ArrayDeque<>();

    private final Deque<LabState.Event> pinned = new ArrayDeque<>();

    /** By token: the table keeps the highest tokens, whatever order their outcomes arrive in. */
    private final TreeMap<Long, LabState.Grant> grants = new TreeMap<>();

    private final Map<String, LabState.Result> results = new LinkedHashMap<>();

    private long seq;

    void event(String worker, String kind, String text) {
        lock.lock();
        try {
            LabState.Event event = new LabState.Event(++seq, Instant.now(), worker, kind, text);
            events.addLast(event);
            if (events.size() > MAX_EVENTS) {
                events.removeFirst();
            }
            if (PINNED_KINDS.contains(kind)) {
                pinned.addFirst(event);
                if (pinned.size() > MAX_PINNED) {
                    pinned.removeLast();
                }
            }
        } finally {
            lock.unlock();
        }
    }

    void grant(long token, String worker) {
        lock.lock();
        try {
            grants.put(token, new LabState.Grant(token, worker, Instant.now(), "working"));
            while (grants.size() > MAX_GRANTS) {
                grants.pollFirstEntry();
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * What became of a grant. A grant no longer in the table (made before a reset, or pushed out by newer ones) stays
     * out: its outcome is in the event log.
     */
    void outcome(long token, String worker, String outcome) {
        lock.lock();
        try {
            grants.computeIfPresent(
                    token, (t, grant) -> new LabState.Grant(t, grant.worker(), grant.grantedAt(), outcome));
        } finally {
            lock.unlock();
        }
    }

    /** Records an experiment's latest result, replacing its previous one (its steps are events of their own). */
    void result(String experiment, boolean asPromised, String text) {
        lock.lock();
        try {
            results.put(experiment, new LabState.Result(experiment, asPromised, text, Instant.now()));
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

    /** The pinned events, newest first. */
    List<LabState.Event> pinned() {
        lock.lock();
        try {
            return List.copyOf(pinned);
        } finally {
            lock.unlock();
        }
    }

    /** The latest grants, highest token first. */
    List<LabState.Grant> grants() {
        lock.lock();
        try {
            return List.copyOf(grants.descendingMap().values());
        } finally {
            lock.unlock();
        }
    }

    /** Each experiment's latest result, by experiment id. */
    Map<String, LabState.Result> results() {
        lock.lock();
        try {
            return Map.copyOf(results);
        } finally {
            lock.unlock();
        }
    }

    void clear() {
        lock.lock();
        try {
            events.clear();
            pinned.clear();
            grants.clear();
            results.clear();
        } finally {
            lock.unlock();
        }
    }
}
