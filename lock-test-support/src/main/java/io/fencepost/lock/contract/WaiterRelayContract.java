package io.fencepost.lock.contract;

import static io.fencepost.lock.contract.StoreUnderTest.key;
import static io.fencepost.lock.contract.StoreUnderTest.token;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fencepost.lock.LeaseInfo;
import io.fencepost.lock.spi.AcquireRequest;
import io.fencepost.lock.spi.AcquireResult;
import io.fencepost.lock.spi.LeaseStore;
import io.fencepost.lock.spi.Registration;
import io.fencepost.lock.spi.RenewRequest;
import io.fencepost.lock.spi.WaiterRelay;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The contract of {@link WaiterRelay}, for a store that has that ability: a test class that extends
 * {@link LeaseStoreContract} implements this interface too, and its tests run with the others.
 */
public interface WaiterRelayContract extends StoreUnderTest {

    /** How long a test waits for a store's message at most. */
    Duration MESSAGE_WAIT = Duration.ofSeconds(10);

    /**
     * Whether the store's messages reach its waiters in this set-up. Behind a transaction pooler, where PostgreSQL's
     * notifications do not arrive, a test says false: a waiter then learns of a hand-over by its next attempt, which
     * finds the key handed to it, as the engine's fallback does.
     */
    default boolean relaysMessages() {
        return true;
    }

    default WaiterRelay relay() {
        assertThat(store()).as("the store under test").isInstanceOf(WaiterRelay.class);
        return (WaiterRelay) store();
    }

    /** One registered waiter: its registration, its owner token, and what the store told it. */
    final class Waiter implements AutoCloseable {

        final Registration registration;

        final String ownerToken = token();

        final String holder;

        final Duration leaseTime;

        final AtomicReference<AcquireResult.Granted> told = new AtomicReference<>();

        final AtomicReference<Thread> toldOn = new AtomicReference<>();

        private final LeaseStore.Subscription subscription;

        private final WaiterRelay relay;

        private final boolean messages;

        Waiter(
                WaiterRelay relay,
                boolean messages,
                String key,
                String holder,
                Duration leaseTime,
                Duration ttl,
                boolean inTurn) {
            this.registration = new Registration(key, token(), ttl, inTurn);
            this.holder = holder;
            this.leaseTime = leaseTime;
            this.relay = relay;
            this.messages = messages;
            this.subscription = relay.onHandOver(registration, ownerToken, granted -> {
                toldOn.set(Thread.currentThread());
                told.set(granted);
            });
            await().atMost(MESSAGE_WAIT).until(subscription::delivers);
        }

        AcquireRequest request() {
            return new AcquireRequest(registration.key(), ownerToken, holder, leaseTime, true);
        }

        /**
         * The grant the store told this waiter of, once it did; where messages do not arrive, the grant that the
         * waiter's next attempt finds handed to it.
         */
        AcquireResult.Granted awaitTold() {
            if (!messages) {
                AcquireResult found = relay.acquireOrRegister(request(), registration);
                assertThat(found)
                        .as(holder + "'s attempt after the hand-over")
                        .isInstanceOf(AcquireResult.Granted.class);
                told.set((AcquireResult.Granted) found);
                return told.get();
            }
            await().atMost(MESSAGE_WAIT).until(() -> told.get() != null);
            return told.get();
        }

        @Override
        public void close() {
            subscription.close();
        }
    }

    default Waiter waiter(String key, String holder, Duration ttl, boolean inTurn) {
        return new Waiter(relay(), relaysMessages(), key, holder, SHORT.multipliedBy(100), ttl, inTurn);
    }

    default AcquireResult attempt(Waiter waiter) {
        return relay().acquireOrRegister(waiter.request(), waiter.registration);
    }

    /** A registering attempt that must find the key busy (and so registers). */
    default void registerBusy(Waiter waiter) {
        assertThat(attempt(waiter)).as(waiter.holder).isInstanceOf(AcquireResult.Busy.class);
    }

    @Test
    default void aReleaseHandsTheKeyToTheOldestRegistrationWithAHigherTokenAndItsLeaseTime() {
        String key = key();
        String first = token();
        AcquireResult.Granted held = grant(key, first, LONG);
        try (Waiter older = waiter(key, "older", LONG, false);
                Waiter newer = waiter(key, "newer", LONG, false)) {
            registerBusy(older);
            registerBusy(newer);

            assertThat(release(key, first, Duration.ZERO)).isTrue();

            AcquireResult.Granted handed = older.awaitTold();
            if (relaysMessages()) {
                assertThat(older.toldOn.get()).as("told on another thread").isNotSameAs(Thread.currentThread());
            }
            assertThat(handed.fencingToken()).isGreaterThan(held.fencingToken());
            assertThat(Duration.between(handed.acquiredAt(), handed.expiresAt()))
                    .isEqualTo(older.leaseTime);
            LeaseInfo info = store().inspect(key).orElseThrow();
            assertThat(info.holder()).isEqualTo("older");
            assertThat(info.fencingToken()).isEqualTo(handed.fencingToken());
            assertThat(newer.told.get()).isNull();
            assertThat(attempt(older))
                    .as("an attempt of the registration finds the key handed to it")
                    .isEqualTo(handed);

            assertThat(release(key, older.ownerToken, Duration.ZERO)).isTrue();
            AcquireResult.Granted next = newer.awaitTold();
            assertThat(next.fencingToken()).isGreaterThan(handed.fencingToken());
            assertThat(store().inspect(key).orElseThrow().holder()).isEqualTo("newer");
            assertThat(release(key, newer.ownerToken, Duration.ZERO)).isTrue();
            assertThat(grant(key, token(), LONG).fencingToken()).isGreaterThan(next.fencingToken());
        }
    }

