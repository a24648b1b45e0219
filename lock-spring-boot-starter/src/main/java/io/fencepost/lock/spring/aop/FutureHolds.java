package io.fencepost.lock.spring.aop;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The leases that annotated methods returning a future hold until the future completes, by key: a later call on the
 * same thread must not re-enter such a lease (the earlier call's work may still be running elsewhere), so it waits
 * for the release instead.
 */
final class FutureHolds {

    /** A lease held for futures that have not completed: how many, and a signal when the last is released. */
    record Hold(long fencingToken, AtomicInteger futures, CompletableFuture<Void> released) {}

    private final Map<String, Hold> byKey = new ConcurrentHashMap<>();

    /** Whether the lease {@code fencingToken} of {@code key} is held for a pending future; the hold if so. */
    Hold pending(String key, long fencingToken) {
        Hold hold = byKey.get(key);
        return hold != null && hold.fencingToken() == fencingToken ? hold : null;
    }

    /** Counts one more future holding the lease {@code fencingToken} of {@code key}. */
    Hold retain(String key, long fencingToken) {
        Hold[] stale = new Hold[1];
        Hold hold = byKey.compute(key, (k, current) -> {
            if (current != null && current.fencingToken() == fencingToken) {
                current.futures().incrementAndGet();
                return current;
            }
            stale[0] = current; // an earlier lease that is gone: nobody can re-enter it any more
            return new Hold(fencingToken, new AtomicInteger(1), new CompletableFuture<>());
        });
        if (stale[0] != null) {
            stale[0].released().complete(null);
        }
        return hold;
    }

    /** Counts one future less; in the map's lock for the key, so that it cannot race {@link #retain}. */
    void release(String key, Hold hold) {
        boolean[] last = {false};
        byKey.compute(key, (k, current) -> {
            if (hold.futures().decrementAndGet() > 0) {
                return current;
            }
            last[0] = true;
            return current == hold ? null : current;
        });
        if (last[0]) {
            hold.released().complete(null);
        }
    }

    /**
     * Waits up to {@code nanos} for {@code hold} to be released.
     *
     * @return false when the time ran out first
     * @throws InterruptedException when interrupted while waiting
     */
    static boolean awaitRelease(Hold hold, long nanos) throws InterruptedException {
        try {
            hold.released().get(nanos, TimeUnit.NANOSECONDS);
            return true;
        } catch (TimeoutException e) {
            return false;
        } catch (ExecutionException e) {
            return true; // the signal never fails; should it, retrying is still right
        }
    }
}
