package io.fencepost.lock.benchmarks.clients;

import java.time.Duration;

/**
 * One lock library, reduced to what the scenarios need: a blocking acquire with a bound, one attempt, and a
 * release. One instance is one client of the store (one application instance); its threads share it.
 */
public interface LockClient extends AutoCloseable {

    /** Takes {@code key}, waiting up to {@code wait} as the library does; null when it did not get it in time. */
    Held acquire(String key, Duration wait) throws Exception;

    /** One attempt without waiting; null when the key is taken. */
    Held tryAcquire(String key) throws Exception;

    @Override
    void close();

    /** A held lock. */
    @FunctionalInterface
    interface Held {

        void release() throws Exception;
    }
}
