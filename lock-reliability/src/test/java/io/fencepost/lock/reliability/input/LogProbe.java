package io.fencepost.lock.reliability.input;

import com.zaxxer.hikari.HikariDataSource;
import io.fencepost.lock.Lease;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.jdbc.JdbcFencingGuard;
import io.fencepost.lock.jdbc.PostgresLockManager;
import io.fencepost.lock.reliability.support.FaultyProxy;
import io.fencepost.lock.reliability.support.Options;
import io.fencepost.lock.reliability.support.Pools;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.sql.Connection;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.logging.Formatter;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.StreamHandler;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The JVM of {@link SecretsInLogsTest}: every logger at its most verbose (JUL and so {@code System.Logger} at ALL,
 * SLF4J at trace for Flyway and HikariCP), then every path that handles owner tokens: grants, waits, renewals,
 * releases, losses, store failures, forced releases, terminated connections, fencing rejections. Every exception
 * and every {@code toString} is printed too. Each JUL record is one line, prefixed with its logger.
 *
 * <p>Argument: the JDBC URL of the test database.
 */
public final class LogProbe {

    private LogProbe() {}

    /**
     * Once the manager is built (its schema check may wait for the first connections of a slow, loaded machine), the
     * pool gives up on a connection after a second, so that the stalled-network steps fail fast.
     */
    private static PostgresLockManager failingFast(HikariDataSource pool, PostgresLockManager manager) {
        pool.getHikariConfigMXBean().setConnectionTimeout(1_000);
        return manager;
    }

    public static void main(String[] args) throws Exception {
        installJulAtAll();
        String url = args[0];
        URI uri = URI.create(url.substring("jdbc:".length()));
        PGSimpleDataSource direct = new PGSimpleDataSource();
        direct.setURL(url);
        try (FaultyProxy proxy = new FaultyProxy(uri.getHost(), uri.getPort() < 0 ? 5432 : uri.getPort());
                HikariDataSource pool = Pools.hikari(Pools.viaPort(url, proxy.port()), "log-probe", 6, 30_000);
                PostgresLockManager a = failingFast(
                        pool,
                        PostgresLockManager.builder(pool)
                                .statementTimeout(Duration.ofMillis(800))
                                .holderName("probe-a")
                                .build());
                PostgresLockManager b = PostgresLockManager.builder(direct)
                        .holderName("probe-b")
                        .build()) {
            step("cycles, inspect, held leases, reentrancy", () -> {
                for (int i = 0; i < 5; i++) {
                    try (Lease lease = a.acquire("probe:cycle", LockOptions.of(Duration.ofSeconds(5)));
                            Lease again = a.acquire("probe:cycle", LockOptions.of(Duration.ofSeconds(5)))) {
                        show(lease, again, a, b, a.heldLeases(), b.inspect("probe:cycle"), LockOptions.defaults());
                    }
                }
            });
            step("a waiter woken by a release", () -> {
                Lease held = b.acquire("probe:wait", LockOptions.of(Duration.ofSeconds(5)));
                CompletableFuture<Lease> waiter = CompletableFuture.supplyAsync(() ->
                        a.acquire("probe:wait", Options.leaseAndWait(Duration.ofSeconds(5), Duration.ofSeconds(5))));
                Thread.sleep(300);
                held.release();
                waiter.get(10, TimeUnit.SECONDS).release();
            });
            step("renewals", () -> {
                try (Lease lease = a.acquire("probe:renew", LockOptions.of(Duration.ofMillis(600)))) {
                    Thread.sleep(1_500);
                    show(lease);
                }
            });
            step("a lease lost to a stalled network, its release failing, an acquire failing", () -> {
                Lease lease = a.acquire("probe:stall", LockOptions.of(Duration.ofSeconds(1)));
                proxy.stall();
                Thread.sleep(1_500);
                show(lease);
                attempt(lease::release);
                attempt(() -> {
                    lease.checkHeld();
                    return null;
                });
                attempt(() -> a.acquire("probe:stall2", LockOptions.of(Duration.ofSeconds(1))));
                proxy.resume();
                proxy.cut();
            });
            step("responses held back: an orphaned grant", () -> {
                proxy.stallResponses();
                attempt(() -> a.acquire("probe:orphan", LockOptions.of(Duration.ofSeconds(1))));
                proxy.resume();
                proxy.cut();
            });
            step("a forced release", () -> {
                Lease lease = a.acquire("probe:forced", LockOptions.of(Duration.ofMillis(900)));
                b.forceRelease("probe:forced");
                Thread.sleep(1_200);
                show(lease);
                attempt(lease::release);
            });
            step("terminated connections", () -> {
                Lease held = b.acquire("probe:listen", LockOptions.of(Duration.ofSeconds(2)));
                CompletableFuture<Lease> waiter = CompletableFuture.supplyAsync(() ->
                        a.acquire("probe:listen", Options.leaseAndWait(Duration.ofSeconds(2), Duration.ofSeconds(5))));
                Thread.sleep(300);
                Pools.terminate(url, "log-probe");
                Thread.sleep(300);
                held.release();
                waiter.get(10, TimeUnit.SECONDS).release();
            });
            step("a late release after a takeover, a minimum hold, a rejected fenced write", () -> {
                Lease stale = a.acquire(
                        "probe:late",
                        LockOptions.builder()
                                .leaseTime(Duration.ofMillis(300))
                                .renew(false)
                                .build());
                Thread.sleep(500);
                Lease fresh = b.acquire("probe:late", LockOptions.of(Duration.ofSeconds(2)));
                show(stale, fresh, stale.release());
                fresh.release();
                try (Lease kept = a.acquire(
                        "probe:minhold",
                        LockOptions.builder()
                                .leaseTime(Duration.ofSeconds(2))
                                .minHoldTime(Duration.ofSeconds(1))
                                .build())) {
                    show(kept);
                }
                try (Connection connection = direct.getConnection()) {
                    connection.setAutoCommit(false);
                    JdbcFencingGuard guard = new JdbcFencingGuard();
                    guard.check(connection, "probe:resource", fresh.fencingToken());
                    attempt(() -> {
                        guard.check(connection, "probe:resource", stale.fencingToken());
                        return null;
                    });
                    connection.rollback();
                }
                attempt(() -> a.withLock("probe:work", LockOptions.of(Duration.ofSeconds(1)), lease -> {
                    throw new java.io.IOException("work failed while holding " + lease);
                }));
            });
        }
        System.out.println("PROBE DONE");
    }

