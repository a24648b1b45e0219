package io.fencepost.lock;

/** What {@link DistributedLock} does when the key stays held for the whole wait time. */
public enum OnLocked {
    /** Throw {@link LockNotAcquiredException}. */
    THROW,
    /** Do not run the method; return {@code null}, {@code Optional.empty()} or a primitive's zero. */
    SKIP
}
