package io.fencepost.lock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import io.fencepost.lock.spi.AcquireRequest;
import io.fencepost.lock.spi.AcquireResult;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The schema: fencepost's own Flyway migration, the plain script, and validation. Each test works in a schema
 * of its own, reached through the connection's search_path as an application's would be.
 */
@Tag("server-version")
class SchemaInitializerTest {

    @RegisterExtension
    static final PostgresTestDatabase db = new PostgresTestDatabase();

    /** A new, empty schema and connections whose search_path starts with it. */
    private static DataSource freshSchema() {
        String schema = "s_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        db.execute("CREATE SCHEMA " + schema);
        PGSimpleDataSource dataSource = db.unpooledDataSource();
        dataSource.setCurrentSchema(schema);
        return dataSource;
    }

    @Test
    void createMakesTheTableAndSequenceWithItsOwnHistoryTableAndIsIdempotent() throws SQLException {
        DataSource schema = freshSchema();
        SchemaInitializer initializer = new SchemaInitializer(schema, "distributed_lock");

        initializer.create();
        initializer.create();

        assertThat(relations(schema))
                .containsExactlyInAnyOrder(
                        "distributed_lock:r",
                        "distributed_lock_pkey:i",
                        "distributed_lock_token_key:i",
                        "distributed_lock_fence_seq:S",
                        "distributed_lock_fence:r",
                        "distributed_lock_fence_pkey:i",
                        "distributed_lock_queue:r",
                        "distributed_lock_queue_pkey:i",
                        "distributed_lock_schema_history:r",
                        "distributed_lock_schema_history_s_idx:i",
                        "distributed_lock_schema_history_pk:i");
        assertThat(query(
                        schema,
                        "SELECT version || ':' || success FROM distributed_lock_schema_history"
                                + " WHERE type = 'SQL' ORDER BY installed_rank"))
                .containsExactly("1:true", "2:true", "3:true", "4:true", "5:true", "6:true", "7:true");
        initializer.validate();
    }

    @Test
    void aCustomTableNameNamesTheSequenceAndHistoryTableToo() throws SQLException {
        DataSource schema = freshSchema();

        new SchemaInitializer(schema, "app_locks").apply(SchemaMode.CREATE);

        assertThat(relations(schema))
                .contains("app_locks:r", "app_locks_fence_seq:S", "app_locks_schema_history:r")
                .doesNotContain("flyway_schema_history:r", "distributed_lock:r");
    }

    @Test
    void aTableNameThatIsAnSqlKeywordWorks() throws SQLException {
        DataSource schema = freshSchema();

        new SchemaInitializer(schema, "user").create();

        assertThat(relations(schema)).contains("user:r", "user_fence_seq:S");
        PostgresLeaseStore store = new PostgresLeaseStore(schema, "user", Duration.ofSeconds(5));
        assertThat(store.acquire(
                        new AcquireRequest("k", UUID.randomUUID().toString(), "a", Duration.ofSeconds(5), false)))
                .isInstanceOf(AcquireResult.Granted.class);
    }

    @Test
    void createWorksInASchemaThatAlreadyHoldsTheApplicationsTables() throws SQLException {
        DataSource schema = freshSchema();
        execute(schema, "CREATE TABLE invoice (id bigint PRIMARY KEY)");

        new SchemaInitializer(schema, "distributed_lock").create();

        assertThat(relations(schema)).contains("invoice:r", "distributed_lock:r", "distributed_lock_fence_seq:S");
    }

    @Test
    void theApplicationsOwnFlywayHistoryIsLeftAlone() throws SQLException {
        DataSource schema = freshSchema();
        execute(schema, "CREATE TABLE flyway_schema_history (installed_rank int PRIMARY KEY, version text)");
        execute(schema, "INSERT INTO flyway_schema_history VALUES (1, '42')");

        new SchemaInitializer(schema, "distributed_lock").create();

        assertThat(query(schema, "SELECT version FROM flyway_schema_history")).containsExactly("42");
    }

