package io.fencepost.lock.reliability.checker;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

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
                prev_token      bigint,               -- an exclusive grant that replaced a row's exclusive lease
                acquired_at     timestamptz,
                expires_at      timestamptz,
                lease_mode      text,                 -- exclusive | shared | permits
                permits         int,
                at              timestamptz NOT NULL DEFAULT clock_timestamp(),
                node            inet        DEFAULT inet_server_addr() -- the server that wrote it (a cluster's node)
            );

            -- The leases a version of a lock row stands for: the row itself when exclusive, else one per entry of
            -- holders, each identified by its fencing token (its owner key changes when a release keeps a minimum
            -- hold, its token never does).
            CREATE FUNCTION checker_leases(mode text, owner uuid, token bigint, acquired timestamptz,
                                           expires timestamptz, holders jsonb)
                RETURNS TABLE (fencing_token bigint, owner text, acquired_at timestamptz, expires_at timestamptz)
                LANGUAGE sql IMMUTABLE AS $$
                SELECT token, owner::text, acquired, expires WHERE mode = 'exclusive'
                UNION ALL
                SELECT (h.value ->> 'fencing_token')::bigint, h.key, (h.value ->> 'acquired_at')::timestamptz,
                       (h.value ->> 'expires_at')::timestamptz
                  FROM jsonb_each(coalesce(holders, '{}'::jsonb)) AS h
                 WHERE mode <> 'exclusive'
            $$;

            -- One event per lease that a change of the row created (grant), ended (delete: released, dropped when
            -- expired, or replaced), gave a new owner (keep: a release with a minimum hold, ownerless until it
            -- ends) or moved the end of (renew); ends first, so that a replaced lease ends before its successor
            -- starts. A change of the contended flag or the waiting writer's mark alone records nothing.
            CREATE FUNCTION checker_record_store_event() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                INSERT INTO checker_store_event (op, lock_key, fencing_token, prev_token, acquired_at, expires_at,
                                                 lease_mode, permits)
                SELECT CASE WHEN o.fencing_token IS NULL THEN 'grant'
                            WHEN n.fencing_token IS NULL THEN 'delete'
                            WHEN n.owner IS DISTINCT FROM o.owner THEN 'keep'
                            ELSE 'renew' END,
                       CASE WHEN TG_OP = 'DELETE' THEN OLD.lock_key ELSE NEW.lock_key END,
                       coalesce(n.fencing_token, o.fencing_token),
                       CASE WHEN o.fencing_token IS NULL AND TG_OP = 'UPDATE' AND OLD.lease_mode = 'exclusive'
                                 AND NEW.lease_mode = 'exclusive' THEN OLD.fencing_token END,
                       coalesce(n.acquired_at, o.acquired_at),
                       coalesce(n.expires_at, o.expires_at),
                       CASE WHEN n.fencing_token IS NULL THEN OLD.lease_mode ELSE NEW.lease_mode END,
                       CASE WHEN n.fencing_token IS NULL THEN OLD.permits ELSE NEW.permits END
                  FROM (SELECT * FROM checker_leases(OLD.lease_mode, OLD.owner_token, OLD.fencing_token,
                                                     OLD.acquired_at, OLD.expires_at, OLD.holders)
                         WHERE TG_OP <> 'INSERT') AS o
                  FULL JOIN (SELECT * FROM checker_leases(NEW.lease_mode, NEW.owner_token, NEW.fencing_token,
                                                          NEW.acquired_at, NEW.expires_at, NEW.holders)
                              WHERE TG_OP <> 'DELETE') AS n
                    ON n.fencing_token = o.fencing_token
                 WHERE o.fencing_token IS NULL OR n.fencing_token IS NULL OR n.owner IS DISTINCT FROM o.owner
                    OR n.expires_at IS DISTINCT FROM o.expires_at
                 ORDER BY n.fencing_token IS NULL DESC, coalesce(n.fencing_token, o.fencing_token);
                RETURN NULL;
            END
            $$;

            CREATE TRIGGER checker_store_event AFTER INSERT OR UPDATE OR DELETE ON %1$s
                FOR EACH ROW EXECUTE FUNCTION checker_record_store_event();

            -- What the workload asks of each key: exclusive leases only, shared and exclusive mixed, or n permits.
            CREATE TABLE checker_key (
                lock_key  text PRIMARY KEY,
                kind      text NOT NULL, -- exclusive | mixed | permits
                permits   int  NOT NULL
            );

            CREATE TABLE checker_client_grant (
                id                    bigserial PRIMARY KEY,
                process               text        NOT NULL,
                thread                text        NOT NULL,
                lock_key              text        NOT NULL,
                fencing_token         bigint      NOT NULL,
                confirmed_expires_at  timestamptz,          -- the last expiry the store confirmed to this client
                renewals              int         NOT NULL,
                behaviour             text        NOT NULL,
                lease_mode            text        NOT NULL, -- what the client asked for: exclusive | shared | permits
                release_outcome       text        NOT NULL, -- removed | not-removed | failed
                release_asked_at      timestamptz,          -- database clock just before the holder's release
                granted_at            timestamptz,          -- database clock at the grant: its expiry less its lease
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

    /** Creates the history tables and the trigger on the (already created) lock table, without keys. */
    public static void install(Connection connection) throws SQLException {
        install(connection, List.of());
    }

    /** Creates the history tables and the trigger on the (already created) lock table, the key plan and the resources. */
    static void install(Connection connection, List<KeyPlan> keys) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute(HISTORY_SQL.formatted('"' + LOCK_TABLE + '"'));
        }
        try (PreparedStatement plan = connection.prepareStatement(
                        "INSERT INTO checker_key (lock_key, kind, permits) VALUES (?, ?, ?)");
                PreparedStatement resource =
                        connection.prepareStatement("INSERT INTO checker_resource (resource) VALUES (?)")) {
            for (KeyPlan key : keys) {
                plan.setString(1, key.key());
                plan.setString(2, key.kind().name().toLowerCase());
                plan.setInt(3, key.permits());
                plan.executeUpdate();
                resource.setString(1, resource(key.key()));
                resource.executeUpdate();
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
