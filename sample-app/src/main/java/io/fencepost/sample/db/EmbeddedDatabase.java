package io.fencepost.sample.db;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Starts the embedded PostgreSQL (zonky's binaries, which also run as root) for the app and for run-three.sh, with a
 * role and a database of the sample's own: the application, the lab included, never connects as the superuser, which
 * could run programs on this machine ({@code COPY ... TO PROGRAM}).
 */
final class EmbeddedDatabase {

    /** The sample's role: no superuser, no CREATEDB, no CREATEROLE. */
    static final String ROLE = "fencepost_sample";

    /** The sample's database, owned by {@link #ROLE}, so that its migrations and Fencepost create their tables. */
    static final String DATABASE = "sample";

    /**
     * The sample's role and database, made by the superuser once the server is up. {@code pg_signal_backend} is for the
     * lab's "kill the store" ({@code pg_terminate_backend} of the lab's lock connections): PostgreSQL lets a role end
     * its own sessions anyway, and the grant keeps the kill working should the lock pool ever connect as another role;
     * it can never signal a superuser's session, the only other one on this server.
     */
    private static final String[] CREATE_ROLE_AND_DATABASE_SQL = {
        "CREATE ROLE " + ROLE + " LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE", // trust auth: the server is local only
        "GRANT pg_signal_backend TO " + ROLE,
        "CREATE DATABASE " + DATABASE + " OWNER " + ROLE,
    };

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
            EmbeddedPostgres postgres = builder.start();
            createRoleAndDatabase(postgres);
            return postgres;
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "could not start the embedded PostgreSQL; point the sample at a running server instead with"
                            + " SPRING_DATASOURCE_URL=jdbc:postgresql://HOST:5432/DB (and SPRING_DATASOURCE_USERNAME,"
                            + " SPRING_DATASOURCE_PASSWORD)",
                    e);
        }
    }

    private static void createRoleAndDatabase(EmbeddedPostgres postgres) throws IOException {
        try (Connection superuser = postgres.getPostgresDatabase().getConnection();
                Statement statement = superuser.createStatement()) {
            for (String sql : CREATE_ROLE_AND_DATABASE_SQL) {
                statement.execute(sql);
            }
        } catch (SQLException e) {
            postgres.close();
            throw new IOException("could not create the sample's role and database in the embedded PostgreSQL", e);
        }
    }

    /** The JDBC URL of the sample's database as the sample's own role (not the superuser). */
    static String jdbcUrl(EmbeddedPostgres postgres) {
        return postgres.getJdbcUrl(ROLE, DATABASE);
    }
}
