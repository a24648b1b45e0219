package io.fencepost.lock.testing;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Gives each JUnit 5 test its own {@link TestLocks} on a fresh in-memory store, as a parameter of the test method (and
 * of its {@code @BeforeEach} and {@code @AfterEach} methods, which get the same one), and closes it after the test.
 * Tests running in parallel never share one.
 *
 * <pre>{@code
 * @ExtendWith(TestLocksExtension.class)
 * class ReportJobTest {
 *     @Test
 *     void aSecondInstanceSkipsWhileTheFirstRuns(TestLocks locks) { ... }
 * }
 * }</pre>
 */
public final class TestLocksExtension implements ParameterResolver {

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(TestLocks.class);

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == TestLocks.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        if (context.getTestMethod().isEmpty()) {
            throw new IllegalStateException("TestLocks is per test: take it as a parameter of a test, @BeforeEach or"
                    + " @AfterEach method, not of " + parameter.getDeclaringExecutable());
        }
        // Stored in the test method's own context: JUnit closes it when that test ends.
        return context.getStore(NAMESPACE)
                .computeIfAbsent(TestLocks.class, type -> TestLocks.inMemory(), TestLocks.class);
    }
}
