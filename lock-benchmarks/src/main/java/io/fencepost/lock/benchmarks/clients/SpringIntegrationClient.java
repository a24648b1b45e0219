package io.fencepost.lock.benchmarks.clients;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import org.springframework.integration.jdbc.lock.DefaultLockRepository;
import org.springframework.integration.jdbc.lock.JdbcLockRegistry;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/**
 * Spring Integration's {@code JdbcLockRegistry} over a {@code DefaultLockRepository} with its defaults (time to live
 * 10 s, 100 ms between tries), initialised through the same lifecycle callbacks its container would call.
 */
public final class SpringIntegrationClient extends ConcurrentLockClient implements ExtendableClient {

    private static final String SCHEMA_RESOURCE = "org/springframework/integration/jdbc/schema-postgresql.sql";

    private final DefaultLockRepository repository;

    private final JdbcLockRegistry registry;

    public SpringIntegrationClient(ClientContext context) {
        this(startedRepository(context));
    }

    private SpringIntegrationClient(DefaultLockRepository repository) {
        this(repository, new JdbcLockRegistry(repository));
    }

    private SpringIntegrationClient(DefaultLockRepository repository, JdbcLockRegistry registry) {
        super(registry::obtain);
        this.repository = repository;
        this.registry = registry;
    }

    /** {@code JdbcLockRegistry.renewLock(key, ttl)}, which the thread holding the lock calls. */
    @Override
    public Extendable hold(String key) {
        java.util.concurrent.locks.Lock lock = registry.obtain(key);
        if (!lock.tryLock()) {
            throw new IllegalStateException("Spring Integration did not get the free key '" + key + "'");
        }
        return new Extendable() {
            @Override
            public boolean extend(Duration leaseTime) {
                registry.renewLock(key, leaseTime);
                return true; // it throws when the lock is not held by this thread or no longer ours in the table
            }

            @Override
            public void release() {
                lock.unlock();
            }
        };
    }

    /** A repository started as its container would start it: one per application instance (one client id). */
    public static DefaultLockRepository startedRepository(ClientContext context) {
        DefaultLockRepository repository = new DefaultLockRepository(context.dataSource());
        // In an application the repository finds the context's transaction manager; here there is no context.
        repository.setTransactionManager(new DataSourceTransactionManager(context.dataSource()));
        repository.afterPropertiesSet();
        repository.afterSingletonsInstantiated();
        repository.start();
        return repository;
    }

    /** The {@code INT_LOCK} DDL for PostgreSQL, as shipped in the spring-integration-jdbc jar. */
    public static List<String> schemaStatements() {
        try (InputStream in = SpringIntegrationClient.class.getClassLoader().getResourceAsStream(SCHEMA_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(SCHEMA_RESOURCE + " is not on the class path");
            }
            String script = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))
                    .lines()
                    .filter(line -> !line.trim().startsWith("--"))
                    .collect(Collectors.joining("\n"));
            return Arrays.stream(script.split(";"))
                    .map(String::trim)
                    .filter(statement -> statement.matches("(?is).*\\bINT_LOCK\\b.*"))
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        repository.stop();
        repository.close();
    }
}
