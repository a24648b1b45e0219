package io.fencepost.lock.internal;

import java.lang.System.Logger.Level;
import java.text.MessageFormat;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Logs a store outage as two lines, however many failures it brings: the first failure at WARNING with its cause, and
 * the first success after it at INFO with how long the outage lasted. Every failure, with its stack trace, goes to
 * DEBUG. For the background work of engines and stores (renewal, a notification listener), which retries on its own.
 */
public final class OutageLog {

    private static final long UP = Long.MIN_VALUE;

    private final System.Logger log;

    private final String downMessage;

    private final String backMessage;

    private final Object[] subject;

    private final AtomicLong downSinceNanos = new AtomicLong(UP);

    /**
     * @param downMessage the line for the first failure, {@link java.text.MessageFormat} style, {@code {0}} being the
     *     cause
     * @param backMessage the line for the first success after failures, {@code {0}} being the outage's length as
     *     people write it
     * @param subject what both lines may also name, as {@code {1}}, {@code {2}}, ... (such as a group's name)
     */
    public OutageLog(System.Logger log, String downMessage, String backMessage, Object... subject) {
        this.log = log;
        this.downMessage = downMessage;
        this.backMessage = backMessage;
        this.subject = subject.clone();
    }

    /** The work failed: the first failure of an outage is logged at WARNING. */
    public void failed(Throwable cause) {
        if (downSinceNanos.compareAndSet(UP, System.nanoTime())) {
            log.log(Level.WARNING, downMessage, params(LogSafe.text(String.valueOf(cause))));
        }
        if (log.isLoggable(Level.DEBUG)) {
            // Rendered here: a message with a throwable is not formatted again, and must not show its placeholders.
            log.log(Level.DEBUG, MessageFormat.format(downMessage, params(LogSafe.text(String.valueOf(cause)))), cause);
        }
    }

    /** The work succeeded: after an outage, says that it ended and how long it lasted. */
    public void succeeded() {
        long since = downSinceNanos.getAndSet(UP);
        if (since != UP) {
            log.log(Level.INFO, backMessage, params(Durations.readable(Duration.ofNanos(System.nanoTime() - since))));
        }
    }

    private Object[] params(String first) {
        Object[] params = new Object[subject.length + 1];
        params[0] = first;
        System.arraycopy(subject, 0, params, 1, subject.length);
        return params;
    }

    /** Whether the last outcome was a failure. */
    public boolean isDown() {
        return downSinceNanos.get() != UP;
    }
}
