package io.fencepost.lock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;

/**
 * Finds the Fencepost lock tables other than this manager's that the same application uses now or used recently, in
 * one catalog query and one query per candidate table.
 *
 * <p>A candidate is an ordinary table, in any schema, that the role may read, whose comment starts with
 * {@value #LEASE_TABLE_COMMENT} (as fencepost's migration and plain script set it) and that has the lease columns; the
 * table this manager uses (as its search_path resolves it) is left out. It is in use when it has a lease row, of the
 * application's holders ({@code application@...}, as {@code EngineBuilder.holderNameOf} names them) or of anyone's
 * when no application is given, that is live or ended less than {@link #RECENT} ago. A released lease leaves no row,
 * but every running manager keeps a presence row in its table ({@link Presence}), so a table is in use while a manager
 * runs on it, and for {@link #RECENT} after the last one stopped, whether or not any lease was ever taken.
 */
final class OtherLockTables {

    /** How long after its end a lease still shows that its table is in use. */
    static final Duration RECENT = Duration.ofHours(24);

    /** The start of the comment fencepost puts on a lease table, and on no other table. */
    static final String LEASE_TABLE_COMMENT = "Fencepost leases:";

    /**
     * The candidates, with names quoted by the server. Temporary tables are other sessions' own and cannot be read;
     * the column count tells a lease table from a user's table that happens to carry a similar comment.
     */
    private static final String CANDIDATES_SQL = """
            SELECT n.nspname AS schema_name, c.relname AS table_name,
                   format('%I.%I', n.nspname, c.relname) AS quoted_name
              FROM pg_catalog.pg_class c
              JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
              JOIN pg_catalog.pg_description d
                ON d.objoid = c.oid AND d.classoid = 'pg_catalog.pg_class'::regclass AND d.objsubid = 0
             WHERE c.relkind IN ('r', 'p') AND c.relpersistence <> 't'
               AND starts_with(d.description, ?)
               AND c.oid IS DISTINCT FROM to_regclass(?)
               AND has_schema_privilege(n.oid, 'USAGE') AND has_table_privilege(c.oid, 'SELECT')
               AND (SELECT count(*) FROM pg_catalog.pg_attribute a
                     WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
                       AND a.attname IN ('lock_key', 'owner_token', 'holder', 'fencing_token', 'acquired_at',
                                         'expires_at')) = 6
             ORDER BY n.nspname, c.relname
            """;

    /**
     * Its table is a quoted name from {@link #CANDIDATES_SQL}; the values are parameters. Leases and the presence rows
     * of running managers ({@link Presence}) are counted apart.
     */
    private static final String USE_SQL_TEMPLATE = """
            SELECT count(*) FILTER (WHERE NOT u.presence) AS keys,
                   count(*) FILTER (WHERE NOT u.presence AND u.expires_at > clock_timestamp()) AS live,
                   max(u.expires_at) FILTER (WHERE NOT u.presence) AS last_use,
                   (array_agg(u.holder ORDER BY u.expires_at DESC) FILTER (WHERE NOT u.presence))[1] AS last_holder,
                   count(*) FILTER (WHERE u.presence) AS managers,
                   count(*) FILTER (WHERE u.presence AND u.expires_at > clock_timestamp()) AS running,
                   max(u.expires_at) FILTER (WHERE u.presence) AS last_presence,
                   (array_agg(u.holder ORDER BY u.expires_at DESC) FILTER (WHERE u.presence))[1] AS last_manager
              FROM (SELECT starts_with(t.lock_key, ?) AS presence, t.expires_at, t.holder
                      FROM %s AS t
                     WHERE t.expires_at > clock_timestamp() - ? * interval '1 millisecond'
                       AND (?::text IS NULL OR starts_with(t.holder, ?::text || '@'))) AS u
            """;

    /** SQLState of a table that does not exist. */
    private static final String UNDEFINED_TABLE = "42P01";

    private final TableName own;

    /** The application whose use counts, or null for anyone's. */
    private final String application;

    /**
     * @param application the application whose leases show use (its holder names start with {@code application@}),
     *     or null or blank for anyone's
     */
    OtherLockTables(TableName own, String application) {
        this.own = own;
        this.application = application == null || application.isBlank() ? null : application;
    }

    /** The table whose others these are: the manager's own, as configured. */
    String ownTable() {
        return own.table();
    }