    @Test
    void thePlainScriptAndTheMigrationMakeTheSameSchema() throws Exception {
        DataSource plain = freshSchema();
        DataSource migrated = freshSchema();

        execute(plain, plainScript());
        new SchemaInitializer(migrated, "distributed_lock").create();

        String columns = """
                SELECT column_name || ' ' || data_type || ' ' || coalesce(character_maximum_length::text, '-')
                       || ' ' || is_nullable || ' ' || coalesce(collation_name, '-') || ' ' || ordinal_position
                       || ' ' || coalesce(col_description(to_regclass('distributed_lock'), ordinal_position::int), '-')
                  FROM information_schema.columns
                 WHERE table_schema = current_schema() AND table_name = 'distributed_lock'
                 ORDER BY ordinal_position
                """;
        String sequence = """
                SELECT data_type || ' ' || start_value || ' ' || increment_by || ' ' || cache_size || ' ' || cycle
                       || ' ' || coalesce(obj_description(to_regclass('distributed_lock_fence_seq'), 'pg_class'), '-')
                  FROM pg_sequences WHERE schemaname = current_schema() AND sequencename = 'distributed_lock_fence_seq'
                """;
        // PostgreSQL 18 also records each NOT NULL as a constraint (contype 'n'); the columns' is_nullable above
        // already compares those, on every version.
        String constraints = """
                SELECT conname || ' ' || contype::text || ' ' || pg_get_constraintdef(oid)
                       || ' ' || coalesce(obj_description(conrelid, 'pg_class'), '-')
                  FROM pg_constraint WHERE conrelid = to_regclass('distributed_lock') AND contype <> 'n'
                 ORDER BY conname
                """;
        assertThat(query(plain, columns)).hasSize(11).isEqualTo(query(migrated, columns));
        String fenceColumns = columns.replace("'distributed_lock'", "'distributed_lock_fence'");
        assertThat(query(plain, fenceColumns)).hasSize(3).isEqualTo(query(migrated, fenceColumns));
        String queueColumns = columns.replace("'distributed_lock'", "'distributed_lock_queue'");
        assertThat(query(plain, queueColumns)).hasSize(7).isEqualTo(query(migrated, queueColumns));
        assertThat(query(plain, sequence)).hasSize(1).isEqualTo(query(migrated, sequence));
        assertThat(query(plain, constraints)).hasSize(2).isEqualTo(query(migrated, constraints));
        String indexes = """
                SELECT indexname || ' ' || replace(indexdef, current_schema() || '.', '') FROM pg_indexes
                 WHERE schemaname = current_schema() AND tablename = 'distributed_lock' ORDER BY indexname
                """;
        assertThat(query(plain, indexes)).hasSize(2).isEqualTo(query(migrated, indexes));
        assertThat(query(plain, sequence).get(0)).startsWith("bigint 1 1 1 false");
        new SchemaInitializer(plain, "distributed_lock").validate();
    }

    @Test
    void createAdoptsASchemaMadeByHandFromThePlainScript() throws Exception {
        DataSource schema = freshSchema();
        execute(schema, plainScript());
        execute(schema, "INSERT INTO distributed_lock VALUES ('k', gen_random_uuid(), 'h', 1, now(), now())");

        new SchemaInitializer(schema, "distributed_lock").create();

        assertThat(query(schema, "SELECT lock_key FROM distributed_lock")).containsExactly("k");
    }

    @Test
    void validateWithoutTheSchemaSaysHowToCreateIt() {
        DataSource schema = freshSchema();

        assertThatThrownBy(() -> new SchemaInitializer(schema, "distributed_lock").validate())
                .isInstanceOf(LockSchemaException.class)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("'distributed_lock' is not ready")
                .hasMessageContaining("the table and its sequence 'distributed_lock_fence_seq' do not exist")
                .hasMessageContaining("SchemaMode.CREATE")
                .hasMessageContaining("initialize-schema")
                .hasMessageContaining("schema-postgresql.sql");
    }

