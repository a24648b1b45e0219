package io.fencepost.lock.testing;

/**
 * A lease that a {@link TestLocks} manager granted: which instance got which key, with which fencing token.
 *
 * @param holder the holder name of the instance that was granted the lease
 * @param key the key
 * @param fencingToken the grant's fencing token
 */
public record Grant(String holder, String key, long fencingToken) {}
