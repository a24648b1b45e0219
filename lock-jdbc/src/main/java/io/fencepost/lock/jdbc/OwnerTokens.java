package io.fencepost.lock.jdbc;

import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.UUID;
import java.util.regex.Pattern;

/** Maps the engine's owner tokens onto the table's {@code uuid} column. */
final class OwnerTokens {

    private static final Pattern CANONICAL_UUID =
            Pattern.compile("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");

    private OwnerTokens() {}

    /**
     * The token itself when it is a UUID (as the engine's are); any other string maps to a name-based UUID of
     * it, so that a token the column cannot parse never makes the database echo it back in an error.
     */
    static UUID toUuid(String ownerToken) {
        if (CANONICAL_UUID.matcher(ownerToken).matches()) {
            return UUID.fromString(ownerToken.toLowerCase(Locale.ROOT));
        }
        return UUID.nameUUIDFromBytes(ownerToken.getBytes(StandardCharsets.UTF_8));
    }
}
