package io.fencepost.lock.shedlock;

import io.fencepost.lock.Lease;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;

/**
 * The leases of the ShedLock locks each thread took and has not unlocked, innermost first. ShedLock locks and unlocks
 * on the thread that runs the task, so a thread-local stack follows the task.
 */
final class CurrentLeases {

    private static final ThreadLocal<Deque<Lease>> LEASES = new ThreadLocal<>();

    private CurrentLeases() {}

    static void push(Lease lease) {
        Deque<Lease> leases = LEASES.get();
        if (leases == null) {
            leases = new ArrayDeque<>();
            LEASES.set(leases);
        }
        leases.push(lease);
    }

    /** Forgets {@code lease} on this thread, wherever it is in the stack. */
    static void remove(Lease lease) {
        Deque<Lease> leases = LEASES.get();
        if (leases != null && leases.removeFirstOccurrence(lease) && leases.isEmpty()) {
            LEASES.remove();
        }
    }

    static Optional<Lease> innermost() {
        Deque<Lease> leases = LEASES.get();
        return leases == null ? Optional.empty() : Optional.of(leases.peekFirst());
    }

    static Optional<Lease> named(String name) {
        Deque<Lease> leases = LEASES.get();
        return leases == null
                ? Optional.empty()
                : leases.stream().filter(lease -> lease.key().equals(name)).findFirst();
    }
}
