package io.fencepost.lock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fencepost.lock.Lease;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Fair mode: waiters of two JVMs are granted the key in the order they arrived. */
class FairModeTest {

    @RegisterExtension
    static PostgresTestDatabase db = new PostgresTestDatabase(8);

    @Test
    void fairWaitersAcrossTwoJvmsAreGrantedInArrivalOrder() throws Exception {
        String key = "fair:two-jvms";
        LockOptions fair = LockOptions.builder()
                .leaseTime(Duration.ofSeconds(30))
                .waitTime(Duration.ofSeconds(60))
                .fair(true)
                .build();
        Map<String, Long> tokens = new ConcurrentHashMap<>();
        ExecutorService threads = Executors.newCachedThreadPool();
        PostgresLockManager.create(db.dataSource()).close(); // the schema, before the worker validates it
        Process worker = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-cp",
                        System.getProperty("java.class.path"),
                        FairWorker.class.getName(),
                        db.jdbcUrl(),
                        key)
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        try (PostgresLockManager holder = PostgresLockManager.create(db.dataSource());
                PostgresLockManager local = PostgresLockManager.create(db.dataSource())) {
            BufferedReader fromWorker =
                    new BufferedReader(new InputStreamReader(worker.getInputStream(), StandardCharsets.UTF_8));
            PrintWriter toWorker =
                    new PrintWriter(new OutputStreamWriter(worker.getOutputStream(), StandardCharsets.UTF_8), true);
            assertThat(fromWorker.readLine()).isEqualTo("ready");
            threads.submit(() -> {
                String line;
                while ((line = fromWorker.readLine()) != null) {
                    String[] parts = line.split(" ");
                    tokens.put(parts[1], Long.parseLong(parts[2]));
                }
                return null;
            });
            Lease held = holder.acquire(key, LockOptions.of(Duration.ofMinutes(1)));

            List<String> arrivals = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                String name = "w" + i;
                arrivals.add(name);
                if (i % 2 == 0) {
                    threads.submit(() -> {
                        try (Lease lease = local.acquire(key, fair)) {
                            tokens.put(name, lease.fencingToken());
                        }
                        return null;
                    });
                } else {
                    toWorker.println("wait " + name);
                }
                int queued = i + 1;
                await().atMost(Duration.ofSeconds(10)).until(() -> queueLength(key) == queued);
            }

            held.release();
            await().atMost(Duration.ofSeconds(30)).until(() -> tokens.size() == 6);
            toWorker.close();

            List<String> grantOrder = tokens.entrySet().stream()
                    .sorted(Map.Entry.comparingByValue(Comparator.naturalOrder()))
                    .map(Map.Entry::getKey)
                    .toList();
            assertThat(grantOrder).containsExactlyElementsOf(arrivals);
            assertThat(worker.waitFor(30, TimeUnit.SECONDS)).isTrue();
        } finally {
            threads.shutdownNow();
            worker.destroyForcibly();
        }
    }

    /**
     * Two managers with several fair waiters each: the order is the order of the calls, also when a manager's waiters
     * found the key busy a moment ago (which, for ordinary waiters, sends them to the server's lock queue first: a
     * manager's place there is shared by all its callers, so a later caller of the manager holding it would register
     * past an earlier caller of the other one, still blocked behind that place).
     */
    @Test
    void fairWaitersOfTwoManagersOnAHotKeyAreGrantedInCallOrder() throws Exception {
        String key = "fair:hot-key";
        LockOptions fair = LockOptions.builder()
                .leaseTime(Duration.ofSeconds(30))
                .waitTime(Duration.ofSeconds(60))
                .fair(true)
                .build();
        Map<String, Long> tokens = new ConcurrentHashMap<>();
        ExecutorService threads = Executors.newCachedThreadPool();
        try (PostgresLockManager holder = PostgresLockManager.create(db.dataSource());
                PostgresLockManager first = PostgresLockManager.create(db.dataSource());
                PostgresLockManager second = PostgresLockManager.create(db.dataSource())) {
            Lease held = holder.acquire(key, LockOptions.of(Duration.ofMinutes(1)));
            List<String> calls = List.of("a0", "a1", "b2", "b3", "a4");
            for (String name : calls) {
                PostgresLockManager locks = name.startsWith("a") ? first : second;
                int before = queueLength(key);
                threads.submit(() -> {
                    try (Lease lease = locks.acquire(key, fair)) {
                        tokens.put(name, lease.fencingToken());
                    }
                    return null;
                });
                // the call has arrived: registered, or blocked in the server's lock queue
                await().atMost(Duration.ofSeconds(10))
                        .until(() -> queueLength(key) > before || blockedInTheLockQueue() > 0);
            }

            held.release();
            await().atMost(Duration.ofSeconds(30)).until(() -> tokens.size() == calls.size());

            List<String> grantOrder = tokens.entrySet().stream()
                    .sorted(Map.Entry.comparingByValue(Comparator.naturalOrder()))
                    .map(Map.Entry::getKey)
                    .toList();
            assertThat(grantOrder).containsExactlyElementsOf(calls);
        } finally {
            threads.shutdownNow();
        }
    }

    /** Sessions of this database waiting for an advisory lock: in this test, only a wait in a key's lock queue. */
    private static int blockedInTheLockQueue() throws Exception {
        try (Connection connection = db.dataSource().getConnection();
                Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'"
                        + " AND NOT granted AND database = (SELECT oid FROM pg_database"
                        + " WHERE datname = current_database())")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    private static int queueLength(String key) throws Exception {
        try (Connection connection = db.dataSource().getConnection();
                Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("SELECT count(*) FROM distributed_lock_queue WHERE lock_key = '"
                        + key.replace("'", "''") + "' AND expires_at > clock_timestamp()")) {
            rs.next();
            return rs.getInt(1);
        }
    }
}
