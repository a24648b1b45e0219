package io.fencepost.lock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.FlywayException;

/**
 * Creates or validates fencepost's lock table and fencing sequence, with fencepost's own Flyway instance and
 * history table so that it never mixes with the application's migrations.
 */
public final class SchemaInitializer {

    /** Where the migration lives in the lock-jdbc jar. */
    static final String MIGRATION_LOCATION = "classpath:io/fencepost/lock/jdbc/migration";

    /** The plain SQL script of the same schema with the default names, for teams that manage DDL by hand. */
    public static final String SCRIPT_RESOURCE = "io/fencepost/lock/jdbc/schema-postgresql.sql";

    private static final String LOOKUP_SQL = """
            SELECT to_regclass(?) IS NOT NULL AS table_exists,
                   to_regclass(?) IS NOT NULL AS sequence_exists,
                   array_to_string(current_schemas(false), ', ') AS schemas
            """;

    private static final String COLUMNS_SQL = """
            SELECT attname, format_type(atttypid, atttypmod) AS type
              FROM pg_attribute
             WHERE attrelid = to_regclass(?) AND attnum > 0 AND NOT attisdropped
            """;

    /** ON CONFLICT (lock_key) needs a plain unique index on exactly that column. */
    private static final String KEY_INDEX_SQL = """
            SELECT EXISTS (
                SELECT 1
                  FROM pg_index i
                  JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
                 WHERE i.indrelid = to_regclass(?) AND i.indisunique AND i.indnkeyatts = 1
                   AND i.indpred IS NULL AND i.indexprs IS NULL AND a.attname = 'lock_key'
            ) AS key_unique
            """;

    /**
     * A grant's fencing token must be a key of the row (a plain unique index on exactly that column), so that a change
     * of grant is a key update that {@link JdbcLeaseGuard}'s key-share lock detects under any isolation level.
     */
    private static final String TOKEN_KEY_SQL = """
            SELECT EXISTS (
                SELECT 1
                  FROM pg_index i
                  JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
                 WHERE i.indrelid = to_regclass(?) AND i.indisunique AND i.indnkeyatts = 1 AND i.indimmediate
                   AND i.indpred IS NULL AND i.indexprs IS NULL AND a.attname = 'fencing_token'
            ) AS token_unique
            """;

    private static final String SEQUENCE_SQL = """
            SELECT format_type(seqtypid, NULL) AS type, seqincrement, seqcache, seqcycle
              FROM pg_sequence
             WHERE seqrelid = to_regclass(?)
            """;

    private static final Map<String, String> EXPECTED_COLUMNS = expectedColumns();

    private static final Map<String, String> EXPECTED_QUEUE_COLUMNS = Map.of(
            "lock_key", "character varying(255)",
            "ticket", "bigint",
            "waiter", "uuid",
            "expires_at", "timestamp with time zone",
            "owner_token", "uuid",
            "holder", "character varying(255)",
            "lease_ms", "bigint");

    private final DataSource dataSource;

    private final TableName tableName;

