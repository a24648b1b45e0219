package com.example.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fencepost.lock.LockNotAcquiredException;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.LockStoreException;
import io.fencepost.lock.spring.testing.AutoConfigureTestLocks;
import io.fencepost.lock.testing.TestLocks;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

/** A @SpringBootTest on locks the test controls, in memory: no database needed. */
@SpringBootTest(
        properties =
                "spring.autoconfigure.exclude=org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
@AutoConfigureTestLocks
class ReportsTest {

    @Autowired
    ConsumerApplication.Reports reports;

    @Autowired
    TestLocks locks;

    @Test
    void theReportDoesNotRunWhileAnotherInstanceRunsIt() {
        locks.instance("node-2").acquire("nightly-report", LockOptions.of(Duration.ofMinutes(1)));

        assertThatThrownBy(reports::run).isInstanceOf(LockNotAcquiredException.class);
    }

    @Test
    void theReportFailsClosedWhileTheLockStoreIsDown() {
        locks.storeDown();

        assertThatThrownBy(reports::run).isInstanceOf(LockStoreException.class);
    }

    @Test
    void eachRunGetsAHigherFencingToken() {
        assertThat(reports.run()).isLessThan(reports.run());
        assertThat(locks.grants("nightly-report")).hasSize(2);
    }
}
