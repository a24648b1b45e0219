package io.fencepost.lock.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencepost.lock.LockOptions;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/** Each test its own store: what one test leaves held, the next never sees. */
@ExtendWith(TestLocksExtension.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class TestLocksExtensionTest {

    private static TestLocks previous;

    private TestLocks fromBeforeEach;

    @BeforeEach
    void remember(TestLocks locks) {
        fromBeforeEach = locks;
    }

    @Test
    @Order(1)
    void aTestThatLeavesAKeyHeld(TestLocks locks) {
        assertThat(locks).isSameAs(fromBeforeEach);
        assertThat(locks.manager().tryAcquire("shared-key", LockOptions.of(Duration.ofMinutes(5))))
                .isPresent();
        previous = locks;
    }

    @Test
    @Order(2)
    void theNextTestFindsItFree(TestLocks locks) {
        assertThat(locks).isNotSameAs(previous);
        assertThat(locks.inspect("shared-key")).isEmpty();
        assertThat(locks.manager().tryAcquire("shared-key", LockOptions.of(Duration.ofMinutes(5))))
                .isPresent();
    }
}
