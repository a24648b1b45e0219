package io.fencepost.lock.spring.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fencepost.lock.Lease;
import io.fencepost.lock.LockManager;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.LockStoreException;
import io.fencepost.lock.testing.Grant;
import io.fencepost.lock.testing.TestLocks;
import java.time.Duration;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;

@SpringBootTest(
        classes = Billing.class,
        properties = {
            "spring.application.name=billing",
            "spring.autoconfigure.exclude=org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration"
        })
@AutoConfigureTestLocks
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class InMemoryTestLocksTest {

    private static ApplicationContext firstContext;

    @Autowired
    TestLocks locks;

    @Autowired
    LockManager lockManager;

    @Autowired
    Billing.Reports reports;

    @Autowired
    ApplicationContext context;

    @Test
    @Order(1)
    void theApplicationLocksThroughTheTestsManagerWithoutADatabase() {
        assertThat(lockManager).isSameAs(locks.manager());

        Long token = reports.run();

        assertThat(locks.grants()).containsExactly(new Grant("billing", "nightly-report", token));
    }

    @Test
    @Order(2)
    void aLockedMethodSkipsWhileAnotherInstanceHoldsItsKey() {
        Lease elsewhere = locks.instance("billing-2").acquire("nightly-report", LockOptions.of(Duration.ofMinutes(1)));

        assertThat(reports.run()).isNull();

        elsewhere.release();
        assertThat(reports.run()).isGreaterThan(elsewhere.fencingToken());
    }

    @Test
    @Order(3)
    void aTestThatLeavesTheKeyHeldAndTheStoreDown() {
        firstContext = context;
        locks.instance("billing-2").acquire("nightly-report", LockOptions.of(Duration.ofMinutes(1)));
        locks.storeDown();

        assertThatThrownBy(() -> reports.run()).isInstanceOf(LockStoreException.class);
    }

    @Test
    @Order(4)
    void theNextTestOfTheSameContextStartsOverAnyway() {
        assertThat(context).as("one cached context").isSameAs(firstContext);
        assertThat(locks.grants()).isEmpty();

        assertThat(reports.run()).isNotNull();
    }
}
