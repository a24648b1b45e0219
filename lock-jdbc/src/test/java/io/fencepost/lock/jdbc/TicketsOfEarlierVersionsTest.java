package io.fencepost.lock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import io.fencepost.lock.spi.AcquireRequest;
import io.fencepost.lock.spi.AcquireResult;
import io.fencepost.lock.spi.LeaseStore;
import io.fencepost.lock.spi.Registration;
import io.fencepost.lock.spi.ReleaseRequest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A rolling upgrade: the queue table may still hold the fair-mode tickets of an instance from before registrations
 * (rows without an owner token, written as that version did). A release never hands the key to one, and a fair
 * waiter of this version does not take a free key past an older one.
 */
class TicketsOfEarlierVersionsTest {

    @RegisterExtension
    static final PostgresTestDatabase db = new PostgresTestDatabase();

    private static final Duration LONG = Duration.ofMinutes(5);

    private PostgresLeaseStore store;

    @BeforeAll
    static void createSchema() {
        new SchemaInitializer(db.dataSource(), "distributed_lock").create();
    }

    @BeforeEach
    void openStore() {
        store = new PostgresLeaseStore(db.dataSource(), "distributed_lock", Duration.ofSeconds(10));
    }

    @AfterEach
    void closeStore() {
        store.close();
    }

    @Test
    void aReleaseHandsTheKeyPastAnOldTicketToARegistrationAndATicketIsNeverGranted() throws SQLException {
        String key = "tickets:" + UUID.randomUUID();
        String first = owner();
        grant(key, first, "first");
        oldTicket(key);
        String registered = owner();
        Registration registration = new Registration(key, owner(), LONG, false);
        AtomicReference<AcquireResult.Granted> told = new AtomicReference<>();
        LeaseStore.Subscription messages = store.onHandOver(registration, registered, told::set);
        await().atMost(Duration.ofSeconds(10)).until(messages::delivers);
        assertThat(store.acquireOrRegister(new AcquireRequest(key, registered, "registered", LONG, true), registration))
                .isInstanceOf(AcquireResult.Busy.class);

        assertThat(store.release(new ReleaseRequest(key, first, Duration.ZERO))).isTrue();

        await().atMost(Duration.ofSeconds(10)).until(() -> told.get() != null);
        assertThat(store.inspect(key).orElseThrow().holder()).isEqualTo("registered");
        assertThat(store.release(new ReleaseRequest(key, registered, Duration.ZERO)))
                .isTrue();
        assertThat(store.inspect(key)).as("the old ticket was handed nothing").isEmpty();
        messages.close();
    }

    @Test
    void aFairWaiterDoesNotTakeAFreeKeyPastAnOlderTicket() throws SQLException {
        String key = "tickets:" + UUID.randomUUID();
        oldTicket(key);

        assertThat(store.acquireOrRegister(
                        new AcquireRequest(key, owner(), "fair", LONG, true),
                        new Registration(key, owner(), LONG, true)))
                .isInstanceOf(AcquireResult.Busy.class);
        assertThat(store.inspect(key)).isEmpty();
        assertThat(store.acquireOrRegister(
                        new AcquireRequest(key, owner(), "not fair", LONG, true),
                        new Registration(key, owner(), LONG, false)))
                .isInstanceOf(AcquireResult.Granted.class);
    }

    private void grant(String key, String owner, String holder) {
        assertThat(store.acquire(new AcquireRequest(key, owner, holder, LONG, false)))
                .isInstanceOf(AcquireResult.Granted.class);
    }

    /** A ticket as the earlier versions' enqueue statement wrote it: a place, a waiter id, a lifetime, no grant. */
    private static void oldTicket(String key) throws SQLException {
        try (Connection connection = db.dataSource().getConnection();
                PreparedStatement insert = connection.prepareStatement("""
                        INSERT INTO distributed_lock_queue (lock_key, ticket, waiter, expires_at)
                        SELECT ?, nextval('distributed_lock_fence_seq'), ?::uuid,
                               clock_timestamp() + interval '5 minutes'
                        """)) {
            insert.setString(1, key);
            insert.setObject(2, UUID.randomUUID());
            insert.executeUpdate();
        }
    }

    private static String owner() {
        return UUID.randomUUID().toString();
    }
}
