package io.fencepost.lock.jdbc;

import io.fencepost.lock.spi.AcquireRequest;
import io.fencepost.lock.spi.AcquireResult;
import io.fencepost.lock.spi.LeaseStore;
import io.fencepost.lock.spi.Registration;
import io.fencepost.lock.spi.StoreLimits;
import io.fencepost.lock.spi.WaiterRelay;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HexFormat;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Waiter registrations on PostgreSQL: rows of the queue table that carry what their waiter would be granted, served
 * oldest first by the release statement ({@link PostgresStatements#RELEASE}), which then tells the waiter by a NOTIFY
 * on this store's own channel: the registration ids it writes carry its {@link WaiterTag}. The message is checked
 * against the waiter's owner token before it is believed, so that a stray or forged message cannot make a waiter think
 * it holds a lease.
 */
final class PostgresWaiterRelay implements WaiterRelay {

    private final StatementRunner runner;

    /** Where a waiter at the head of a key's queue runs its attempts. */
    private final PostgresLockQueue queue;

    private final PostgresStatements statements;

    private final NotificationListener listener;

    private final WaiterTag tag;

    /** A relay whose registrations carry {@code tag}, the tag of {@code listener}'s own channel. */
    PostgresWaiterRelay(
            StatementRunner runner,
            PostgresLockQueue queue,
            PostgresStatements statements,
            NotificationListener listener,
            WaiterTag tag) {
        this.runner = runner;
        this.queue = queue;
        this.statements = statements;
        this.listener = listener;
        this.tag = tag;
    }

    @Override
    public AcquireResult acquireOrRegister(AcquireRequest request, Registration registration) {
        return PostgresLeaseStore.acquire(
                runner,
                queue,
                statements.acquireOrRegister,
                request,
                Map.of(
                        "registration", tag.mark(registration.id()),
                        "in_turn", registration.inTurn(),
                        "ttl_ms", StatementRunner.millis(registration.ttl(), "registration lifetime", request.key()),
                        "precedence_ms", StoreLimits.EXCLUSIVE_PRECEDENCE.toMillis()));
    }

    @Override
    public LeaseStore.Subscription onHandOver(
            Registration registration, String ownerToken, Consumer<AcquireResult.Granted> handedOver) {
        String owner = OwnerTokens.toUuid(ownerToken).toString();
        return listener.onHandOver(tag.mark(registration.id()).toString(), message -> {
            AcquireResult.Granted granted = parse(message, owner);
            if (granted != null) {
                handedOver.accept(granted);
            }
        });
    }

    @Override
    public boolean withdraw(Registration registration, String ownerToken) {
        return runner.run(
                "withdraw from the waiters of lock '" + registration.key() + "'",
                StoreFailures.secretsOf(ownerToken),
                statements.withdraw,
                Map.of(
                        "key", registration.key(),
                        "registration", tag.mark(registration.id()),
                        "owner", OwnerTokens.toUuid(ownerToken)),
                rows -> rows.next() && rows.getBoolean("handed"));
    }

    /**
     * Reads {@code fencingToken:acquiredMicros:expiresMicros:check}; null unless the check matches the one computed
     * from our owner token (as PostgreSQL prints a uuid) and the fencing token.
     */
    static AcquireResult.Granted parse(String message, String owner) {
        String[] parts = message.split(":", -1);
        if (parts.length != 4) {
            return null;
        }
        try {
            long fencingToken = Long.parseLong(parts[0]);
            if (!check(owner, fencingToken).equals(parts[3])) {
                return null;
            }
            return new AcquireResult.Granted(fencingToken, micros(parts[1]), micros(parts[2]));
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** The first 16 hex digits of SHA-256 of {@code owner:fencingToken}, as the release statement computes them. */
    static String check(String owner, long fencingToken) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256")
                    .digest((owner + ":" + fencingToken).getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every Java platform", e);
        }
    }

    private static Instant micros(String text) {
        return Instant.EPOCH.plus(Long.parseLong(text), ChronoUnit.MICROS);
    }
}
