package io.fencepost.lock.benchmarks.clients;

import java.time.Duration;
import java.util.List;

/**
 * One way of taking several keys at once, reduced to what the sets scenario needs. One instance is one client of the
 * store (one application instance); the scenario gives each of its threads a client of its own.
 */
public interface SetClient extends AutoCloseable {

    /**
     * Takes every key of {@code keys}, waiting up to {@code wait}; null when it did not get them all in time (and then
     * holds none of them).
     */
    LockClient.Held acquire(List<String> keys, Duration wait) throws Exception;

    @Override
    void close();
}
