package io.fencepost.lock.spi;

import io.fencepost.lock.LeaseMode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What every store can hold, checked in one place for the engine and for stores alike: keys of at most
 * {@value #MAX_KEY_LENGTH} characters (Unicode code points) of valid text without NUL, and holder names of at most
 * {@value #MAX_HOLDER_LENGTH} characters.
 */
public final class StoreLimits {

    /** Longest key, in characters (Unicode code points). */
    public static final int MAX_KEY_LENGTH = 255;

    /** Longest holder name, in characters (Unicode code points); longer names are cut. */
    public static final int MAX_HOLDER_LENGTH = 255;

    /**
     * Most keys in one set taken together ({@code LockManager.acquireAll}): enough for any transfer or batch that locks
     * its rows together, few enough that one statement takes them quickly and that a set does not lock out half the
     * keys of an application.
     */
    public static final int MAX_KEYS_PER_SET = 64;

    /**
     * How long a waiting exclusive request keeps new shared leases of its key from being granted, from its latest
     * attempt: long enough to outlast the gaps between a waiter's attempts, short enough that a waiter that gave up
     * stops holding readers back soon.
     */
    public static final Duration EXCLUSIVE_PRECEDENCE = Duration.ofSeconds(5);

    private StoreLimits() {}

    /**
     * Returns {@code key} when a store can hold it.
     *
     * @throws IllegalArgumentException naming what is wrong with the key and what to do
     */
    public static String requireValidKey(String key) {
        if (key == null) {
            throw new IllegalArgumentException("lock key must not be null");
        }
        if (key.isBlank()) {
            throw new IllegalArgumentException("lock key must not be blank, was '" + key + "'");
        }
        int length = key.codePointCount(0, key.length());
        if (length > MAX_KEY_LENGTH) {
            throw new IllegalArgumentException("lock key must be at most " + MAX_KEY_LENGTH + " characters, was "
                    + length + " characters ('" + key.substring(0, key.offsetByCodePoints(0, 40))
                    + "...'): lock a narrower resource, or hash the key");
        }
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (c == '\0') {
                throw new IllegalArgumentException("lock key must not contain the NUL character (at index " + i
                        + "), was '" + key.replace('\0', '?') + "'");
            }
            if (Character.isHighSurrogate(c)) {
                if (i + 1 < key.length() && Character.isLowSurrogate(key.charAt(i + 1))) {
                    i++;
                    continue;
                }
                throw unpaired(i);
            }
            if (Character.isLowSurrogate(c)) {
                throw unpaired(i);
            }
        }
        return key;
    }

    /**
     * Returns {@code keys} as a list in their given order, when they can be taken together: at least one, at most
     * {@value #MAX_KEYS_PER_SET}, each a valid key, none repeated.
     *
     * @throws IllegalArgumentException naming what is wrong with the set and what to do
     */
    public static List<String> requireValidKeySet(Collection<String> keys) {
        if (keys == null) {
            throw new IllegalArgumentException("the set of lock keys must not be null: pass the keys to take together");
        }
        if (keys.isEmpty()) {
            throw new IllegalArgumentException("the set of lock keys must not be empty: pass at least one key");
        }
        if (keys.size() > MAX_KEYS_PER_SET) {
            throw new IllegalArgumentException("a set of lock keys may have at most " + MAX_KEYS_PER_SET + " keys, was "
                    + keys.size() + ": lock a coarser resource, or take the keys in several sets");
        }
        List<String> ordered = new ArrayList<>(keys.size());
        Set<String> seen = new HashSet<>();
        for (String key : keys) {
            if (key == null) {
                throw new IllegalArgumentException("lock key number " + (ordered.size() + 1)
                        + " of the set is null: every key of a set must be a valid key");
            }
            requireValidKey(key);
            if (!seen.add(key)) {
                throw new IllegalArgumentException(
                        "lock key '" + key + "' appears more than once in the set: pass each key once");
            }
            ordered.add(key);
        }
        return List.copyOf(ordered);
    }

    /**
     * The holder name as a store keeps it: informational only, so a name that is too long is cut rather than failing
     * a grant over it.
     *
     * @throws IllegalArgumentException for a null or blank name
     */
    public static String fitHolder(String holder) {
        if (holder == null || holder.isBlank()) {
            throw new IllegalArgumentException("holder name must not be blank, was '" + holder + "'");
        }
        if (holder.codePointCount(0, holder.length()) <= MAX_HOLDER_LENGTH) {
            return holder;
        }
        return holder.substring(0, holder.offsetByCodePoints(0, MAX_HOLDER_LENGTH));
    }

    private static IllegalArgumentException unpaired(int index) {
        // An unpaired surrogate cannot be encoded; two different keys would reach the store as the same text.
        return new IllegalArgumentException("lock key has an unpaired UTF-16 surrogate at index " + index
                + ", so it is not valid Unicode text: build the key from valid strings");
    }

    /**
     * Callers of one counted key must agree on its number of permits (an exclusive lease counts as 1): a
     * disagreement is a mistake in the application, never a grant. Shared leases carry no count.
     *
     * @param heldMode the kind of the key's live leases
     * @param heldPermits their number of permits
     * @throws IllegalStateException naming both numbers when they differ
     */
    public static void requirePermitAgreement(AcquireRequest request, LeaseMode heldMode, int heldPermits) {
        boolean counted = request.mode() != LeaseMode.SHARED && heldMode != LeaseMode.SHARED;
        if (counted && request.permits() != heldPermits) {
            throw new IllegalStateException("lock '" + request.key() + "' is held with " + heldPermits + " permit"
                    + (heldPermits == 1 ? "" : "s")
                    + ", but this call asks for " + request.permits()
                    + ": every caller of a key must use the same number of permits");
        }
    }
}
