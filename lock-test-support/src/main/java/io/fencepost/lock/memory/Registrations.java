package io.fencepost.lock.memory;

import io.fencepost.lock.spi.AcquireRequest;
import io.fencepost.lock.spi.Registration;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The waiter registrations of an {@link InMemoryLeaseStore}, per key in the order they were made: what each waiter
 * would be granted, and until when it lives unless refreshed. Guarded by the store's lock; not thread-safe itself.
 */
final class Registrations {

    /** One registered waiter: its place, and the grant a release would give it. */
    record Waiter(long place, String id, String ownerToken, String holder, Duration leaseTime, Instant expiresAt) {

        boolean liveAt(Instant now) {
            return expiresAt.isAfter(now);
        }
    }

    private final Map<String, TreeMap<Long, Waiter>> byKey = new HashMap<>();

    /** Drops the registrations of {@code key} that lapsed by {@code now}. */
    void clearLapsed(String key, Instant now) {
        TreeMap<Long, Waiter> waiters = byKey.get(key);
        if (waiters != null) {
            waiters.values().removeIf(w -> !w.liveAt(now));
            dropIfEmpty(key, waiters);
        }
    }

    /** The registration named {@code id} on {@code key}. */
    Optional<Waiter> find(String key, String id) {
        TreeMap<Long, Waiter> waiters = byKey.get(key);
        return waiters == null
                ? Optional.empty()
                : waiters.values().stream().filter(w -> w.id().equals(id)).findFirst();
    }

    /**
     * Whether a live registration other than {@code id} waits for {@code key} that is older than {@code id}'s own (any
     * other, when {@code id} is not registered).
     */
    boolean olderWaits(String key, String id, Instant now) {
        TreeMap<Long, Waiter> waiters = byKey.get(key);
        if (waiters == null) {
            return false;
        }
        long own = find(key, id).map(Waiter::place).orElse(Long.MAX_VALUE);
        return waiters.headMap(own, false).values().stream().anyMatch(w -> !w.id().equals(id) && w.liveAt(now));
    }

    /** Registers the waiter at {@code place}, or refreshes its registration for another lifetime. */
    void registerOrRefresh(AcquireRequest request, Registration registration, Instant now, long place) {
        Instant expiresAt = now.plus(registration.ttl());
        Optional<Waiter> existing = find(request.key(), registration.id());
        long at = existing.map(Waiter::place).orElse(place);
        byKey.computeIfAbsent(request.key(), k -> new TreeMap<>())
                .put(
                        at,
                        new Waiter(
                                at,
                                registration.id(),
                                request.ownerToken(),
                                request.holder(),
                                request.leaseTime(),
                                expiresAt));
    }

    /** Removes the registration {@code id} of {@code key}, if there is one. */
    void remove(String key, String id) {
        TreeMap<Long, Waiter> waiters = byKey.get(key);
        if (waiters != null) {
            waiters.values().removeIf(w -> w.id().equals(id));
            dropIfEmpty(key, waiters);
        }
    }

    /** Removes the registrations of {@code key} whose grant would carry {@code ownerToken}. */
    void removeOwner(String key, String ownerToken) {
        TreeMap<Long, Waiter> waiters = byKey.get(key);
        if (waiters != null) {
            waiters.values().removeIf(w -> w.ownerToken().equals(ownerToken));
            dropIfEmpty(key, waiters);
        }
    }

    /**
     * Takes the oldest live registration of {@code key} whose grant would not carry {@code releasingOwner} out of the
     * queue, to be handed the key; lapsed ones are dropped on the way.
     */
    Optional<Waiter> takeOldest(String key, String releasingOwner, Instant now) {
        clearLapsed(key, now);
        TreeMap<Long, Waiter> waiters = byKey.get(key);
        if (waiters == null) {
            return Optional.empty();
        }
        Optional<Waiter> next = waiters.values().stream()
                .filter(w -> !w.ownerToken().equals(releasingOwner))
                .findFirst();
        next.ifPresent(w -> waiters.remove(w.place()));
        dropIfEmpty(key, waiters);
        return next;
    }

    /** How many live registrations wait for {@code key}. */
    int live(String key, Instant now) {
        TreeMap<Long, Waiter> waiters = byKey.get(key);
        return waiters == null
                ? 0
                : (int) waiters.values().stream().filter(w -> w.liveAt(now)).count();
    }

    /** Drops at most {@code max} registrations, of any key, that lapsed by {@code now}; returns how many. */
    int sweepLapsed(Instant now, int max) {
        int removed = 0;
        var keys = byKey.entrySet().iterator();
        while (keys.hasNext() && removed < max) {
            TreeMap<Long, Waiter> waiters = keys.next().getValue();
            var each = waiters.values().iterator();
            while (each.hasNext() && removed < max) {
                if (!each.next().liveAt(now)) {
                    each.remove();
                    removed++;
                }
            }
            if (waiters.isEmpty()) {
                keys.remove();
            }
        }
        return removed;
    }

    private void dropIfEmpty(String key, TreeMap<Long, Waiter> waiters) {
        if (waiters.isEmpty()) {
            byKey.remove(key);
        }
    }
}
