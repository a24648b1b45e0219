package io.fencepost.lock.benchmarks.scenarios;

import io.fencepost.lock.benchmarks.clients.LockClient;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A key held by another client on its own thread (several libraries tie a lock to the thread that took it) until
 * closed.
 */
final class HeldElsewhere implements AutoCloseable {

    private final CountDownLatch done = new CountDownLatch(1);

    private final CompletableFuture<Void> acquired = new CompletableFuture<>();

    private final Thread thread;

    private final String key;

    HeldElsewhere(LockClient holder, String key) throws Exception {
        this.key = key;
        this.thread = new Thread(
                () -> {
                    LockClient.Held held;
                    try {
                        held = holder.acquire(key, Duration.ofSeconds(10));
                        if (held == null) {
                            throw new IllegalStateException("the holder could not take '" + key + "'");
                        }
                        acquired.complete(null);
                    } catch (Exception e) {
                        acquired.completeExceptionally(e);
                        return;
                    }
                    try {
                        done.await();
                        held.release();
                    } catch (Exception e) {
                        System.err.println("releasing '" + key + "' failed: " + e);
                    }
                },
                "holder-" + key);
        thread.setDaemon(true);
        thread.start();
        acquired.get(15, TimeUnit.SECONDS);
    }

    /** The key held. */
    String key() {
        return key;
    }

    /** Lets the holder release; an interrupt while waiting for that ends the wait and is kept for the caller. */
    @Override
    public void close() {
        done.countDown();
        try {
            thread.join(TimeUnit.SECONDS.toMillis(15));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
