package io.fencepost.lock.benchmarks.clients;

import java.time.Duration;
import java.util.Optional;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * ShedLock's JDBC provider configured as its README recommends ({@code JdbcTemplate}, {@code usingDbTime()}), called
 * through its {@code LockProvider} API. ShedLock never waits for a lock (it skips), so for the contended scenario
 * the harness retries every 5 ms.
 */
public final class ShedLockClient extends PollingLockClient implements ExtendableClient {

    /** ShedLock's documented table, in PostgreSQL types. */
    public static final String SCHEMA_SQL = """
            CREATE TABLE shedlock (
                name       varchar(64)  NOT NULL,
                lock_until timestamp    NOT NULL,
                locked_at  timestamp    NOT NULL,
                locked_by  varchar(255) NOT NULL,
                PRIMARY KEY (name)
            );
            """;

    private final JdbcTemplateLockProvider provider;

    private final Duration lockAtMostFor;

    public ShedLockClient(ClientContext context) {
        this.provider = new JdbcTemplateLockProvider(JdbcTemplateLockProvider.Configuration.builder()
                .withJdbcTemplate(new JdbcTemplate(context.dataSource()))
                .usingDbTime()
                .build());
        this.lockAtMostFor = context.leaseTime();
    }

    @Override
    public Held tryAcquire(String key) {
        Optional<SimpleLock> lock =
                provider.lock(new LockConfiguration(ClockProvider.now(), key, lockAtMostFor, Duration.ZERO));
        return lock.<Held>map(l -> l::unlock).orElse(null);
    }

    /** {@code SimpleLock.extend(lockAtMostFor, lockAtLeastFor)}: the lock it returns replaces the one extended. */
    @Override
    public Extendable hold(String key) {
        SimpleLock first = provider.lock(new LockConfiguration(ClockProvider.now(), key, lockAtMostFor, Duration.ZERO))
                .orElseThrow(() -> new IllegalStateException("ShedLock did not get the free key '" + key + "'"));
        return new Extendable() {
            private SimpleLock lock = first;

            @Override
            public boolean extend(Duration leaseTime) {
                Optional<SimpleLock> extended = lock.extend(leaseTime, Duration.ZERO);
                extended.ifPresent(l -> lock = l);
                return extended.isPresent();
            }

            @Override
            public void release() {
                lock.unlock();
            }
        };
    }
}
