package io.fencepost.lock.spring.actuate.health;

import io.fencepost.lock.jdbc.LockStoreHealth;
import java.time.Duration;
import java.util.Objects;
import javax.sql.DataSource;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * The {@code locks} health component: {@link LockStoreHealth} of the lock table, as Actuator shows it. {@code UP}
 * when locks can be granted; the details (clock offset, durability settings, standbys, warnings) are the store's.
 */
public class LockStoreHealthIndicator extends AbstractHealthIndicator {

    private final LockStoreHealth health;

    /**
     * An indicator for the lock table {@code tableName} on {@code dataSource}.
     *
     * @param timeout bound on the probe, the wait for a connection included; the indicator answers within
     *     {@link LockStoreHealth#ANSWER_WITHIN} whatever the database does
     */
    public LockStoreHealthIndicator(DataSource dataSource, String tableName, Duration timeout) {
        this(new LockStoreHealth(dataSource, tableName, timeout));
    }

    /** An indicator showing {@code health}. */
    public LockStoreHealthIndicator(LockStoreHealth health) {
        super("Lock store health check failed");
        this.health = Objects.requireNonNull(health, "health");
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        LockStoreHealth.Report report = health.check();
        builder.status(
                        report.up()
                                ? org.springframework.boot.health.contributor.Status.UP
                                : org.springframework.boot.health.contributor.Status.DOWN)
                .withDetails(report.details());
    }
}
