package io.fencepost.lock.reliability.checker;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The checker's history tables, in the database under test.
 *
 * <p>The store's side of the history is written by a trigger on the lock table, in the transaction of the lock
 * statement itself: it commits exactly when the grant, renewal or release commits, survives crashes and failover
 * with it, and its timestamps are the database clock at the moment the row changed. The clients' side (what each
 * holder was told, what it did, how its release went) is written by the workers; the accepted writes are logged
 * by the business transaction that made them, so the log holds exactly the writes that committed.
 */
public final class CheckerSchema {

    /** The lock table the checker's workers use. */
    public static final String LOCK_TABLE = "checker_lock";

    private static final String HISTORY_SQL = """
            CREATE TABLE checker_store_event (
                id              bigserial PRIMARY KEY,
                op              text        NOT NULL, -- grant | renew | keep | delete
                lock_key        text        NOT NULL,
                fencing_token   bigint      NOT NULL,
                prev_token      bigint,               -- a grant that took over an expired row: the token it replaced
                acquired_at     timestamptz,
                expires_at      timestamptz,
                at              timestamptz NOT NULL DEFAULT clock_timestamp()
            );

            CREATE FUNCTION checker_record_store_event() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP = 'INSERT' THEN
                    INSERT INTO checker_store_event (op, lock_key, fencing_token, acquired_at, expires_at)
                    VALUES ('grant', NEW.lock_key, NEW.fencing_token, NEW.acquired_at, NEW.expires_at);
                ELSIF TG_OP = 'UPDATE' THEN
                    IF NEW.fencing_token IS DISTINCT FROM OLD.fencing_token THEN
                        INSERT INTO checker_store_event (op, lock_key, fencing_token, prev_token, acquired_at, expires_at)
                        VALUES ('grant', NEW.lock_key, NEW.fencing_token, OLD.fencing_token, NEW.acquired_at,
                                NEW.expires_at);
                    ELSIF NEW.owner_token IS DISTINCT FROM OLD.owner_token THEN
                        -- a release with a minimum hold time: ownerless, locked until the new expiry
                        INSERT INTO checker_store_event (op, lock_key, fencing_token, acquired_at, expires_at)
                        VALUES ('keep', NEW.lock_key, NEW.fencing_token, NEW.acquired_at, NEW.expires_at);
                    ELSIF NEW.expires_at IS DISTINCT FROM OLD.expires_at THEN
                        INSERT INTO checker_store_event (op, lock_key, fencing_token, acquired_at, expires_at)
                        VALUES ('renew', NEW.lock_key, NEW.fencing_token, NEW.acquired_at, NEW.expires_at);
                    END IF; -- the contended flag alone changes nothing that matters here
                ELSE
                    INSERT INTO checker_store_event (op, lock_key, fencing_token, acquired_at, expires_at)
                    VALUES ('delete', OLD.lock_key, OLD.fencing_token, OLD.acquired_at, OLD.expires_at);
                END IF;
                RETURN NULL;
            END
            $$;

            CREATE TRIGGER checker_store_event AFTER INSERT OR UPDATE OR DELETE ON %1$s
                FOR EACH ROW EXECUTE FUNCTION checker_record_store_event();

            CREATE TABLE checker_client_grant (
                id                    bigserial PRIMARY KEY,
                process               text        NOT NULL,
                thread                text        NOT NULL,
                lock_key              text        NOT NULL,
                fencing_token         bigint      NOT NULL,
                confirmed_expires_at  timestamptz,          -- the last expiry the store confirmed to this client
                renewals              int         NOT NULL,
                behaviour             text        NOT NULL,
                release_outcome       text        NOT NULL, -- removed | not-removed | failed
                release_asked_at      timestamptz,          -- database clock just before the holder's release
                lost_reason           text,
                writes_accepted       int         NOT NULL,
                writes_rejected       int         NOT NULL,
                writes_failed         int         NOT NULL,
                recorded_at           timestamptz NOT NULL DEFAULT clock_timestamp(),
                -- a history batch retried after a lost commit must not count a grant twice
                UNIQUE (process, thread, lock_key, fencing_token)
            );

            CREATE TABLE checker_client_stat (
                id        bigserial,
                process   text   NOT NULL,
                name      text   NOT NULL,
                value     bigint NOT NULL,
                PRIMARY KEY (process, name, id)
            );

            CREATE TABLE checker_resource (
                resource    text   PRIMARY KEY,
                version     bigint NOT NULL DEFAULT 0,
                last_token  bigint
            );

            CREATE TABLE checker_write (
                resource       text        NOT NULL,
                version        bigint      NOT NULL,
                fencing_token  bigint      NOT NULL,
                process        text        NOT NULL,
                thread         text        NOT NULL,
                at             timestamptz NOT NULL DEFAULT clock_timestamp(),
                PRIMARY KEY (resource, version)
            );
            """;

    private CheckerSchema() {}

    /** Creates the history tables and the trigger on the (already created) lock table, and the resources. */
    public static void install(Connection connection, int keys) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute(HISTORY_SQL.formatted('"' + LOCK_TABLE + '"'));
            for (int k = 0; k < keys; k++) {
                statement.execute("INSERT INTO checker_resource (resource) VALUES ('" + resource(key(k)) + "')");
            }
        }
    }

    /**
     * Makes every insert of the lock table pause 2 ms after the acquire statement has drawn its token, as a busy
     * server's would at times. It widens the window an unordered grant path needs, so that a short run of a broken
     * variant shows the bug every time instead of now and then; the correct store orders its draws whatever the pause.
     */
    static void pauseBetweenDrawAndInsert(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute("""
                    CREATE FUNCTION checker_pause_insert() RETURNS trigger LANGUAGE plpgsql AS $$
                    BEGIN
                        PERFORM pg_sleep(0.002);
                        RETURN NEW;
                    END
                    $$;
                    CREATE TRIGGER checker_pause_insert BEFORE INSERT ON %1$s
                        FOR EACH ROW EXECUTE FUNCTION checker_pause_insert();
                    """.formatted('"' + LOCK_TABLE + '"'));
        }
    }

    static String key(int index) {
        return "checker:key-" + index;
    }

    /** The business resource a key protects. */
    static String resource(String key) {
        return "resource:" + key;
    }
}
