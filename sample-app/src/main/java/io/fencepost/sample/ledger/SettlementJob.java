package io.fencepost.sample.ledger;

import io.fencepost.lock.DistributedLock;
import io.fencepost.lock.Lease;
import io.fencepost.lock.LockContext;
import io.fencepost.lock.OnLocked;
import io.fencepost.lock.jdbc.JdbcFencingGuard;
import io.fencepost.sample.SampleProperties;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.support.CronExpression;
import org.springframework.transaction.annotation.Transactional;

/**
 * Settles the unsettled transfers, once per tick across all instances.
 *
 * <p>Every instance's scheduler fires on the same cron slots; the first to take {@code ledger-settlement} runs
 * and the others skip the tick. The lease is kept for {@code min-hold-time} after the run even though the run
 * takes milliseconds: an instance whose scheduler fires a little late (clock skew, a busy CPU) then still finds
 * the key taken instead of running the same tick a second time. It must stay below the period, or the next
 * tick would find the key taken too; half the period leaves room on both sides.
 *
 * <p>The run itself is fenced through {@link JdbcFencingGuard}, inside its transaction: a run whose lease was
 * superseded while it was paused is refused and rolls back.
 */
public class SettlementJob {

    private static final Logger LOG = LoggerFactory.getLogger(SettlementJob.class);

    static final String KEY = "ledger-settlement";

    private final SettlementRunRepository runs;

    private final DataSource dataSource;

    private final JdbcFencingGuard guard = new JdbcFencingGuard();

    private final String instance;

    private final CronExpression cron;

    private final Duration minHoldTime;

    public SettlementJob(
            SettlementRunRepository runs,
            DataSource dataSource,
            SampleProperties properties,
            String cron,
            Duration minHoldTime) {
        this.runs = runs;
        this.dataSource = dataSource;
        this.instance = properties.instanceName();
        this.cron = CronExpression.parse(cron);
        this.minHoldTime = minHoldTime;
    }

    @Scheduled(cron = "${sample.settlement.cron}")
    @DistributedLock(
            key = "'" + KEY + "'",
            onLocked = OnLocked.SKIP,
            leaseTime = "${sample.settlement.lease-time}",
            minHoldTime = "${sample.settlement.min-hold-time}",
            name = "settlement")
    @Transactional
    public void settle() throws SQLException {
        Instant tick = slot(Instant.now());
        Lease lease = LockContext.current().orElseThrow();
        Connection connection = DataSourceUtils.getConnection(dataSource);
        guard.check(connection, KEY, lease.fencingToken());
        SettlementRun run = runs.save(new SettlementRun(null, tick, instance, lease.fencingToken(), 0, 0, null));
        runs.settleInto(run.id());
        LOG.info(
                "settlement run {} for tick {} on {} (fencing token {})",
                run.id(),
                tick,
                instance,
                lease.fencingToken());
    }

    /**
     * The cron slot this run serves: the first one after {@code now - minHoldTime}. A scheduler fires a little
     * after its slot; one firing later than the minimum hold time could run a tick twice anyway.
     */
    Instant slot(Instant now) {
        ZonedDateTime slot = cron.next(now.minus(minHoldTime).atZone(ZoneId.systemDefault()));
        return slot == null ? now : slot.toInstant();
    }
}
