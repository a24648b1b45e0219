package io.fencepost.lock.benchmarks.wire;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The statement kinds that the hand-off table names its statements by. */
class PgFrontendCounterTest {

    @Test
    void aStatementIsNamedByItsKeywordAndTheVerbsOfItsCommonTableExpressions() {
        assertThat(PgFrontendCounter.kind("WITH r AS (DELETE FROM t RETURNING 1) SELECT * FROM r"))
                .isEqualTo("WITH…DELETE");
        assertThat(PgFrontendCounter.kind("SELECT pg_advisory_lock(1, hashtext(?))"))
                .isEqualTo("SELECT pg_advisory_lock");
        assertThat(PgFrontendCounter.kind("""
                        INSERT INTO t (k) VALUES (?)
                        -- a comment; with a semicolon
                        ON CONFLICT (k) DO NOTHING
                        """)).isEqualTo("INSERT");
    }

    @Test
    void statementsSentAtOnceAreNamedEachInTheirOrder() {
        assertThat(PgFrontendCounter.kind("""
                        SELECT 1 FROM t WHERE k = ? FOR UPDATE;
                        SELECT pg_advisory_unlock(1, hashtext(?));
                        WITH r AS (DELETE FROM t WHERE k = ? RETURNING 1) SELECT count(*) FROM r
                        """)).isEqualTo("SELECT…FOR UPDATE; SELECT pg_advisory_unlock; WITH…DELETE");
    }
}
