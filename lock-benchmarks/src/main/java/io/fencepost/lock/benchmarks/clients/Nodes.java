package io.fencepost.lock.benchmarks.clients;

import com.zaxxer.hikari.HikariDataSource;
import io.fencepost.lock.benchmarks.Pools;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * The nodes of one JVM in the nodes scenario: each node is a separate application instance of one library, with its
 * own client (its own lock manager, registry, provider or Redisson client) and, on PostgreSQL, its own pool sized to
 * what one thread of that library needs. Dozens of them must fit under the server's {@code max_connections}.
 */
public final class Nodes implements AutoCloseable {

    private final List<LockClient> clients = new ArrayList<>();

    private final List<HikariDataSource> pools = new ArrayList<>();

    private Nodes() {}

    /**
     * Connections one node of {@code library} keeps: Fencepost one for its {@code LISTEN}, one for statements and one
     * for its place in the server's lock queue (kept, like the floor's, while it waits and holds the key); Spring
     * Integration two as headroom (its repository runs every call in a transaction of its own); raw SQL,
     * ShedLock and the durable floor (its advisory lock's connection, kept for the hold) one; Redisson none on
     * PostgreSQL.
     */
    public static int connectionsPerNode(Library library) {
        return switch (library) {
            case FENCEPOST, FENCEPOST_FAIR -> 3;
            case SPRING_INTEGRATION -> 2;
            case REDISSON, REDISSON_FSYNC -> 0;
            default -> 1;
        };
    }

    /** No nodes. */
    public static Nodes none() {
        return new Nodes();
    }

    /**
     * Opens {@code count} nodes of {@code library}, all at once (a manager's start-up checks and a Redisson client's
     * connections take a while, and dozens of nodes open before every round); their pools are named
     * {@code <name>-<i>}. Each node's client has its own pool in place of {@code shared}'s, and the rest of it.
     */
    public static Nodes open(
            Library library, int count, String jdbcUrl, String user, ClientContext shared, String name) {
        Nodes nodes = new Nodes();
        List<Callable<Void>> opens = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String poolName = name + "-" + i;
            opens.add(() -> {
                nodes.openOne(library, jdbcUrl, user, shared, poolName);
                return null;
            });
        }
        try {
            inParallel(opens);
        } catch (RuntimeException e) {
            nodes.close();
            throw e;
        }
        return nodes;
    }

    private void openOne(Library library, String jdbcUrl, String user, ClientContext shared, String name) {
        HikariDataSource pool = null;
        if (connectionsPerNode(library) > 0) {
            pool = Pools.open(jdbcUrl, user, name, connectionsPerNode(library));
            synchronized (this) {
                pools.add(pool);
            }
        }
        ClientContext context = shared.withDataSource(pool);
        LockClient client = switch (library) {
            case REDISSON -> smallRedisson(context);
            case REDISSON_FSYNC -> smallRedisson(context.onFsyncRedis());
            default -> library.open(context);
        };
        synchronized (this) {
            clients.add(client);
        }
    }

    private static void inParallel(List<Callable<Void>> tasks) {
        if (tasks.isEmpty()) {
            return;
        }
        ExecutorService executor = Executors.newFixedThreadPool(tasks.size());
        try {
            for (Future<Void> done : executor.invokeAll(tasks)) {
                done.get();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while opening or closing nodes", e);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException r
                    ? r
                    : new IllegalStateException("opening or closing a node failed", e.getCause());
        } finally {
            executor.shutdownNow();
        }
    }

    /** One client per node. */
    public List<LockClient> clients() {
        return List.copyOf(clients);
    }

    /**
     * Redisson's {@code RLock} as {@link RedissonLockClient} uses it, but with the pools and threads of one client
     * cut to what one thread needs (its defaults keep 24 idle connections and 32 Netty threads per client).
     */
    private static LockClient smallRedisson(ClientContext context) {
        Config config = RedissonLockClient.config(context, null);
        config.useSingleServer()
                .setConnectionMinimumIdleSize(1)
                .setConnectionPoolSize(2)
                .setSubscriptionConnectionMinimumIdleSize(1)
                .setSubscriptionConnectionPoolSize(1);
        config.setNettyThreads(2);
        config.setThreads(2);
        RedissonClient redisson = Redisson.create(config);
        return new ConcurrentLockClient(redisson::getLock) {
            @Override
            public void close() {
                redisson.shutdown();
            }
        };
    }

    /** Closes every node's client and then its pool, all nodes at once (a manager's close may wait for its listener). */
    @Override
    public synchronized void close() {
        List<Callable<Void>> closes = new ArrayList<>();
        for (LockClient client : clients) {
            closes.add(() -> {
                try {
                    client.close();
                } catch (RuntimeException e) {
                    System.err.println("closing a node's client failed: " + e);
                }
                return null;
            });
        }
        inParallel(closes);
        clients.clear();
        pools.forEach(HikariDataSource::close);
        pools.clear();
    }
}
