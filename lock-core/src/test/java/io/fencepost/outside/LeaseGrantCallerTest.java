package io.fencepost.outside;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fencepost.lock.Lease;
import io.fencepost.lock.core.LeaseGrant;
import java.lang.reflect.Proxy;
import org.junit.jupiter.api.Test;

/** Application code (any package outside Fencepost's) cannot lift a lease's owner token through the store helper. */
class LeaseGrantCallerTest {

    @Test
    void refusesCallersOutsideFencepostsOwnModulesBeforeLookingAtTheLease() {
        Lease lease = (Lease) Proxy.newProxyInstance(
                Lease.class.getClassLoader(), new Class<?>[] {Lease.class}, (proxy, method, args) -> {
                    throw new AssertionError("the lease must not be touched: " + method.getName());
                });

        assertThatThrownBy(() -> LeaseGrant.of(lease))
                .isInstanceOf(IllegalCallerException.class)
                .hasMessageContaining("owner token")
                .hasMessageContaining(LeaseGrantCallerTest.class.getName())
                .hasMessageContaining("JdbcLeaseGuard.holdUntilCommit");
    }
}
