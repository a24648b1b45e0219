package io.fencepost.lock.jdbc;

import java.time.Clock;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * What the calls to the database last saw of it: it answered, or it could not be reached (no connection in time, no
 * answer in time, a broken connection), since when and why. The lock statements of a store and its health probes
 * tell it, so that the health can answer at once from it instead of waiting on a database that is gone.
 */
final class Reachability {

    /** Since when the database could not be reached, and the latest reason, without any key or owner token. */
    record Outage(Instant since, String reason) {}

    private final Clock clock;

    /** Null while the last call got an answer. */
    private final AtomicReference<Outage> outage = new AtomicReference<>();

    Reachability() {
        this(Clock.systemUTC());
    }

    Reachability(Clock clock) {
        this.clock = clock;
    }

    /** A call got an answer from the database, whatever the answer was. */
    void answered() {
        if (outage.get() != null) {
            outage.set(null);
        }
    }

    /** A call could not reach the database, for {@code reason}. */
    void unreachable(String reason) {
        outage.updateAndGet(earlier -> new Outage(earlier == null ? clock.instant() : earlier.since(), reason));
    }

    /** The outage the last call saw, when it could not reach the database. */
    Optional<Outage> outage() {
        return Optional.ofNullable(outage.get());
    }
}
