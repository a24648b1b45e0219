package io.fencepost.lock.spring.test;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** Waits, in code a test runs on another thread, for the test's go-ahead. */
public final class Latches {

    private Latches() {}

    /**
     * Waits up to 20 seconds for the test to open {@code goAhead}; fails with {@code neverOpened} (what the test did
     * not do) when it does not, and on an interrupt.
     */
    public static void awaitGoAhead(CountDownLatch goAhead, String neverOpened) {
        try {
            if (!goAhead.await(20, TimeUnit.SECONDS)) {
                throw new IllegalStateException(neverOpened);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
