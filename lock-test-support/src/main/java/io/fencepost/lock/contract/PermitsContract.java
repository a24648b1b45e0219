package io.fencepost.lock.contract;

import static io.fencepost.lock.contract.StoreUnderTest.key;
import static io.fencepost.lock.contract.StoreUnderTest.token;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

import io.fencepost.lock.LeaseMode;
import io.fencepost.lock.spi.AcquireRequest;
import io.fencepost.lock.spi.AcquireResult;
import io.fencepost.lock.spi.ReleaseRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The contract of permits (a counted semaphore), which every store meets: at most n live leases of a key, each
 * with its own token, and a caller that disagrees on n is refused. {@link LeaseStoreContract} runs it.
 */
public interface PermitsContract extends StoreUnderTest {

    /** One attempt for one of {@code permits} permits. */
    default AcquireResult acquirePermit(String key, String owner, int permits, Duration leaseTime) {
        return store().acquire(new AcquireRequest(key, owner, "worker", leaseTime, false, LeaseMode.PERMITS, permits));
    }

    default boolean releasePermit(String key, String owner) {
        return store().release(new ReleaseRequest(key, owner, Duration.ZERO, LeaseMode.PERMITS));
    }

    @Test
    default void atMostTheNumberOfPermitsIsHeldAtOnceEachWithAHigherToken() {
        String key = key();
        List<String> owners = new ArrayList<>();
        List<Long> tokens = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            String owner = token();
            AcquireResult result = acquirePermit(key, owner, 3, LONG);
            assertThat(result).isInstanceOf(AcquireResult.Granted.class);
            owners.add(owner);
            tokens.add(((AcquireResult.Granted) result).fencingToken());
        }

        assertThat(acquirePermit(key, token(), 3, LONG))
                .as("a fourth of 3 permits")
                .isInstanceOf(AcquireResult.Busy.class);
        assertThat(tokens).isSorted().doesNotHaveDuplicates();
        assertThat(releasePermit(key, owners.get(1))).isTrue();
        assertThat(acquirePermit(key, token(), 3, LONG)).isInstanceOf(AcquireResult.Granted.class);
        assertThat(acquirePermit(key, token(), 3, LONG)).isInstanceOf(AcquireResult.Busy.class);
    }

    @Test
    default void anExpiredPermitFreesItsPlace() {
        String key = key();
        assertThat(acquirePermit(key, token(), 2, LONG)).isInstanceOf(AcquireResult.Granted.class);
        assertThat(acquirePermit(key, token(), 2, SHORT)).isInstanceOf(AcquireResult.Granted.class);
        assertThat(acquirePermit(key, token(), 2, LONG)).isInstanceOf(AcquireResult.Busy.class);

        await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> acquirePermit(key, token(), 2, LONG) instanceof AcquireResult.Granted);
    }

    @Test
    default void aCallerThatDisagreesOnTheNumberOfPermitsIsRefusedNamingBoth() {
        String key = key();
        assertThat(acquirePermit(key, token(), 3, LONG)).isInstanceOf(AcquireResult.Granted.class);

        assertThatIllegalStateException()
                .isThrownBy(() -> acquirePermit(key, token(), 5, LONG))
                .withMessageContaining("3 permits")
                .withMessageContaining("5");
        assertThatIllegalStateException()
                .as("an exclusive lease is one permit")
                .isThrownBy(() -> acquire(key, token(), "writer", LONG))
                .withMessageContaining("3 permits");
    }
}
