package io.fencepost.sample;

import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A fresh test database per test class ({@link PostgresTestDatabase}) as a class-level extension. Declared with
 * {@code @ExtendWith} above {@code @SpringBootTest}, it is registered before Spring's extension, so JUnit, which
 * runs after-all callbacks in reverse order, drops the database only after Spring has closed the application.
 */
public final class TestDatabase implements BeforeAllCallback, AfterAllCallback {

    private static PostgresTestDatabase current;

    @Override
    public void beforeAll(ExtensionContext context) {
        current = new PostgresTestDatabase().start();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (current != null) {
            current.close();
            current = null;
        }
    }

    /** The JDBC URL of the running test class's database. */
    public static String jdbcUrl() {
        if (current == null) {
            throw new IllegalStateException("no test database: declare @ExtendWith(TestDatabase.class) on the class");
        }
        return current.jdbcUrl();
    }
}
