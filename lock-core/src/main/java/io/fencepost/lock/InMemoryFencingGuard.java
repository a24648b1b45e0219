package io.fencepost.lock;

import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Fencing for a resource that lives in this JVM (a cache, a file, a client of a remote API): remembers, per
 * resource, the highest fencing token accepted, and refuses writes that carry a lower one.
 *
 * <p>Call {@link #check} right before the write, inside the same critical section of the resource, so that the
 * check and the write cannot be separated by another writer.
 */
public final class InMemoryFencingGuard {

    private final Map<String, Long> highest = new ConcurrentHashMap<>();

    /**
     * Accepts {@code token} for {@code resource} if it is at least the highest accepted so far, and records it.
     * Equal tokens pass: one holder may write many times.
     *
     * @throws FencingTokenRejectedException when a higher token was already accepted
     */
    public void check(String resource, long token) {
        Objects.requireNonNull(resource, "resource");
        long[] rejectedBy = {Long.MIN_VALUE};
        highest.compute(resource, (r, current) -> {
            if (current != null && current > token) {
                rejectedBy[0] = current;
                return current;
            }
            return token;
        });
        if (rejectedBy[0] != Long.MIN_VALUE) {
            throw new FencingTokenRejectedException(resource, token, rejectedBy[0]);
        }
    }

    /** Same as {@link #check(String, long)} with the lease's fencing token. */
    public void check(String resource, Lease lease) {
        check(resource, lease.fencingToken());
    }

    /** The highest token accepted for {@code resource}, if any. */
    public OptionalLong highestAccepted(String resource) {
        Long token = highest.get(resource);
        return token == null ? OptionalLong.empty() : OptionalLong.of(token);
    }
}