    /**
     * An initializer for {@code tableName} and its sequence, which resolve through the {@code search_path} of
     * the data source's connections, as in the lock statements.
     *
     * @throws IllegalArgumentException for an invalid table name
     */
    public SchemaInitializer(DataSource dataSource, String tableName) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.tableName = TableName.of(tableName);
    }

    /**
     * Does what {@code mode} says.
     *
     * @throws LockSchemaException when the schema could not be created or is not as expected
     */
    public void apply(SchemaMode mode) {
        switch (Objects.requireNonNull(mode, "mode")) {
            case CREATE -> create();
            case VALIDATE -> validate();
            case NONE -> {}
        }
    }

    /**
     * Applies fencepost's migration (creating the table and sequence, or adopting ones made by hand from the
     * plain script), then validates.
     *
     * @throws LockSchemaException when Flyway fails or the result is not as expected
     */
    public void create() {
        try {
            flyway().migrate();
        } catch (FlywayException e) {
            throw new LockSchemaException(
                    tableName.table(),
                    "could not create fencepost's lock table '" + tableName.table() + "' with Flyway (history table '"
                            + tableName.schemaHistoryTable() + "'): " + e.getMessage()
                            + "; check that the database is reachable and that the role may create a table and a"
                            + " sequence in its schema, or create them by hand with " + SCRIPT_RESOURCE
                            + " from the lock-jdbc jar and use SchemaMode.VALIDATE",
                    e);
        }
        validate();
    }

    /**
     * Checks that the table and sequence exist with the shape the lock statements need.
     *
     * @throws LockSchemaException naming what is missing or wrong and how to fix it
     */
    public void validate() {
        List<String> problems;
        try (Connection connection = dataSource.getConnection()) {
            problems = problems(connection);
        } catch (SQLException e) {
            throw new LockSchemaException(
                    tableName.table(),
                    "could not check fencepost's lock table '" + tableName.table() + "' (SQLState " + e.getSQLState()
                            + "): " + e.getMessage() + "; check the database connection",
                    e);
        }
        if (!problems.isEmpty()) {
            throw new LockSchemaException(
                    tableName.table(),
                    "fencepost's lock table '" + tableName.table() + "' is not as expected: "
                            + String.join("; ", problems) + ". Fix it to match " + SCRIPT_RESOURCE
                            + " from the lock-jdbc jar, or drop the table and its sequence and let fencepost create"
                            + " them (SchemaMode.CREATE, fencepost.jdbc.initialize-schema=create)");
        }
    }

    private List<String> problems(Connection connection) throws SQLException {
        String table = tableName.quotedTable();
        String sequence = tableName.quotedSequence();
        boolean tableExists;
        boolean sequenceExists;
        String schemas;
        try (PreparedStatement lookup = connection.prepareStatement(LOOKUP_SQL)) {
            lookup.setString(1, table);
            lookup.setString(2, sequence);
            try (ResultSet rows = lookup.executeQuery()) {
                rows.next();
                tableExists = rows.getBoolean("table_exists");
                sequenceExists = rows.getBoolean("sequence_exists");
                schemas = rows.getString("schemas");
            }
        }
        if (!tableExists || !sequenceExists) {
            String missing = !tableExists && !sequenceExists
                    ? "the table and its sequence '" + tableName.sequence() + "' do"
                    : !tableExists ? "the table does" : "its sequence '" + tableName.sequence() + "' does";
            throw new LockSchemaException(
                    tableName.table(),
                    "fencepost's lock table '" + tableName.table() + "' is not ready: " + missing
                            + " not exist in the schemas of the connection's search_path [" + schemas
                            + "]. Let fencepost create them (SchemaMode.CREATE, fencepost.jdbc.initialize-schema=create),"
                            + " or run " + SCRIPT_RESOURCE + " from the lock-jdbc jar");
        }
        List<String> problems = new ArrayList<>();
        checkColumns(connection, table, EXPECTED_COLUMNS, "", problems);
        // The queue table holds waiter registrations, which every waiting exclusive acquire writes. Its ticket column
        // is each registration's place; rows without an owner token are the tickets of instances from before
        // registrations replaced them, which no statement of this version writes.
        checkColumns(
                connection,
                tableName.quotedQueueTable(),
                EXPECTED_QUEUE_COLUMNS,
                tableName.table() + "_queue.",
                problems);
        checkKeyIndex(connection, table, problems);
        checkSequence(connection, sequence, problems);
        return problems;
    }

    private static void checkColumns(
            Connection connection, String table, Map<String, String> expected, String prefix, List<String> problems)
            throws SQLException {
        Map<String, String> actual = new HashMap<>();
        try (PreparedStatement columns = connection.prepareStatement(COLUMNS_SQL)) {
            columns.setString(1, table);
            try (ResultSet rows = columns.executeQuery()) {
                while (rows.next()) {
                    actual.put(rows.getString("attname"), rows.getString("type"));
                }
            }
        }
        expected.forEach((column, type) -> {
            String actualType = actual.get(column);
            if (actualType == null) {
                problems.add("column " + prefix + column + " (" + type + ") is missing");
            } else if (!actualType.equals(type)) {
                problems.add("column " + prefix + column + " is " + actualType + ", expected " + type);
            }
        });
    }

    private void checkKeyIndex(Connection connection, String table, List<String> problems) throws SQLException {
        try (PreparedStatement index = connection.prepareStatement(KEY_INDEX_SQL)) {
            index.setString(1, table);
            try (ResultSet rows = index.executeQuery()) {
                rows.next();
                if (!rows.getBoolean("key_unique")) {
                    problems.add("lock_key is not its primary key (a unique index on lock_key alone is needed)");
                }
            }
        }
        try (PreparedStatement index = connection.prepareStatement(TOKEN_KEY_SQL)) {
            index.setString(1, table);
            try (ResultSet rows = index.executeQuery()) {
                rows.next();
                if (!rows.getBoolean("token_unique")) {
                    problems.add("fencing_token has no unique index (CREATE UNIQUE INDEX " + tableName.tokenKey()
                            + " ON " + tableName.table() + " (fencing_token))");
                }
            }
        }
    }

    private void checkSequence(Connection connection, String sequence, List<String> problems) throws SQLException {
        try (PreparedStatement check = connection.prepareStatement(SEQUENCE_SQL)) {
            check.setString(1, sequence);
            try (ResultSet rows = check.executeQuery()) {
                if (!rows.next()) {
                    problems.add("'" + tableName.sequence() + "' is not a sequence");
                    return;
                }
                if (!"bigint".equals(rows.getString("type"))) {
                    problems.add(
                            "sequence " + tableName.sequence() + " is " + rows.getString("type") + ", expected bigint");
                }
                if (rows.getLong("seqincrement") <= 0) {
                    problems.add("sequence " + tableName.sequence() + " must increase (INCREMENT 1), its increment is "
                            + rows.getLong("seqincrement"));
                }
                if (rows.getLong("seqcache") != 1) {
                    problems.add("sequence " + tableName.sequence() + " has CACHE " + rows.getLong("seqcache")
                            + ", expected CACHE 1 (a per-session cache hands out tokens out of grant order)");
                }
                if (rows.getBoolean("seqcycle")) {
                    problems.add("sequence " + tableName.sequence() + " is CYCLE, expected NO CYCLE");
                }
            }
        }
    }

    private Flyway flyway() {
        return Flyway.configure(SchemaInitializer.class.getClassLoader())
                .dataSource(dataSource)
                .locations(MIGRATION_LOCATION)
                .table(tableName.schemaHistoryTable())
                .placeholders(Map.of(
                        "table", tableName.quotedTable(),
                        "sequence", tableName.quotedSequence(),
                        "fence_table", tableName.quotedFenceTable(),
                        "queue_table", tableName.quotedQueueTable(),
                        "token_key", tableName.quotedTokenKey()))
                // The application's schema is rarely empty, and Flyway refuses a non-empty schema without its
                // history table unless it may baseline. Baselining at version 0 records only a marker: V1 and
                // every later migration of ours still run.
                .baselineOnMigrate(true)
                .baselineVersion("0")
                .baselineDescription("fencepost baseline")
                .createSchemas(false)
                .cleanDisabled(true)
                .failOnMissingLocations(true)
                .load();
    }

    private static Map<String, String> expectedColumns() {
        Map<String, String> columns = new LinkedHashMap<>();
        columns.put("lock_key", "character varying(255)");
        columns.put("owner_token", "uuid");
        columns.put("holder", "character varying(255)");
        columns.put("fencing_token", "bigint");
        columns.put("acquired_at", "timestamp with time zone");
        columns.put("expires_at", "timestamp with time zone");
        columns.put("contended", "boolean");
        columns.put("lease_mode", "text");
        columns.put("permits", "integer");
        columns.put("holders", "jsonb");
        columns.put("exclusive_waits_until", "timestamp with time zone");
        return columns;
    }

    @Override
    public String toString() {
        return "SchemaInitializer[table=" + tableName.table() + "]";
    }
}
