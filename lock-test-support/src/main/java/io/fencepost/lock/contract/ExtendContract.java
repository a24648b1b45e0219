package io.fencepost.lock.contract;

import static io.fencepost.lock.contract.EngineUnderTest.key;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

import io.fencepost.lock.Lease;
import io.fencepost.lock.LeaseInfo;
import io.fencepost.lock.LeaseLostException;
import io.fencepost.lock.LockManager;
import io.fencepost.lock.LockOptions;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The contract of {@link Lease#extend}, of exclusive and shared leases and permits alike: owner-checked, the lease then
 * ends that long after the store's now (earlier too, never before acquisition plus the minimum hold), false once the
 * lease is released, lost or expired; and bad durations are refused before the store is asked. An extension with a
 * minimum hold of its own keeps the key locked until that long after the store's now of the extension, released or
 * not, and no later extension ends the lease before then.
 */
public interface ExtendContract extends EngineUnderTest {

    /** A lease that renewal does not move, so that only {@code extend} does. */
    private static LockOptions.Builder unrenewed(Duration leaseTime) {
        return LockOptions.builder().leaseTime(leaseTime).renew(false);
    }

    private LeaseInfo storeView(String key) {
        return store().inspect(key).orElseThrow();
    }

    @Test
    default void anExtendedLeaseEndsThatLongAfterTheStoresNowWhetherLongerOrShorter() {
        LockManager locks = manager();
        String key = key();
        Lease lease = locks.acquire(key, unrenewed(Duration.ofSeconds(20)).build());
        Instant granted = lease.expiresAt();

        assertThat(lease.extend(Duration.ofMinutes(10))).isTrue();
        Instant longer = storeView(key).expiresAt();
        assertThat(longer).isAfter(granted.plus(Duration.ofMinutes(9))).isEqualTo(lease.expiresAt());

        assertThat(lease.extend(Duration.ofSeconds(5))).isTrue();
        Instant shorter = storeView(key).expiresAt();
        assertThat(shorter).isBefore(granted).isEqualTo(lease.expiresAt());
        assertThat(lease.isHeld()).isTrue();
    }

    @Test
    default void sharedLeasesAndPermitsAreExtendedOneByOne() {
        LockManager locks = manager();
        String readKey = key();
        LockOptions shared = unrenewed(Duration.ofSeconds(20)).shared(true).build();
        Lease reader = locks.acquire(readKey, shared);
        Lease otherReader = manager().acquire(readKey, shared);

        assertThat(reader.extend(Duration.ofMinutes(10))).isTrue();
        assertThat(reader.expiresAt()).isAfter(otherReader.expiresAt().plus(Duration.ofMinutes(9)));
        assertThat(storeView(readKey).expiresAt())
                .as("the key is busy for writers until the last shared lease ends")
                .isEqualTo(reader.expiresAt());
        assertThat(reader.extend(Duration.ofSeconds(1))).isTrue();
        assertThat(storeView(readKey).expiresAt()).isEqualTo(otherReader.expiresAt());

        String permitKey = key();
        Lease permit = locks.acquire(
                permitKey, unrenewed(Duration.ofSeconds(20)).permits(2).build());
        assertThat(permit.extend(Duration.ofMinutes(10))).isTrue();
        assertThat(storeView(permitKey).expiresAt()).isEqualTo(permit.expiresAt());
    }

    @Test
    default void anExtendNeverEndsALeaseBeforeItsAcquisitionPlusTheMinimumHold() {
        LockManager locks = manager();
        String key = key();
        Lease lease = locks.acquire(
                key,
                unrenewed(Duration.ofSeconds(30))
                        .minHoldTime(Duration.ofSeconds(20))
                        .build());
        Instant acquiredAt = storeView(key).acquiredAt();

        assertThat(lease.extend(Duration.ofMillis(1))).isTrue();

        assertThat(storeView(key).expiresAt()).isEqualTo(acquiredAt.plus(Duration.ofSeconds(20)));
        assertThat(lease.isHeld()).isTrue();
    }

    @Test
    default void extendIsFalseOnceTheLeaseIsReleased() {
        LockManager locks = manager();
        String key = key();
        Lease lease = locks.acquire(key, unrenewed(Duration.ofSeconds(20)).build());
        lease.release();

        assertThat(lease.extend(Duration.ofMinutes(1))).isFalse();
        assertThat(store().inspect(key)).isEmpty();
    }

    @Test
    default void extendIsFalseOnceTheLeaseWasTakenAwayAndTheHolderIsToldItIsLost() {
        LockManager locks = manager();
        String key = key();
        Lease lease = locks.acquire(key, unrenewed(Duration.ofSeconds(20)).build());
        AtomicReference<LeaseLostException> lost = new AtomicReference<>();
        lease.onLost(lost::set);
        assertThat(store().forceRelease(key)).isTrue();

        assertThat(lease.extend(Duration.ofMinutes(1))).isFalse();

        assertThat(lease.isHeld()).isFalse();
        assertThat(lost.get()).isNotNull();
        assertThat(store().inspect(key)).as("nothing was revived").isEmpty();
    }

    @Test
    default void extendIsFalseOnceTheLeaseHasExpired() {
        LockManager locks = manager();
        String key = key();
        Lease lease = locks.acquire(key, unrenewed(Duration.ofMillis(300)).build());
        await().atMost(Duration.ofSeconds(10)).until(() -> store().inspect(key).isEmpty());

        assertThat(lease.extend(Duration.ofMinutes(1))).isFalse();
        assertThat(store().inspect(key)).isEmpty();
    }

    @Test
    default void anExtendByANonPositiveOrOverlongDurationIsRefusedBeforeTheStoreIsAsked() {
        LockManager locks = manager();
        String key = key();
        Lease lease = locks.acquire(key, unrenewed(Duration.ofSeconds(20)).build());
        LeaseInfo before = storeView(key);

        assertThatIllegalArgumentException()
                .isThrownBy(() -> lease.extend(Duration.ZERO))
                .withMessageContaining("positive")
                .withMessageContaining(key);
        assertThatIllegalArgumentException()
                .isThrownBy(() -> lease.extend(Duration.ofSeconds(-1)))
                .withMessageContaining("positive");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> lease.extend(null))
                .withMessageContaining("positive");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> lease.extend(Duration.ofDays(365 * 300)))
                .withMessageContaining("days");

        assertThat(storeView(key)).isEqualTo(before);
        assertThat(lease.isHeld()).isTrue();
    }

    @Test
    default void renewalGoesOnWithTheExtendedLeaseTime() {
        LockManager locks = manager();
        String key = key();
        Lease lease = locks.acquire(key, LockOptions.of(Duration.ofMinutes(5)));

        assertThat(lease.extend(Duration.ofSeconds(2))).isTrue();
        Instant extended = lease.expiresAt();

        // Renewal runs at a third of the lease time: with 2 s it has renewed within a few seconds, for 2 s again.
        await().atMost(Duration.ofSeconds(10)).until(() -> lease.expiresAt().isAfter(extended));
        assertThat(storeView(key).expiresAt())
                .as("renewed for 2 s, not for the options' 5 min")
                .isBefore(extended.plus(Duration.ofSeconds(15)));
        assertThat(lease.isHeld()).isTrue();
    }

    /**
     * When the store ends a lease extended at its now {@code t} for {@code leaseTime} with {@code minHoldTime}: the
     * extension's answer is {@code t + leaseTime}, exactly.
     */
    private static Instant heldUntil(Instant extendedTo, Duration leaseTime, Duration minHoldTime) {
        return extendedTo.minus(leaseTime).plus(minHoldTime);
    }

    @Test
    default void aReleaseBeforeAnExtensionsMinimumHoldKeepsTheKeyLockedUntilThen() {
        LockManager locks = manager();
        LockManager other = manager();
        String key = key();
        Duration leaseTime = Duration.ofSeconds(20);
        Duration minHold = Duration.ofMillis(1500);
        Lease lease = locks.acquire(key, unrenewed(leaseTime).build());

        assertThat(lease.extend(leaseTime, minHold)).isTrue();
        Instant keptUntil = heldUntil(lease.expiresAt(), leaseTime, minHold);
        assertThat(lease.release()).isTrue();

        assertThat(storeView(key).expiresAt())
                .as("the key stays locked until the extension's minimum hold has passed by the store's clock")
                .isEqualTo(keptUntil);
        assertThat(other.tryAcquire(key, unrenewed(leaseTime).build())).isEmpty();
        await().atMost(Duration.ofSeconds(10))
                .until(() -> other.tryAcquire(key, unrenewed(leaseTime).build()), Optional::isPresent);
        assertThat(lease.extend(leaseTime, minHold)).as("released").isFalse();
    }

    @Test
    default void noLaterExtensionEndsTheLeaseBeforeAnExtensionsMinimumHold() {
        LockManager locks = manager();
        String key = key();
        Duration leaseTime = Duration.ofSeconds(30);
        Duration minHold = Duration.ofSeconds(20);
        Lease lease = locks.acquire(key, unrenewed(leaseTime).build());
        assertThat(lease.extend(leaseTime, minHold)).isTrue();
        Instant keptUntil = heldUntil(lease.expiresAt(), leaseTime, minHold);

        assertThat(lease.extend(Duration.ofMillis(1))).isTrue();
        assertThat(storeView(key).expiresAt()).isEqualTo(keptUntil).isEqualTo(lease.expiresAt());
        assertThat(lease.extend(Duration.ofSeconds(25), Duration.ofSeconds(1)))
                .as("a shorter minimum hold leaves the longer one")
                .isTrue();
        assertThat(lease.extend(Duration.ofMillis(1))).isTrue();
        assertThat(storeView(key).expiresAt()).isEqualTo(keptUntil);
        assertThat(lease.isHeld()).isTrue();

        assertThat(lease.release()).isTrue();
        assertThat(storeView(key).expiresAt()).isEqualTo(keptUntil);
    }

    @Test
    default void theOptionsMinimumHoldStillCountsWhenItEndsAfterAnExtensionsOwn() {
        LockManager locks = manager();
        String key = key();
        Lease lease = locks.acquire(
                key,
                unrenewed(Duration.ofSeconds(30))
                        .minHoldTime(Duration.ofSeconds(20))
                        .build());
        Instant acquiredAt = storeView(key).acquiredAt();

        assertThat(lease.extend(Duration.ofSeconds(30), Duration.ofSeconds(1))).isTrue();
        assertThat(lease.release()).isTrue();

        assertThat(storeView(key).expiresAt()).isEqualTo(acquiredAt.plus(Duration.ofSeconds(20)));
    }

    @Test
    default void sharedLeasesAndPermitsKeepAnExtensionsMinimumHoldPastTheirRelease() {
        LockManager locks = manager();
        LockManager other = manager();
        Duration leaseTime = Duration.ofSeconds(20);
        Duration minHold = Duration.ofSeconds(10);

        String readKey = key();
        Lease reader = locks.acquire(readKey, unrenewed(leaseTime).shared(true).build());
        assertThat(reader.extend(leaseTime, minHold)).isTrue();
        Instant readerKeptUntil = heldUntil(reader.expiresAt(), leaseTime, minHold);
        assertThat(reader.release()).isTrue();
        assertThat(storeView(readKey).expiresAt()).isEqualTo(readerKeptUntil);
        assertThat(other.tryAcquire(readKey, unrenewed(leaseTime).build()))
                .as("no writer before the released reader's minimum hold has passed")
                .isEmpty();

        String permitKey = key();
        LockOptions twoPermits = unrenewed(leaseTime).permits(2).build();
        Lease permit = locks.acquire(permitKey, twoPermits);
        assertThat(permit.extend(leaseTime, minHold)).isTrue();
        Instant permitKeptUntil = heldUntil(permit.expiresAt(), leaseTime, minHold);
        assertThat(permit.release()).isTrue();
        assertThat(storeView(permitKey).expiresAt()).isEqualTo(permitKeptUntil);
        assertThat(other.tryAcquire(permitKey, twoPermits))
                .as("the other permit")
                .isPresent();
        assertThat(manager().tryAcquire(permitKey, twoPermits))
                .as("the released permit is still taken until its minimum hold has passed")
                .isEmpty();
    }

    @Test
    default void anExtensionWithAMinimumHoldIsFalseForALostLeaseAndRevivesNothing() {
        LockManager locks = manager();
        String key = key();
        Lease lease = locks.acquire(key, unrenewed(Duration.ofSeconds(20)).build());
        assertThat(store().forceRelease(key)).isTrue();

        assertThat(lease.extend(Duration.ofMinutes(1), Duration.ofSeconds(30))).isFalse();

        assertThat(lease.isHeld()).isFalse();
        assertThat(store().inspect(key)).as("nothing was revived").isEmpty();
    }

    @Test
    default void aNullNegativeOrOverlongMinimumHoldIsRefusedBeforeTheStoreIsAsked() {
        LockManager locks = manager();
        String key = key();
        Lease lease = locks.acquire(key, unrenewed(Duration.ofSeconds(20)).build());
        LeaseInfo before = storeView(key);

        assertThatIllegalArgumentException()
                .isThrownBy(() -> lease.extend(Duration.ofSeconds(10), null))
                .withMessageContaining("min hold time")
                .withMessageContaining(key);
        assertThatIllegalArgumentException()
                .isThrownBy(() -> lease.extend(Duration.ofSeconds(10), Duration.ofSeconds(-1)))
                .withMessageContaining("min hold time")
                .withMessageContaining("zero or positive");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> lease.extend(Duration.ofSeconds(10), Duration.ofSeconds(11)))
                .withMessageContaining("exceeds its lease time");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> lease.extend(null, Duration.ZERO))
                .withMessageContaining("positive");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> lease.extend(Duration.ofSeconds(-1), Duration.ofSeconds(-2)))
                .withMessageContaining("positive");

        assertThat(storeView(key)).isEqualTo(before);
        assertThat(lease.isHeld()).isTrue();
    }
}
