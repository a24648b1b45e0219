package io.fencepost.sample.lab;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * Everything the lab page shows, in one answer.
 *
 * @param running whether the workers run
 * @param fencing whether the resource checks fencing tokens
 * @param fencingMode how the resource is protected: column, transaction or off
 * @param storeDown whether the lock store is cut off
 * @param pausePending whether "pause the holder" waits for the next holder
 * @param instance this instance's name
 * @param key the key the workers contend for
 * @param holder the lock store's view of the key, or null when it is free
 * @param workers one entry per worker
 * @param counters what happened since the last reset
 * @param resource the protected counter
 * @param grants the latest grants, newest first, with what became of each
 * @param pinned rejections, violations and the writes over stale ones, newest first, kept until reset
 * @param results each experiment's latest result, by experiment id, kept until reset
 * @param stepRunning the id of the walk-through step running now, or null
 * @param events log entries newer than the {@code since} the page asked for, oldest first
 * @param settings the lab's timings
 */
public record LabState(
        boolean running,
        boolean fencing,
        String fencingMode,
        boolean storeDown,
        boolean pausePending,
        String instance,
        String key,
        Holder holder,
        List<Worker> workers,
        Counters counters,
        Resource resource,
        List<Grant> grants,
        List<Event> pinned,
        Map<String, Result> results,
        String stepRunning,
        List<Event> events,
        Settings settings) {

    /**
     * The live lease on the key as the store sees it; {@code told} is false while the store has granted it but its
     * worker has not yet heard (the grant then is not in the table yet).
     */
    public record Holder(String holder, String worker, long fencingToken, long expiresInMillis, boolean told) {}

    /** One worker, with its state: idle, waiting, holding, frozen, writing or store-error. */
    public record Worker(String name, String state, Long fencingToken, String detail) {}

    /**
     * @param violations writes the resource accepted although a newer holder had written since the writer read:
     *     lost updates, the visible effect of two holders at once
     */
    public record Counters(
            long grants,
            long writesAccepted,
            long writesRejected,
            long violations,
            long storeErrors,
            long leasesLost) {}

    /**
     * The counter row. {@code acceptedWrites} is its version (every accepted write bumps it; reset zeroes it) and
     * {@code lostUpdates} the accepted increments the counter does not show: both from the row itself.
     */
    public record Resource(
            long value,
            long version,
            long fence,
            String lastWriter,
            Long lastToken,
            long acceptedWrites,
            long lostUpdates) {}

    /** One grant: its token, its worker, and its outcome (working, accepted, rejected or violation). */
    public record Grant(long fencingToken, String worker, Instant grantedAt, String outcome) {}

    /**
     * An experiment's outcome.
     *
     * @param experiment its id: race, dead-holder, stale-release, renewal, outage
     * @param asPromised whether the lock kept its promise (false: a violation or a double grant was seen)
     * @param text what happened, from the store's and the clients' records
     */
    public record Result(String experiment, boolean asPromised, String text, Instant at) {}

    /** One log entry; {@code kind} drives the page's colouring. */
    public record Event(long seq, Instant at, String worker, String kind, String text) {}

    /** The timings, in milliseconds. */
    public record Settings(long leaseMillis, long workMillis, long pauseMillis, long outageMillis) {}
}
