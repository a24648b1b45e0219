package io.fencepost.lock.internal;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Keys marked within the last {@code window}: a hint that picks the cheaper of two correct ways to do something for a
 * key (for instance, to go straight to the statement that serves waiters when the key was recently found waited for),
 * never a condition of safety. Bounded: past {@code maxKeys} marks the expired ones are dropped, and if that is not
 * enough, all of them, so a flood of keys costs at worst a few wrong guesses.
 */
public final class RecentKeys {

    private final long windowNanos;

    private final int maxKeys;

    private final ConcurrentHashMap<String, Long> marks = new ConcurrentHashMap<>();

    /**
     * @throws IllegalArgumentException for a window that is not positive or a bound below one
     */
    public RecentKeys(Duration window, int maxKeys) {
        Objects.requireNonNull(window, "window");
        if (window.isNegative() || window.isZero() || maxKeys < 1) {
            throw new IllegalArgumentException(
                    "a recent-keys hint needs a positive window and room for a key, was " + window + ", " + maxKeys);
        }
        this.windowNanos = window.toNanos();
        this.maxKeys = maxKeys;
    }

    /**
     * Keys marked within the last second, room for 4096: what both sides of a hand-off use (the store's releases, the
     * engine's waits). A second spans the hand-offs of a busy key, and a key back to quiet soon costs one statement
     * again.
     */
    public static RecentKeys ofLastSecond() {
        return new RecentKeys(Duration.ofSeconds(1), 4096);
    }

    /** Marks {@code key} as of now. */
    public void mark(String key) {
        if (marks.size() >= maxKeys && !marks.containsKey(key)) {
            long now = System.nanoTime();
            marks.values().removeIf(at -> now - at > windowNanos);
            if (marks.size() >= maxKeys) {
                marks.clear();
            }
        }
        marks.put(key, System.nanoTime());
    }

    /** Whether {@code key} was marked within the window. */
    public boolean contains(String key) {
        Long at = marks.get(key);
        if (at == null) {
            return false;
        }
        if (System.nanoTime() - at > windowNanos) {
            marks.remove(key, at);
            return false;
        }
        return true;
    }
}