    @Test
    void validateNamesAMissingSequence() {
        DataSource schema = freshSchema();
        new SchemaInitializer(schema, "distributed_lock").create();
        execute(schema, "DROP SEQUENCE distributed_lock_fence_seq");

        assertThatThrownBy(() -> new SchemaInitializer(schema, "distributed_lock").apply(SchemaMode.VALIDATE))
                .isInstanceOf(LockSchemaException.class)
                .hasMessageContaining("its sequence 'distributed_lock_fence_seq' does not exist");
    }

    @Test
    void validateNamesEachWrongColumnAndACachedSequence() {
        DataSource schema = freshSchema();
        execute(schema, """
                CREATE SEQUENCE distributed_lock_fence_seq CACHE 20;
                CREATE TABLE distributed_lock (lock_key text, holder varchar(255), fencing_token int,
                    acquired_at timestamptz, expires_at timestamp);
                """);

        assertThatThrownBy(() -> new SchemaInitializer(schema, "distributed_lock").validate())
                .isInstanceOf(LockSchemaException.class)
                .hasMessageContaining("column lock_key is text, expected character varying(255)")
                .hasMessageContaining("column owner_token (uuid) is missing")
                .hasMessageContaining("column fencing_token is integer, expected bigint")
                .hasMessageContaining(
                        "column expires_at is timestamp without time zone, expected timestamp with time zone")
                .hasMessageContaining("lock_key is not its primary key")
                .hasMessageContaining("fencing_token has no unique index")
                .hasMessageContaining("CACHE 20, expected CACHE 1")
                .hasMessageContaining("schema-postgresql.sql")
                .message()
                .doesNotContain("column holder ");
    }

    @Test
    void validateNamesTheWaiterColumnsAQueueTableOfAnEarlierVersionLacks() {
        DataSource schema = freshSchema();
        new SchemaInitializer(schema, "distributed_lock").create();
        // As the schema stood before waiters registered: every waiting acquire would fail on it.
        execute(schema, "ALTER TABLE distributed_lock_queue DROP COLUMN owner_token, DROP COLUMN lease_ms");

        assertThatThrownBy(() -> new SchemaInitializer(schema, "distributed_lock").validate())
                .isInstanceOf(LockSchemaException.class)
                .hasMessageContaining("column distributed_lock_queue.owner_token (uuid) is missing")
                .hasMessageContaining("column distributed_lock_queue.lease_ms (bigint) is missing")
                .message()
                .doesNotContain("distributed_lock_queue.holder");
    }

    @Test
    void noneTouchesNothing() throws SQLException {
        DataSource schema = freshSchema();

        new SchemaInitializer(schema, "distributed_lock").apply(SchemaMode.NONE);

        assertThat(relations(schema)).isEmpty();
    }

    @Test
    void aFailedMigrationSaysWhatToDo() {
        DataSource schema = freshSchema();
        // A history table of some other shape: Flyway cannot use it.
        execute(schema, "CREATE TABLE distributed_lock_schema_history (nonsense int)");

        assertThatThrownBy(() -> new SchemaInitializer(schema, "distributed_lock").create())
                .isInstanceOf(LockSchemaException.class)
                .hasMessageContaining("could not create fencepost's lock table 'distributed_lock' with Flyway")
                .hasMessageContaining("schema-postgresql.sql");
    }

    static String plainScript() throws IOException {
        try (InputStream script =
                SchemaInitializer.class.getClassLoader().getResourceAsStream(SchemaInitializer.SCRIPT_RESOURCE)) {
            assertThat(script).as(SchemaInitializer.SCRIPT_RESOURCE).isNotNull();
            return new String(script.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static List<String> relations(DataSource schema) throws SQLException {
        return query(
                schema,
                "SELECT relname || ':' || relkind::text FROM pg_class WHERE relnamespace = current_schema()::regnamespace");
    }

    private static void execute(DataSource dataSource, String sql) {
        try (Connection connection = dataSource.getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static List<String> query(DataSource dataSource, String sql) throws SQLException {
        try (Connection connection = dataSource.getConnection();
                PreparedStatement statement = connection.prepareStatement(sql);
                ResultSet rows = statement.executeQuery()) {
            List<String> result = new ArrayList<>();
            while (rows.next()) {
                result.add(rows.getString(1));
            }
            return result;
        }
    }
}