    /** The application whose use counts, or null for anyone's. */
    String application() {
        return application;
    }

    /** The other lock tables in use, by schema and name. */
    List<InUse> find(Connection connection, int timeoutSeconds) throws SQLException {
        List<Candidate> candidates = new ArrayList<>();
        try (PreparedStatement query = connection.prepareStatement(CANDIDATES_SQL)) {
            query.setQueryTimeout(timeoutSeconds);
            query.setString(1, LEASE_TABLE_COMMENT);
            query.setString(2, own.quotedTable());
            try (ResultSet rows = query.executeQuery()) {
                while (rows.next()) {
                    candidates.add(new Candidate(
                            rows.getString("schema_name") + "." + rows.getString("table_name"),
                            rows.getString("quoted_name")));
                }
            }
        }
        List<InUse> inUse = new ArrayList<>();
        for (Candidate candidate : candidates) {
            try (PreparedStatement query =
                    connection.prepareStatement(USE_SQL_TEMPLATE.formatted(candidate.quotedName()))) {
                query.setQueryTimeout(timeoutSeconds);
                query.setString(1, Presence.KEY_PREFIX);
                query.setLong(2, RECENT.toMillis());
                if (application == null) {
                    query.setNull(3, Types.VARCHAR);
                    query.setNull(4, Types.VARCHAR);
                } else {
                    query.setString(3, application);
                    query.setString(4, application);
                }
                try (ResultSet row = executeUnlessDropped(query)) {
                    if (row == null) {
                        continue;
                    }
                    row.next();
                    long keys = row.getLong("keys");
                    long managers = row.getLong("managers");
                    if (keys > 0 || managers > 0) {
                        inUse.add(new InUse(
                                candidate.name(),
                                keys,
                                row.getLong("live"),
                                row.getObject("last_use", OffsetDateTime.class),
                                row.getString("last_holder"),
                                new Managers(
                                        managers,
                                        row.getLong("running"),
                                        row.getObject("last_presence", OffsetDateTime.class),
                                        row.getString("last_manager"))));
                    }
                }
            }
        }
        return inUse;
    }

    /** A lock table found in the catalog: schema and table, and the same quoted by the server. */
    private record Candidate(String name, String quotedName) {}

    /** The candidate's use, or null when it was dropped since the catalog query. */
    private static ResultSet executeUnlessDropped(PreparedStatement query) throws SQLException {
        try {
            return query.executeQuery();
        } catch (SQLException e) {
            if (UNDEFINED_TABLE.equals(e.getSQLState())) {
                return null;
            }
            throw e;
        }
    }

    /**
     * A lock table in use.
     *
     * @param name schema and table
     * @param keys keys with a live or recently ended lease of the application
     * @param live of these, keys whose lease is live
     * @param lastUse the end of the latest of those leases, by the database clock, or null without any
     * @param lastHolder its holder, or null
     * @param managers the lock managers of the application present on the table now or recently
     */
    record InUse(String name, long keys, long live, OffsetDateTime lastUse, String lastHolder, Managers managers) {

        /** For a message or a health detail: the table and what shows its use; never an owner token. */
        String describe() {
            if (keys == 0) {
                return name + " (" + managers.describe() + ")";
            }
            String leases = live > 0
                    ? live + (live == 1 ? " live lease" : " live leases")
                    : keys + (keys == 1 ? " lease" : " leases") + " ended in the last " + RECENT.toHours() + " hours";
            return name + " (" + leases + ", the latest held by " + lastHolder + " until " + lastUse
                    + (managers.running() > 0 ? "; " + managers.describe() : "") + ")";
        }
    }

    /**
     * The presence rows ({@link Presence}) on a lock table.
     *
     * @param seen presence rows live or ended in the last {@link #RECENT}
     * @param running of these, the live ones: managers running now
     * @param lastUntil the latest end of a presence row, by the database clock, or null without any
     * @param lastHolder the holder name of that manager, or null
     */
    record Managers(long seen, long running, OffsetDateTime lastUntil, String lastHolder) {

        String describe() {
            return running > 0
                    ? running + (running == 1 ? " lock manager" : " lock managers") + " running on it, the latest "
                            + lastHolder + ", present until " + lastUntil
                    : "a lock manager ran on it in the last " + RECENT.toHours() + " hours: " + lastHolder
                            + ", present until " + lastUntil;
        }
    }
}
