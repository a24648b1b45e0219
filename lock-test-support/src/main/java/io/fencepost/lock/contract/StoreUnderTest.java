package io.fencepost.lock.contract;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencepost.lock.spi.AcquireRequest;
import io.fencepost.lock.spi.AcquireResult;
import io.fencepost.lock.spi.LeaseStore;
import io.fencepost.lock.spi.ReleaseRequest;
import io.fencepost.lock.spi.RenewRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** What the contract suites share: the store under test, two lease lengths, and short ways to call it. */
public interface StoreUnderTest {

    /** Long enough that it never runs out during a test by accident. */
    Duration LONG = Duration.ofMinutes(5);

    /** Short enough to wait out. */
    Duration SHORT = Duration.ofMillis(300);

    /** The store under test, fresh and empty for each test. */
    LeaseStore store();

    /** A fresh owner token. */
    static String token() {
        return UUID.randomUUID().toString();
    }

    /** A fresh key: the tests never share one, so one store (one table) can serve them all. */
    static String key() {
        return "contract:" + UUID.randomUUID();
    }

    /** Takes a free key, failing the test when that does not work. */
    default AcquireResult.Granted grant(String key, String owner, Duration leaseTime) {
        AcquireResult result = acquire(key, owner, "contract-test", leaseTime);
        assertThat(result).isInstanceOf(AcquireResult.Granted.class);
        return (AcquireResult.Granted) result;
    }

    /** One attempt of a caller that does not wait. */
    default AcquireResult acquire(String key, String owner, String holder, Duration leaseTime) {
        return store().acquire(new AcquireRequest(key, owner, holder, leaseTime, false));
    }

    /** Renews {@code requests} in one batch; the new expiry of each renewed lease, by key. */
    default Map<String, Instant> renewByKey(RenewRequest... requests) {
        Map<String, Instant> byKey = new HashMap<>();
        store().renew(List.of(requests)).forEach((request, expiresAt) -> byKey.put(request.key(), expiresAt));
        return byKey;
    }

    default boolean release(String key, String owner, Duration minHoldTime) {
        return store().release(new ReleaseRequest(key, owner, minHoldTime));
    }
}
