package io.fencepost.lock.benchmarks.scenarios;

import com.zaxxer.hikari.HikariDataSource;
import io.fencepost.lock.DistributedLock;
import io.fencepost.lock.benchmarks.Harness;
import io.fencepost.lock.benchmarks.Pools;
import io.fencepost.lock.benchmarks.Samples;
import io.fencepost.lock.benchmarks.Settings;
import io.fencepost.lock.benchmarks.wire.CountingSocketFactory;
import io.fencepost.lock.spring.autoconfigure.LockAutoConfiguration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongConsumer;
import javax.sql.DataSource;
import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;

/**
 * The cost of {@code @DistributedLock(fenceTransaction = true)}: the same annotated {@code @Transactional} method (one
 * {@code UPDATE} of a row of its own key) called through the starter's proxy on PostgreSQL, without and with the fence.
 * Batches of both alternate for the window; per round each variant's median batch. Statements are counted in the
 * JDBC driver's socket.
 */
public final class FencedTransactionScenario {

    /** Calls between two clock readings. */
    private static final int BATCH = 50;

    private static final int ACCOUNTS = 1024;

    private static final String POOL = "fencepost-bench-fenced";

    private final Harness harness;

    public FencedTransactionScenario(Harness harness) {
        this.harness = harness;
    }

    /** The locked bean: one method per variant. */
    public static class Accounts {

        private final JdbcTemplate jdbc;

        public Accounts(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        @DistributedLock(key = "'account:' + #id")
        @Transactional
        public int deposit(long id) {
            return jdbc.update("UPDATE bench_account SET balance = balance + 1 WHERE id = ?", id);
        }

        @DistributedLock(key = "'account:' + #id", fenceTransaction = true)
        @Transactional
        public int depositFenced(long id) {
            return jdbc.update("UPDATE bench_account SET balance = balance + 1 WHERE id = ?", id);
        }
    }

    /** The application: the starter on a pool, a JDBC transaction manager and the bean. */
    @Configuration(proxyBeanMethods = false)
    @EnableTransactionManagement
    @ImportAutoConfiguration(LockAutoConfiguration.class)
    static class Application {

        static HikariDataSource pool;

        @Bean(destroyMethod = "")
        DataSource dataSource() {
            return pool;
        }

        @Bean
        JdbcTransactionManager transactionManager(DataSource dataSource) {
            return new JdbcTransactionManager(dataSource);
        }

        @Bean
        Accounts accounts(DataSource dataSource) {
            return new Accounts(new JdbcTemplate(dataSource));
        }
    }

    public List<FencedTransactionResult> run() throws Exception {
        Settings settings = harness.settings();
        String url = settings.jdbcUrl(settings.database()) + "&" + CountingSocketFactory.URL_PARAMETER;
        List<FencedTransactionResult> rounds = new ArrayList<>();
        try (HikariDataSource pool = Pools.open(url, settings.pgUser(), POOL, 4)) {
            new JdbcTemplate(pool)
                    .execute(
                            "CREATE TABLE IF NOT EXISTS bench_account (id bigint PRIMARY KEY, balance bigint NOT NULL);"
                                    + " INSERT INTO bench_account SELECT g, 0 FROM generate_series(0, " + (ACCOUNTS - 1)
                                    + ") AS g ON CONFLICT DO NOTHING");
            Application.pool = pool;
            try (AnnotationConfigApplicationContext context =
                    new AnnotationConfigApplicationContext(Application.class)) {
                Accounts accounts = context.getBean(Accounts.class);
                if (!AopUtils.isAopProxy(accounts)) {
                    throw new IllegalStateException(
                            "@DistributedLock did not proxy the bean: the starter is not wired");
                }
                long windowNanos = 2 * settings.annotationWindow().toNanos();
                measure(accounts, windowNanos);
                for (int round = 0; round <= settings.rounds(); round++) {
                    FencedTransactionResult result = measure(accounts, windowNanos);
                    harness.log("fenced transaction " + (round == 0 ? "warm-up" : "round " + round)
                            + ": %.0f µs, %.2f statements per call without the fence; %.0f µs, %.2f with it"
                                    .formatted(
                                            result.plainMicros(),
                                            result.plainStatements(),
                                            result.fencedMicros(),
                                            result.fencedStatements()));
                    if (round > 0) {
                        rounds.add(result);
                    }
                }
            } finally {
                Application.pool = null;
            }
        }
        return rounds;
    }

    private FencedTransactionResult measure(Accounts accounts, long windowNanos) {
        Batches plain = new Batches(accounts::deposit);
        Batches fenced = new Batches(accounts::depositFenced);
        long end = System.nanoTime() + windowNanos;
        long id = 0;
        while (System.nanoTime() < end) {
            id = plain.run(id);
            id = fenced.run(id);
        }
        return new FencedTransactionResult(
                plain.microsPerCall(), fenced.microsPerCall(), plain.statementsPerCall(), fenced.statementsPerCall());
    }

    /** One variant's batches, alternating with the other's: how long each took and the statements it sent. */
    private static final class Batches {

        private final LongConsumer call;

        private final Samples durations = new Samples();

        private long statements;

        private long calls;

        Batches(LongConsumer call) {
            this.call = call;
        }

        /** One batch of calls on the accounts from {@code id} on; returns the id the next batch starts from. */
        long run(long id) {
            CountingSocketFactory.COUNTER.reset();
            long t0 = System.nanoTime();
            for (int i = 0; i < BATCH; i++) {
                call.accept(id++ % ACCOUNTS);
            }
            durations.add(System.nanoTime() - t0);
            statements += CountingSocketFactory.COUNTER.counts().statements();
            calls += BATCH;
            return id;
        }

        /** The median batch's time per call. */
        double microsPerCall() {
            return durations.percentile(50) / BATCH / 1e3;
        }

        double statementsPerCall() {
            return (double) statements / calls;
        }
    }
}
