package io.fencepost.lock.contract;

import static io.fencepost.lock.contract.StoreUnderTest.key;
import static io.fencepost.lock.contract.StoreUnderTest.token;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fencepost.lock.LeaseMode;
import io.fencepost.lock.spi.AcquireRequest;
import io.fencepost.lock.spi.AcquireResult;
import io.fencepost.lock.spi.MultiAcquireRequest;
import io.fencepost.lock.spi.MultiAcquireResult;
import io.fencepost.lock.spi.MultiKeyAcquire;
import io.fencepost.lock.spi.ReleaseRequest;
import io.fencepost.lock.spi.RenewRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The contract of {@link MultiKeyAcquire}, for stores that have it: a set of keys is granted whole, each key with its
 * own fencing token ordered with the key's other grants, or nothing of it is ever held, as the store's own history of
 * grants shows. A store's contract test implements it and says how to read that history.
 */
public interface MultiKeyAcquireContract extends StoreUnderTest {

    /**
     * The fencing tokens of every grant of {@code key} the store has made and kept (committed), oldest first, whether
     * still held or not: a key that was held even for a moment appears here.
     */
    List<Long> grantHistory(String key);

    private MultiKeyAcquire sets() {
        return (MultiKeyAcquire) store();
    }

    /** One attempt of a caller that does not wait, for every key of {@code keys} with fresh owner tokens. */
    private MultiAcquireResult acquireAll(List<String> keys, Duration leaseTime) {
        return acquireAll(keys, keys.stream().map(k -> token()).toList(), leaseTime);
    }

    private MultiAcquireResult acquireAll(List<String> keys, List<String> owners, Duration leaseTime) {
        List<AcquireRequest> requests = new ArrayList<>();
        for (int i = 0; i < keys.size(); i++) {
            requests.add(new AcquireRequest(keys.get(i), owners.get(i), "set", leaseTime, false));
        }
        return sets().acquireAll(new MultiAcquireRequest(requests));
    }

    @Test
    default void aSetOfFreeKeysIsGrantedWholeEachKeyWithItsOwnLeaseAndToken() {
        List<String> keys = List.of(key(), key(), key());
        List<String> owners = List.of(token(), token(), token());

        MultiAcquireResult result = acquireAll(keys, owners, LONG);

        assertThat(result).isInstanceOf(MultiAcquireResult.Granted.class);
        List<AcquireResult.Granted> grants = ((MultiAcquireResult.Granted) result).grants();
        assertThat(grants).hasSize(3);
        assertThat(grants).extracting(AcquireResult.Granted::fencingToken).doesNotHaveDuplicates();
        for (int i = 0; i < 3; i++) {
            AcquireResult.Granted grant = grants.get(i);
            assertThat(Duration.between(grant.acquiredAt(), grant.expiresAt())).isEqualTo(LONG);
            assertThat(store().inspect(keys.get(i)).orElseThrow().fencingToken())
                    .as("the grant of %s is returned in the order of the requests", keys.get(i))
                    .isEqualTo(grant.fencingToken());
            assertThat(grantHistory(keys.get(i))).containsExactly(grant.fencingToken());
            assertThat(acquire(keys.get(i), token(), "other", LONG)).isInstanceOf(AcquireResult.Busy.class);
        }
        // each key of the set is an ordinary lease: renewed and released one by one, by its own owner token
        Map<String, java.time.Instant> renewed = renewByKey(
                new RenewRequest(keys.get(0), owners.get(0), LONG), new RenewRequest(keys.get(2), owners.get(2), LONG));
        assertThat(renewed).containsOnlyKeys(keys.get(0), keys.get(2));
        assertThat(release(keys.get(1), owners.get(0), Duration.ZERO))
                .as("another key's owner token")
                .isFalse();
        assertThat(release(keys.get(1), owners.get(1), Duration.ZERO)).isTrue();
        assertThat(store().inspect(keys.get(1))).isEmpty();
    }

