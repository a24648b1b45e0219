package io.fencepost.lock.core;

/** Checks keys before anything touches the store (API clause 9). */
final class KeyValidation {

    /** Longest key, in characters (Unicode code points), that every store accepts. */
    static final int MAX_KEY_LENGTH = 255;

    private KeyValidation() {}

    static String requireValidKey(String key) {
        if (key == null) {
            throw new IllegalArgumentException("lock key must not be null");
        }
        if (key.isBlank()) {
            throw new IllegalArgumentException("lock key must not be blank, was '" + key + "'");
        }
        int length = key.codePointCount(0, key.length());
        if (length > MAX_KEY_LENGTH) {
            throw new IllegalArgumentException("lock key must be at most " + MAX_KEY_LENGTH + " characters, was "
                    + length + " ('" + key.substring(0, 40) + "...'): lock a narrower resource, or hash the key");
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
                throw unpaired(key, i);
            }
            if (Character.isLowSurrogate(c)) {
                throw unpaired(key, i);
            }
        }
        return key;
    }

    private static IllegalArgumentException unpaired(String key, int index) {
        // An unpaired surrogate cannot be encoded; two different keys would reach the store as the same text.
        return new IllegalArgumentException("lock key has an unpaired UTF-16 surrogate at index " + index
                + ", so it is not valid Unicode text: build the key from valid strings");
    }
}
