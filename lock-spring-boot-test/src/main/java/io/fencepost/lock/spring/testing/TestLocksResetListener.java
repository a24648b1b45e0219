package io.fencepost.lock.spring.testing;

import io.fencepost.lock.testing.TestLocks;
import org.springframework.test.context.TestContext;
import org.springframework.test.context.TestExecutionListener;

/**
 * Resets the context's {@link TestLocks} after each test method, so that the next test of the cached context starts
 * from an empty store (registered in {@code META-INF/spring.factories}).
 */
class TestLocksResetListener implements TestExecutionListener {

    @Override
    public void afterTestMethod(TestContext testContext) {
        if (testContext.hasApplicationContext()) {
            testContext.getApplicationContext().getBeanProvider(TestLocks.class).ifAvailable(TestLocks::reset);
        }
    }
}
