package io.fencepost.sample.db;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;

/** Starts the embedded PostgreSQL (zonky's binaries, which also run as root) for the app and for run-three.sh. */
final class EmbeddedDatabase {

    private EmbeddedDatabase() {}

    /**
     * Starts a fresh server in a temporary data directory, deleted again by {@link EmbeddedPostgres#close()}.
     *
     * @param port the port, or 0 for a free one
     */
    static EmbeddedPostgres start(int port) {
        // Stopped by whoever owns it (a Spring context), after the pools on it: zonky's own shutdown hook would stop
        // the server while the application is still shutting down on it.
        // fsync and synchronous_commit back to PostgreSQL's defaults (the library turns them off): the lab shows
        // durable grants.
        EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
                .setRegisterShutdownHook(false)
                .setServerConfig("fsync", "on")
                .setServerConfig("synchronous_commit", "on");
        if (port > 0) {
            builder.setPort(port);
        }
        try {
            return builder.start();
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "could not start the embedded PostgreSQL; point the sample at a running server instead with"
                            + " SPRING_DATASOURCE_URL=jdbc:postgresql://HOST:5432/DB (and SPRING_DATASOURCE_USERNAME,"
                            + " SPRING_DATASOURCE_PASSWORD)",
                    e);
        }
    }

    /** The JDBC URL of the server's {@code postgres} database as the {@code postgres} superuser. */
    static String jdbcUrl(EmbeddedPostgres postgres) {
        return postgres.getJdbcUrl("postgres", "postgres");
    }
}
