package io.fencepost.lock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The lock statements as text: what every one of them must have, checked without a database. */
class PostgresStatementsTest {

    private static final PostgresStatements STATEMENTS = new PostgresStatements(TableName.of("app_locks"));

    @Test
    void everyStatementThatDrawsAFencingTokenForAGrantTakesTheDrawLock() throws IllegalAccessException {
        List<String> drawing = new ArrayList<>();
        for (Field field : PostgresStatements.class.getDeclaredFields()) {
            if (field.getType() != NamedStatement.class || Modifier.isStatic(field.getModifiers())) {
                continue;
            }
            String sql = field.get(STATEMENTS).toString();
            if (!sql.contains("nextval(")) {
                continue;
            }
            drawing.add(field.getName());
            // A set of keys takes its keys' draw locks without waiting for them (it never waits for one key while it
            // holds another), and grants nothing unless it got all of them.
            String drawLock =
                    field.getName().equals("acquireAll") ? "pg_try_advisory_xact_lock(" : "pg_advisory_xact_lock(";
            // When the lock is taken is the statement's structure; FencingTokenOrderTest shows it in action.
            assertThat(sql)
                    .as("statement %s draws a token, so it must take the draw lock", field.getName())
                    .contains(drawLock + TableName.of("app_locks").advisoryClassId() + ", hashtext(");
        }
        assertThat(drawing)
                .containsExactlyInAnyOrder(
                        "acquire", "handOver", "acquireShared", "release", "acquireOrRegister", "acquireAll");
    }

    @Test
    void theTableNameFillsEverySlotOnce() {
        assertThat(STATEMENTS.acquire.jdbcSql())
                .contains("INSERT INTO \"app_locks\" AS l")
                .contains("nextval('\"app_locks_fence_seq\"')")
                .doesNotContain("{");
        assertThat(STATEMENTS.release.jdbcSql())
                .contains("'fencepost_app_locks'")
                .contains("'fencepost-grant:'")
                .doesNotContain("pg_notify"); // sent after the release commits, by the wake-up statement
        assertThat(STATEMENTS.wakeUp.jdbcSql()).contains("pg_notify(?, ?)");
        assertThat(STATEMENTS.acquireOrRegister.jdbcSql()).contains("\"app_locks_queue\"");
    }

    @Test
    void namedParametersBecomePlaceholdersAndCastsStay() {
        NamedStatement statement =
                NamedStatement.parse("SELECT :key, :owner::uuid, ':not_a_name' -- :nor_this\n, \":quoted\", :key");

        assertThat(statement.jdbcSql()).isEqualTo("SELECT ?, ?::uuid, ':not_a_name' -- :nor_this\n, \":quoted\", ?");
        assertThat(statement.names()).containsExactlyInAnyOrder("key", "owner");
    }

    @Test
    void bindingRefusesMissingOrUnknownNames() {
        NamedStatement statement = NamedStatement.parse("SELECT :key, :owner");

        assertThatIllegalStateException()
                .isThrownBy(() -> statement.bind(null, Map.of("key", "k")))
                .withMessageContaining("[key]")
                .withMessageContaining("owner");
        assertThatIllegalStateException()
                .isThrownBy(() -> statement.bind(null, Map.of("key", "k", "owner", "o", "extra", 1)))
                .withMessageContaining("extra");
    }
}
