package io.fencepost.lock.spi;

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
}