    @Test
    default void aHandedOverLeaseIsTheRegisteredOwnersAndTheReleasingClientCannotTakeItBack() {
        String key = key();
        String releasing = token();
        grant(key, releasing, LONG);
        try (Waiter waiter = waiter(key, "waiter", LONG, false)) {
            registerBusy(waiter);

            assertThat(release(key, releasing, Duration.ZERO)).isTrue();
            waiter.awaitTold();

            assertThat(acquire(key, releasing, "again", LONG))
                    .as("the releasing client's owner token")
                    .isInstanceOf(AcquireResult.Busy.class);
            assertThat(acquire(key, token(), "again", LONG))
                    .as("a fresh attempt of anybody")
                    .isInstanceOf(AcquireResult.Busy.class);
            assertThat(renewByKey(new RenewRequest(key, releasing, LONG))).isEmpty();
            assertThat(release(key, releasing, Duration.ZERO)).isFalse();
            assertThat(renewByKey(new RenewRequest(key, waiter.ownerToken, LONG)))
                    .containsKey(key);
            assertThat(release(key, waiter.ownerToken, Duration.ZERO)).isTrue();
            assertThat(store().inspect(key)).isEmpty();
        }
    }

    @Test
    default void aWaiterInTurnDoesNotTakeAFreeKeyPastAnOlderRegistration() {
        String key = key();
        grant(key, token(), LONG);
        try (Waiter older = waiter(key, "older", LONG, true);
                Waiter newer = waiter(key, "newer", LONG, true)) {
            registerBusy(older);
            registerBusy(newer);
            store().forceRelease(key); // frees the key without handing it to anybody

            assertThat(attempt(newer)).as("newer, in turn").isInstanceOf(AcquireResult.Busy.class);
            assertThat(store().inspect(key)).isEmpty();
            assertThat(attempt(older)).as("older, in turn").isInstanceOf(AcquireResult.Granted.class);
            assertThat(store().inspect(key).orElseThrow().holder()).isEqualTo("older");
        }
    }

    @Test
    default void aWaiterNotInTurnTakesAFreeKeyWhoeverIsRegistered() {
        String key = key();
        grant(key, token(), LONG);
        try (Waiter older = waiter(key, "older", LONG, true);
                Waiter barger = waiter(key, "barger", LONG, false)) {
            registerBusy(older);
            store().forceRelease(key);

            assertThat(attempt(barger)).isInstanceOf(AcquireResult.Granted.class);
            assertThat(relay().withdraw(older.registration, older.ownerToken)).isFalse();
        }
    }

    @Test
    default void aWithdrawalTellsWhetherTheKeyWasHandedToTheRegistrationMeanwhile() {
        String key = key();
        String first = token();
        grant(key, first, LONG);
        try (Waiter handed = waiter(key, "handed", LONG, false);
                Waiter gone = waiter(key, "gone", LONG, false)) {
            registerBusy(handed);
            registerBusy(gone);
            release(key, first, Duration.ZERO);
            handed.awaitTold();

            assertThat(relay().withdraw(handed.registration, handed.ownerToken))
                    .as("withdrawn after the hand-over")
                    .isTrue();
            assertThat(relay().withdraw(gone.registration, gone.ownerToken))
                    .as("withdrawn while waiting")
                    .isFalse();
            assertThat(release(key, handed.ownerToken, Duration.ZERO)).isTrue();
            assertThat(store().inspect(key))
                    .as("a withdrawn registration is not served")
                    .isEmpty();
            assertThat(gone.told.get()).isNull();
        }
    }

    @Test
    default void aLapsedRegistrationIsSkippedAndARefreshedOneIsServed() {
        String key = key();
        String first = token();
        grant(key, first, LONG);
        try (Waiter dead = waiter(key, "dead", SHORT, false);
                Waiter live = waiter(key, "live", SHORT, false)) {
            registerBusy(dead);
            registerBusy(live);
            // The live waiter's attempts refresh its registration; the dead one's lapses.
            await().pollInterval(Duration.ofMillis(50))
                    .during(SHORT.multipliedBy(2))
                    .atMost(Duration.ofSeconds(5))
                    .until(() -> attempt(live) instanceof AcquireResult.Busy);
            attempt(live);

            assertThat(release(key, first, Duration.ZERO)).isTrue();

            assertThat(live.awaitTold().fencingToken()).isPositive();
            assertThat(store().inspect(key).orElseThrow().holder()).isEqualTo("live");
            assertThat(dead.told.get()).isNull();
            assertThat(relay().withdraw(dead.registration, dead.ownerToken)).isFalse();
        }
    }

    @Test
    default void aRegistrationLapsesUnlessRefreshed() {
        String key = key();
        String first = token();
        grant(key, first, LONG);
        try (Waiter dead = waiter(key, "dead", SHORT, false)) {
            registerBusy(dead);
            await().pollDelay(SHORT.multipliedBy(2))
                    .atMost(Duration.ofSeconds(5))
                    .until(() -> true);

            assertThat(release(key, first, Duration.ZERO)).isTrue();

            assertThat(store().inspect(key))
                    .as("nobody live to hand the key to")
                    .isEmpty();
            assertThat(dead.told.get()).isNull();
        }
    }
}