    private interface Step {
        void run() throws Exception;
    }

    private static void step(String name, Step step) {
        System.out.println("STEP " + name);
        try {
            step.run();
        } catch (Exception e) {
            print(e);
        }
    }

    private static void attempt(java.util.concurrent.Callable<?> call) {
        try {
            show(call.call());
        } catch (Exception e) {
            print(e);
        }
    }

    private static void show(Object... values) {
        System.out.println("SHOW " + Arrays.deepToString(values));
    }

    private static void print(Throwable e) {
        StringWriter trace = new StringWriter();
        e.printStackTrace(new PrintWriter(trace));
        System.out.println("EXC " + e);
        System.out.println(trace);
    }

    private static void installJulAtAll() {
        LogManager.getLogManager().reset();
        Logger root = Logger.getLogger("");
        root.setLevel(Level.ALL);
        for (String name : new String[] {"org.postgresql", "io.fencepost", "org.flywaydb", "com.zaxxer"}) {
            Logger.getLogger(name).setLevel(Level.ALL);
        }
        Handler handler =
                new StreamHandler(System.out, new Formatter() {
                    @Override
                    public String format(LogRecord record) {
                        StringBuilder line = new StringBuilder("JUL ")
                                .append(record.getLoggerName())
                                .append(' ')
                                .append(record.getLevel())
                                .append(": ")
                                .append(formatMessage(record))
                                .append(" | raw: ")
                                .append(record.getMessage())
                                .append(" | params: ")
                                .append(Arrays.deepToString(record.getParameters()));
                        if (record.getThrown() != null) {
                            StringWriter trace = new StringWriter();
                            record.getThrown().printStackTrace(new PrintWriter(trace));
                            line.append(" | thrown: ").append(trace);
                        }
                        return line.toString().replace("\r", "\\r").replace("\n", "\\n") + System.lineSeparator();
                    }
                }) {
                    @Override
                    public synchronized void publish(LogRecord record) {
                        super.publish(record);
                        flush();
                    }
                };
        handler.setLevel(Level.ALL);
        root.addHandler(handler);
    }
}
