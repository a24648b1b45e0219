package io.fencepost.lock.spring.aop;

import io.fencepost.lock.Lease;
import io.fencepost.lock.LeaseLostException;
import io.fencepost.lock.internal.LogSafe;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Interrupts the thread running a method whose lease is lost, only while the method still runs: the flag is
 * cleared under the same lock before the lease is released, so a late loss never interrupts whatever the thread
 * does next. (A plain lock, not {@code synchronized}: the callback runs on the renewal thread.)
 */
final class LossInterrupt implements Consumer<LeaseLostException> {

    private static final Log logger = LogFactory.getLog(LossInterrupt.class);

    private final Thread thread = Thread.currentThread();

    private final String method;

    private final ReentrantLock lock = new ReentrantLock();

    private boolean running = true;

    private LossInterrupt(String method) {
        this.method = method;
    }

    static LossInterrupt register(Lease lease, String method) {
        return register(List.of(lease), method);
    }

    /** Interrupts the thread when any of {@code leases} (a set taken together) is lost. */
    static LossInterrupt register(List<Lease> leases, String method) {
        LossInterrupt interrupt = new LossInterrupt(method);
        leases.forEach(lease -> lease.onLost(interrupt));
        return interrupt;
    }

    @Override
    public void accept(LeaseLostException lost) {
        lock.lock();
        try {
            if (running) {
                logger.info("Interrupting thread '" + thread.getName() + "' running " + method + ": "
                        + LogSafe.text(lost.getMessage()));
                thread.interrupt();
            }
        } finally {
            lock.unlock();
        }
    }

    void methodEnded() {
        lock.lock();
        try {
            running = false;
        } finally {
            lock.unlock();
        }
    }
}
