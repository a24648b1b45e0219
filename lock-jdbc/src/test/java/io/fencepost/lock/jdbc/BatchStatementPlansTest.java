package io.fencepost.lock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The statements that name their keys in arrays (a set's acquire and release, the batched renewals) find their rows
 * through the primary key, however many rows the table holds. The driver prepares each statement once per connection,
 * so PostgreSQL soon runs it with its generic plan, planned without the arrays' contents: a statement that matches
 * rows only by joining the table to {@code unnest} gets a hash join over the whole table there from a few thousand
 * keys on, and then costs time in proportion to every key the table holds, on every call. Each statement is planned
 * here as the server plans it for the driver (generic, {@code plan_cache_mode = force_generic_plan}) against a table of
 * 2,000 keys. (On a table of a few dozen keys a scan is the cheaper plan, and PostgreSQL rightly picks it.)
 */
@Tag("server-version")
class BatchStatementPlansTest {

    @RegisterExtension
    static PostgresTestDatabase db = new PostgresTestDatabase();

    private static final String TABLE = "batch_plans";

    private static final PostgresStatements STATEMENTS = new PostgresStatements(TableName.of(TABLE));

    private static final String KEYS = "'{plan:1,plan:2}'::text[]";

    private static final String OWNERS = "'{" + UUID.randomUUID() + "," + UUID.randomUUID() + "}'::uuid[]";

    /** The batched renewals' arguments: per key its lease time and minimum hold. */
    private static final Map<String, String> RENEWAL = Map.of(
            "keys",
            KEYS,
            "owners",
            OWNERS,
            "lease_ms",
            "'{30000,30000}'::bigint[]",
            "min_hold_us",
            "'{0,0}'::bigint[]");

    @BeforeAll
    static void aTableOfManyKeys() throws SQLException {
        PostgresLockManager.builder(db.dataSource()).tableName(TABLE).build().close();
        try (Connection connection = db.dataSource().getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute("INSERT INTO " + TABLE
                    + " (lock_key, owner_token, holder, fencing_token, acquired_at, expires_at)"
                    + " SELECT 'plan:' || g, gen_random_uuid(), 'plans', nextval('" + TABLE + "_fence_seq'),"
                    + " now(), now() + interval '1 hour' FROM generate_series(1, 2000) AS g");
            statement.execute("ANALYZE " + TABLE);
        }
    }

    static Stream<Arguments> batchStatements() {
        return Stream.of(
                Arguments.of(
                        "acquireAll",
                        Map.of(
                                "keys", KEYS,
                                "owners", OWNERS,
                                "holder", "'plans'",
                                "waiting", "true",
                                "lease_ms", "30000",
                                "precedence_ms", "2000")),
                Arguments.of("releaseAll", Map.of("keys", KEYS, "owners", OWNERS)),
                Arguments.of("renew", RENEWAL),
                Arguments.of("renewShared", RENEWAL));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("batchStatements")
    void aStatementOverArraysOfKeysReadsTheTableThroughItsPrimaryKey(String name, Map<String, String> arguments)
            throws Exception {
        NamedStatement statement =
                (NamedStatement) PostgresStatements.class.getDeclaredField(name).get(STATEMENTS);
        String plan = genericPlan(statement, arguments);
        assertThat(plan)
                .as("the generic plan of %s:%n%s", name, plan)
                .contains(TABLE + "_pkey")
                .doesNotContain("Seq Scan on " + TABLE);
    }

    /**
     * The plan PostgreSQL keeps for {@code named} once it is prepared, whatever the values bound. The statement's own
     * binding decides which literal goes to which placeholder; each placeholder becomes a parameter of its own.
     */
    private static String genericPlan(NamedStatement named, Map<String, String> literals) throws SQLException {
        Map<Integer, String> byPosition = new TreeMap<>();
        named.bind(recording(byPosition), literals);
        StringBuilder numbered = new StringBuilder();
        int position = 0;
        for (char c : named.jdbcSql().toCharArray()) {
            numbered.append(c == '?' ? "$" + ++position : String.valueOf(c));
        }
        try (Connection connection = db.dataSource().getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute("SET plan_cache_mode = force_generic_plan");
            statement.execute("DEALLOCATE ALL");
            statement.execute("PREPARE planned AS " + numbered);
            StringBuilder plan = new StringBuilder();
            try (ResultSet rows = statement.executeQuery(
                    "EXPLAIN (COSTS OFF) EXECUTE planned(" + String.join(", ", byPosition.values()) + ")")) {
                while (rows.next()) {
                    plan.append(rows.getString(1)).append('\n');
                }
            }
            statement.execute("DEALLOCATE planned");
            statement.execute("RESET plan_cache_mode");
            return plan.toString();
        }
    }

    /** A statement that only records what {@link NamedStatement#bind} sets at each position. */
    private static PreparedStatement recording(Map<Integer, String> byPosition) {
        return (PreparedStatement) Proxy.newProxyInstance(
                PreparedStatement.class.getClassLoader(),
                new Class<?>[] {PreparedStatement.class},
                (p, method, args) -> {
                    if (!method.getName().equals("setObject")) {
                        throw new UnsupportedOperationException(method.getName());
                    }
                    byPosition.put((Integer) args[0], (String) args[1]);
                    return null;
                });
    }
}