    @Test
    default void aSetOneOfWhoseKeysIsHeldElsewhereGrantsNothingAndNoKeyOfItIsEverHeld() {
        String first = key();
        String held = key();
        String last = key();
        long holdersToken = grant(held, token(), LONG).fencingToken();

        MultiAcquireResult result = acquireAll(List.of(first, held, last), LONG);

        assertThat(result).isInstanceOf(MultiAcquireResult.Busy.class);
        MultiAcquireResult.Busy busy = (MultiAcquireResult.Busy) result;
        busy.key().ifPresent(key -> assertThat(key).isEqualTo(held));
        busy.remaining()
                .ifPresent(remaining -> assertThat(remaining).isPositive().isLessThanOrEqualTo(LONG));
        assertThat(grantHistory(first)).as("the free key before the held one").isEmpty();
        assertThat(grantHistory(last)).as("the free key after the held one").isEmpty();
        assertThat(grantHistory(held)).containsExactly(holdersToken);
        assertThat(store().inspect(first)).isEmpty();
        assertThat(store().inspect(last)).isEmpty();
    }

    @Test
    default void aSetIsBusyBehindSharedLeasesAndPermitsOfAnyOfItsKeys() {
        String shared = key();
        String counted = key();
        assertThat(store().acquire(new AcquireRequest(shared, token(), "reader", LONG, false, LeaseMode.SHARED, 0)))
                .isInstanceOf(AcquireResult.Granted.class);
        assertThat(store().acquire(new AcquireRequest(counted, token(), "worker", LONG, false, LeaseMode.PERMITS, 3)))
                .isInstanceOf(AcquireResult.Granted.class);
        String free = key();

        assertThat(acquireAll(List.of(free, shared), LONG)).isInstanceOf(MultiAcquireResult.Busy.class);
        assertThat(acquireAll(List.of(counted, free), LONG)).isInstanceOf(MultiAcquireResult.Busy.class);
        assertThat(grantHistory(free)).isEmpty();
    }

    @Test
    default void aSetTakesOverExpiredLeasesAndEveryKeysTokensKeepIncreasing() {
        String expiring = key();
        String released = key();
        long expiringToken = grant(expiring, token(), SHORT).fencingToken();
        String owner = token();
        long releasedToken = grant(released, owner, LONG).fencingToken();
        assertThat(release(released, owner, Duration.ZERO)).isTrue();

        MultiAcquireResult result = await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(20))
                .until(
                        () -> acquireAll(List.of(expiring, released), LONG),
                        MultiAcquireResult.Granted.class::isInstance);

        List<AcquireResult.Granted> grants = ((MultiAcquireResult.Granted) result).grants();
        assertThat(grants.get(0).fencingToken()).isGreaterThan(expiringToken);
        assertThat(grants.get(1).fencingToken()).isGreaterThan(releasedToken);
        assertThat(grantHistory(expiring)).isSorted().doesNotHaveDuplicates().hasSize(2);
        assertThat(grantHistory(released)).isSorted().doesNotHaveDuplicates().hasSize(2);
        assertThat(store().inspect(expiring).orElseThrow().holder()).isEqualTo("set");
    }

    @Test
    default void releaseAllEndsEachLeaseThatIsOursWhetherOrNotSomeoneWaitsAndNothingElse() {
        List<String> keys = List.of(key(), key(), key());
        List<String> owners = List.of(token(), token(), token());
        assertThat(acquireAll(keys, owners, LONG)).isInstanceOf(MultiAcquireResult.Granted.class);
        // someone waits for the second key: a store that marks waited-for leases has marked it now
        assertThat(store().acquire(new AcquireRequest(keys.get(1), token(), "waiter", LONG, true)))
                .isInstanceOf(AcquireResult.Busy.class);
        long third = store().inspect(keys.get(2)).orElseThrow().fencingToken();

        List<Boolean> released = sets().releaseAll(List.of(
                ReleaseRequest.now(keys.get(0), owners.get(0)),
                ReleaseRequest.now(keys.get(1), owners.get(1)),
                ReleaseRequest.now(keys.get(2), owners.get(0))));

        assertThat(released).as("per request, in their order").containsExactly(true, true, false);
        assertThat(store().inspect(keys.get(0))).isEmpty();
        assertThat(store().inspect(keys.get(1))).as("the waited-for lease").isEmpty();
        assertThat(store().inspect(keys.get(2)).orElseThrow().fencingToken())
                .as("a lease asked for with another key's owner token stays")
                .isEqualTo(third);
        assertThat(sets().releaseAll(List.of(ReleaseRequest.now(keys.get(0), owners.get(0)))))
                .as("a lease released already")
                .containsExactly(false);
    }
}
