package io.fencepost.lock.contract;

import static io.fencepost.lock.contract.StoreUnderTest.key;
import static io.fencepost.lock.contract.StoreUnderTest.token;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fencepost.lock.LeaseInfo;
import io.fencepost.lock.spi.AcquireRequest;
import io.fencepost.lock.spi.AcquireResult;
import io.fencepost.lock.spi.HandOver;
import io.fencepost.lock.spi.HandOverRequest;
import io.fencepost.lock.spi.LeaseHandOver;
import io.fencepost.lock.spi.RenewRequest;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The contract of {@link LeaseHandOver}, for a store that has that ability: a test class that extends
 * {@link LeaseStoreContract} implements this interface too, and its tests run with the others.
 */
public interface LeaseHandOverContract extends StoreUnderTest {

    /** Hands the lease of {@code from} on {@code key} to a new grant for {@code to}. */
    default Optional<HandOver> handOver(String key, String from, String to, String holder, Duration leaseTime) {
        assertThat(store()).as("the store under test").isInstanceOf(LeaseHandOver.class);
        return ((LeaseHandOver) store())
                .handOver(new HandOverRequest(from, new AcquireRequest(key, to, holder, leaseTime, true)));
    }

    @Test
    default void aHandOverGivesTheKeyANewGrantWithAHigherTokenAndEndsTheOldOne() {
        String key = key();
        String first = token();
        String next = token();
        AcquireResult.Granted old = grant(key, first, LONG);

        HandOver handed = handOver(key, first, next, "next-holder", SHORT.multipliedBy(100))
                .orElseThrow();

        assertThat(handed.granted().fencingToken()).isGreaterThan(old.fencingToken());
        assertThat(Duration.between(
                        handed.granted().acquiredAt(), handed.granted().expiresAt()))
                .isEqualTo(SHORT.multipliedBy(100));
        LeaseInfo info = store().inspect(key).orElseThrow();
        assertThat(info.fencingToken()).isEqualTo(handed.granted().fencingToken());
        assertThat(info.holder()).isEqualTo("next-holder");
        // The old owner token is dead: it can neither renew, nor release, nor hand over again.
        assertThat(renewByKey(new RenewRequest(key, first, LONG))).isEmpty();
        assertThat(release(key, first, Duration.ZERO)).isFalse();
        assertThat(handOver(key, first, token(), "x", LONG)).isEmpty();
        assertThat(acquire(key, token(), "other", LONG)).isInstanceOf(AcquireResult.Busy.class);
        assertThat(release(key, next, Duration.ZERO)).isTrue();
        grant(key, token(), LONG);
    }

    @Test
    default void aHandOverOfALeaseThatIsNoLongerOursChangesNothing() {
        String released = key();
        String owner = token();
        grant(released, owner, LONG);
        release(released, owner, Duration.ZERO);
        assertThat(handOver(released, owner, token(), "x", LONG)).isEmpty();
        assertThat(store().inspect(released)).isEmpty();

        String expired = key();
        String late = token();
        grant(expired, late, SHORT);
        await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> store().inspect(expired).isEmpty());
        assertThat(handOver(expired, late, token(), "x", LONG)).isEmpty();
        AcquireResult.Granted taker = grant(expired, token(), LONG);
        assertThat(handOver(expired, late, token(), "x", LONG)).isEmpty();
        assertThat(store().inspect(expired).orElseThrow().fencingToken()).isEqualTo(taker.fencingToken());
    }
}
