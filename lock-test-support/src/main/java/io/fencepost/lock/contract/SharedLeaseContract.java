package io.fencepost.lock.contract;

import static io.fencepost.lock.contract.StoreUnderTest.key;
import static io.fencepost.lock.contract.StoreUnderTest.token;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fencepost.lock.LeaseMode;
import io.fencepost.lock.spi.AcquireRequest;
import io.fencepost.lock.spi.AcquireResult;
import io.fencepost.lock.spi.ReleaseRequest;
import io.fencepost.lock.spi.RenewRequest;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The contract of shared leases, which every store meets: any number at once, never with an exclusive lease of the
 * key, and a waiting exclusive request keeps new shared leases out. {@link LeaseStoreContract} runs it.
 */
public interface SharedLeaseContract extends StoreUnderTest {

    /** One attempt for a shared lease. */
    default AcquireResult acquireShared(String key, String owner, Duration leaseTime) {
        return store().acquire(new AcquireRequest(key, owner, "reader", leaseTime, false, LeaseMode.SHARED, 0));
    }

    default AcquireResult.Granted grantShared(String key, String owner, Duration leaseTime) {
        AcquireResult result = acquireShared(key, owner, leaseTime);
        assertThat(result).as("a shared lease of %s", key).isInstanceOf(AcquireResult.Granted.class);
        return (AcquireResult.Granted) result;
    }

    default boolean releaseShared(String key, String owner) {
        return store().release(new ReleaseRequest(key, owner, Duration.ZERO, LeaseMode.SHARED));
    }

    @Test
    default void sharedLeasesOfAKeyAreHeldAtOnceEachWithAHigherToken() {
        String key = key();

        AcquireResult.Granted first = grantShared(key, token(), LONG);
        AcquireResult.Granted second = grantShared(key, token(), LONG);
        AcquireResult.Granted third = grantShared(key, token(), LONG);

        assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
        assertThat(third.fencingToken()).isGreaterThan(second.fencingToken());
        assertThat(store().inspect(key)).isPresent();
    }

    @Test
    default void anExclusiveLeaseWaitsForEverySharedOneAndASharedOneForTheExclusive() {
        String key = key();
        String reader = token();
        String otherReader = token();
        grantShared(key, reader, LONG);
        grantShared(key, otherReader, LONG);

        assertThat(acquire(key, token(), "writer", LONG)).isInstanceOf(AcquireResult.Busy.class);
        assertThat(releaseShared(key, reader)).isTrue();
        assertThat(acquire(key, token(), "writer", LONG))
                .as("one shared lease is still live")
                .isInstanceOf(AcquireResult.Busy.class);
        assertThat(releaseShared(key, otherReader)).isTrue();
        String writer = token();
        grant(key, writer, LONG);

        assertThat(acquireShared(key, token(), LONG)).isInstanceOf(AcquireResult.Busy.class);
        assertThat(release(key, writer, Duration.ZERO)).isTrue();
        grantShared(key, token(), LONG);
    }

    @Test
    default void aWaitingExclusiveRequestKeepsNewSharedLeasesOut() {
        String key = key();
        String reader = token();
        grantShared(key, reader, LONG);

        AcquireResult waitingWriter =
                store().acquire(new AcquireRequest(key, token(), "writer", LONG, true, LeaseMode.EXCLUSIVE, 1));

        assertThat(waitingWriter).isInstanceOf(AcquireResult.Busy.class);
        assertThat(acquireShared(key, token(), LONG))
                .as("a new shared lease while a writer waits")
                .isInstanceOf(AcquireResult.Busy.class);
        assertThat(releaseShared(key, reader)).isTrue();
        grant(key, token(), LONG);
    }

    @Test
    default void sharedLeasesAreRenewedAndExpireOneByOne() {
        String key = key();
        String longLived = token();
        String shortLived = token();
        // long enough to be renewed on a slow machine, short against the renewal
        AcquireResult.Granted kept = grantShared(key, longLived, Duration.ofSeconds(10));
        grantShared(key, shortLived, SHORT);

        var renewed = store().renew(List.of(new RenewRequest(key, longLived, LONG, Duration.ZERO, LeaseMode.SHARED)));

        assertThat(renewed.values())
                .singleElement()
                .satisfies(expiresAt -> assertThat(expiresAt).isAfter(kept.expiresAt()));
        await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> !releaseShared(key, shortLived));
        assertThat(acquire(key, token(), "writer", LONG))
                .as("the renewed shared lease is still live")
                .isInstanceOf(AcquireResult.Busy.class);
        assertThat(releaseShared(key, longLived)).isTrue();
        grant(key, token(), LONG);
    }
}
