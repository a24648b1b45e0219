package io.fencepost.lock.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencepost.lock.Lease;
import io.fencepost.lock.LockManager;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.jdbc.LockTableSplitException;
import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import io.fencepost.lock.spring.test.LockContextRunners;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Two instances of one application on one database whose fencepost.jdbc.table-name differ (a typo on one of them):
 * the second refuses to start, unless told that separate tables are intended, and then its health names the other
 * table. Each test uses an application name of its own, so that the other test's tables do not count.
 */
class OneLockTablePerApplicationTest {

    @RegisterExtension
    static PostgresTestDatabase db = new PostgresTestDatabase();

    private static ApplicationContextRunner instance(String application, String table) {
        return LockContextRunners.onDatabase(db, LockHealthContributorAutoConfiguration.class)
                .withPropertyValues(
                        "spring.datasource.hikari.maximum-pool-size=3",
                        "spring.application.name=" + application,
                        "fencepost.jdbc.table-name=" + table);
    }

    @Test
    void theInstanceWithATypoInTheTableNameRefusesToStartBeforeCreatingItsTable() {
        instance("orders", "orders_lock").run(first -> {
            assertThat(first).hasNotFailed();
            try (Lease held = first.getBean(LockManager.class).acquire("invoice:7", LockOptions.defaults())) {

                instance("orders", "orders_lokc").run(second -> {
                    assertThat(second).hasFailed();
                    assertThat(second.getStartupFailure())
                            .rootCause()
                            .isInstanceOfSatisfying(
                                    LockTableSplitException.class,
                                    e -> assertThat(e.otherTables()).containsExactly("public.orders_lock"));
                    FailureAnalysis analysis = FailureAnalysisSupport.analyze(second.getStartupFailure());
                    assertThat(analysis.getDescription())
                            .startsWith(
                                    "Fencepost's lock table 'orders_lokc' (fencepost.jdbc.table-name) is not the"
                                            + " lock table in use by the other instances: fencepost refuses the lock table"
                                            + " 'orders_lokc': another Fencepost lock table is in use by application 'orders'"
                                            + " in this database: public.orders_lock (1 live lease, the latest held by orders@");
                    assertThat(analysis.getAction())
                            .startsWith("Set fencepost.jdbc.table-name to the table the other instances use"
                                    + " (public.orders_lock) on every instance")
                            .contains("fencepost.jdbc.allow-other-lock-tables=true", "'orders@...'");
                });
            }
        });
        assertThat(relationCount("orders_lokc"))
                .as("the refused instance created no table")
                .isZero();
    }

    @Test
    void allowedBothStartAndTheHealthNamesTheOtherTable() {
        instance("billing", "billing_lock").run(first -> {
            try (Lease held = first.getBean(LockManager.class).acquire("invoice:7", LockOptions.defaults())) {

                instance("billing", "billing_lock_v2")
                        .withPropertyValues("fencepost.jdbc.allow-other-lock-tables=true")
                        .run(second -> {
                            assertThat(second).hasNotFailed();
                            HealthIndicator health = second.getBean("locksHealthIndicator", HealthIndicator.class);
                            Map<String, Object> details = health.health().getDetails();
                            assertThat(health.health().getStatus()).isEqualTo(Status.UP);
                            assertThat(details.get("otherLockTables"))
                                    .asInstanceOf(InstanceOfAssertFactories.LIST)
                                    .singleElement()
                                    .asString()
                                    .startsWith("public.billing_lock (1 live lease, the latest held by billing@");
                            assertThat(details.get("warnings"))
                                    .asInstanceOf(InstanceOfAssertFactories.LIST)
                                    .anySatisfy(warning -> assertThat(warning)
                                            .asString()
                                            .contains("(public.billing_lock)", "do not exclude each other"));

                            // and the first instance's health sees the second table once it is used
                            try (Lease other = second.getBean(LockManager.class)
                                    .acquire("invoice:7", LockOptions.of(Duration.ofSeconds(30)))) {
                                assertThat(other.fencingToken()).isPositive();
                                assertThat(first.getBean("locksHealthIndicator", HealthIndicator.class)
                                                .health()
                                                .getDetails()
                                                .get("otherLockTables"))
                                        .asInstanceOf(InstanceOfAssertFactories.LIST)
                                        .map(String::valueOf)
                                        .singleElement()
                                        .asString()
                                        .startsWith("public.billing_lock_v2 (1 live lease");
                            }
                        });
            }
        });
        assertThat(List.of(relationCount("billing_lock"), relationCount("billing_lock_v2")))
                .containsExactly(1L, 1L);
    }

    private static long relationCount(String table) {
        try (Connection connection = db.adminDataSource().getConnection();
                Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery(
                        "SELECT count(*) FROM pg_class WHERE relkind = 'r' AND relname = '" + table + "'")) {
            row.next();
            return row.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
