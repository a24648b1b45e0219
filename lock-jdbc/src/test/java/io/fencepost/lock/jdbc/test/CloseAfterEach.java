package io.fencepost.lock.jdbc.test;

import java.util.ArrayDeque;
import java.util.Deque;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Closes what a test registered, newest first, after each test: lock managers, pools, proxies, processes.
 * Register it with {@code @RegisterExtension final CloseAfterEach closer = new CloseAfterEach();}.
 */
public final class CloseAfterEach implements AfterEachCallback {

    private final Deque<AutoCloseable> closeables = new ArrayDeque<>();

    /** Closes {@code closeable} after the current test; returns it. */
    public <T extends AutoCloseable> T add(T closeable) {
        closeables.push(closeable);
        return closeable;
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        Exception failure = null;
        while (!closeables.isEmpty()) {
            try {
                closeables.pop().close();
            } catch (Exception e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
