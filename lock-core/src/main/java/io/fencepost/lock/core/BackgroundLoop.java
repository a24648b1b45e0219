package io.fencepost.lock.core;

import java.lang.System.Logger.Level;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * A daemon thread that does a piece of work and sleeps until the time the work asks for, or earlier when woken; it
 * survives failures of the work and stops on {@link #close()}.
 */
final class BackgroundLoop implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(BackgroundLoop.class.getName());

    /** After a failure of the work, try again this soon. */
    private static final long RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

    private final Sleeper sleeper = new Sleeper();

    private final Thread thread;

    private volatile boolean running = true;

    /** Starts {@code work}, which returns when ({@link System#nanoTime()}) it wants to run next. */
    BackgroundLoop(String name, LongSupplier work) {
        this.thread = new Thread(() -> loop(work), name);
        thread.setDaemon(true);
        thread.start();
    }

    /** Makes sure the work runs again no later than {@code nanos}. */
    void wakeIfLaterThan(long nanos) {
        sleeper.wakeIfLaterThan(nanos);
    }

    private void loop(LongSupplier work) {
        while (running) {
            try {
                sleeper.sleepUntil(work.getAsLong());
            } catch (InterruptedException e) {
                if (!running) {
                    return;
                }
            } catch (RuntimeException | Error e) {
                LOG.log(Level.ERROR, "fencepost background thread " + thread.getName() + " failed; retrying", e);
                try {
                    sleeper.sleepUntil(System.nanoTime() + RETRY_NANOS);
                } catch (InterruptedException interrupted) {
                    return;
                }
            }
        }
    }

    @Override
    public void close() {
        running = false;
        thread.interrupt();
        try {
            thread.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
