package io.fencepost.lock.spring.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencepost.lock.LockManager;
import io.fencepost.lock.core.DefaultLockManager;
import io.fencepost.lock.memory.InMemoryLeaseStore;
import io.fencepost.lock.testing.TestLocks;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;

/** An application that declares its own lock manager bean still locks through the test's in the test. */
@SpringBootTest(
        classes = {Billing.class, ApplicationsOwnLockManagerTest.OwnLockManager.class},
        properties =
                "spring.autoconfigure.exclude=org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
@AutoConfigureTestLocks
class ApplicationsOwnLockManagerTest {

    @Autowired
    LockManager lockManager;

    @Autowired
    TestLocks locks;

    @Autowired
    Billing.Reports reports;

    @Test
    void theTestsLockManagerWinsOverTheApplicationsOwn() {
        assertThat(lockManager).isSameAs(locks.manager());

        reports.run();

        assertThat(locks.grants("nightly-report")).hasSize(1);
    }

    @TestConfiguration(proxyBeanMethods = false)
    static class OwnLockManager {

        @Bean(destroyMethod = "close")
        DefaultLockManager lockManager() {
            return DefaultLockManager.builder(new InMemoryLeaseStore()).build();
        }
    }
}
