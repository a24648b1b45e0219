package io.fencepost.lock.jdbc;

import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A store's mark on the ids of its waiters' registrations, naming the channel on which a release tells them that they
 * hold the key: the top 16 bits of every registration id it writes, so that the release statement finds the channel
 * in the registration it serves ({@link WaiterRelayStatements#WAITER_CHANNEL}) and only this store's listener is
 * woken, not every listener on the lock table. Two stores that draw the same tag only hear each other's messages,
 * which a waiter checks against its owner token anyway; the rest of a registration id stays random.
 *
 * @param bits the tag, 0 to 65535
 */
record WaiterTag(int bits) {

    WaiterTag {
        if (bits < 0 || bits > 0xFFFF) {
            throw new IllegalArgumentException("a waiter tag has 16 bits, was " + bits);
        }
    }

    static WaiterTag random() {
        return new WaiterTag(ThreadLocalRandom.current().nextInt(0x10000));
    }

    /** The tag as the first 4 hex digits of a registration id print it. */
    String hex() {
        return String.format("%04x", bits);
    }

    /** {@code registrationId} with its top 16 bits replaced by the tag. */
    UUID mark(String registrationId) {
        UUID id = UUID.fromString(registrationId);
        long high = (id.getMostSignificantBits() & 0x0000_FFFF_FFFF_FFFFL) | ((long) bits << 48);
        return new UUID(high, id.getLeastSignificantBits());
    }
}
