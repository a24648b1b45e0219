package io.fencepost.lock.core;

import java.util.concurrent.ConcurrentHashMap;

/**
 * The {@link WaiterLine}s of one manager, one per key while anybody uses it: a line is made for the first caller and
 * dropped when the last one leaves, so idle keys cost no memory.
 */
final class WaiterLines {

    /** A line and how many callers use it; changed only inside the map's per-key lock. */
    private static final class Entry {
        final WaiterLine line = new WaiterLine();
        int users;
    }

    private final ConcurrentHashMap<String, Entry> byKey = new ConcurrentHashMap<>();

    /** The line of {@code key}, which the caller uses until it calls {@link #leave}. */
    WaiterLine enter(String key) {
        return byKey.compute(key, (k, entry) -> {
                    Entry e = entry == null ? new Entry() : entry;
                    e.users++;
                    return e;
                })
                .line;
    }

    /** The caller of {@link #enter} is done with the line. */
    void leave(String key) {
        byKey.computeIfPresent(key, (k, entry) -> --entry.users == 0 ? null : entry);
    }

    /** The line of {@code key} if anybody is in it: a releasing holder looks for a waiter to hand the lease to. */
    WaiterLine inUse(String key) {
        Entry entry = byKey.get(key);
        return entry == null ? null : entry.line;
    }

    /** Wakes the head of {@code key}'s line, if there is one: the key may be free. */
    void wake(String key) {
        WaiterLine line = inUse(key);
        if (line != null) {
            line.wake();
        }
    }
}
