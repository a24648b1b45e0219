package io.fencepost.lock.benchmarks.wire;

import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads what a PostgreSQL client sends (frontend protocol v3) and counts each statement it asks the server to run:
 * every Execute of the extended protocol and every simple Query, named by the statement's leading keyword.
 */
final class PgFrontendCounter {

    private static final int SSL_REQUEST = 80877103;

    private static final int GSS_REQUEST = 80877104;

    private static final Pattern LEADING_COMMENTS = Pattern.compile("^(\\s|--[^\\n]*\\n|/\\*.*?\\*/)*", Pattern.DOTALL);

    /** A data-changing verb; not the {@code UPDATE} of a {@code FOR UPDATE} row lock. */
    private static final Pattern DML = Pattern.compile("(?<!FOR )\\b(INSERT|UPDATE|DELETE)\\b");

    private final WireCounter counter;

    private final ByteQueue queue = new ByteQueue();

    /** Prepared statement name to SQL, and portal name to SQL, as the client set them up. */
    private final Map<String, String> statements = new HashMap<>();

    private final Map<String, String> portals = new HashMap<>();

    private boolean startup = true;

    PgFrontendCounter(WireCounter counter) {
        this.counter = counter;
    }

    /** Takes what the client writes, in whatever pieces it writes it. */
    void feed(byte[] bytes, int offset, int length) {
        queue.append(bytes, offset, length);
        while (true) {
            if (startup) {
                if (queue.available() < 8) {
                    return;
                }
                int size = queue.intAt(0);
                if (queue.available() < size) {
                    return;
                }
                int code = queue.intAt(4);
                startup = code == SSL_REQUEST || code == GSS_REQUEST;
                queue.skip(size);
                continue;
            }
            if (queue.available() < 5) {
                return;
            }
            int size = queue.intAt(1);
            if (queue.available() < 1 + size) {
                return;
            }
            handle((char) queue.byteAt(0), 1 + size);
            queue.skip(1 + size);
        }
    }

    private void handle(char type, int limit) {
        switch (type) {
            case 'Q' -> counter.statement(kind(queue.cString(5, limit)));
            case 'P' -> {
                String name = queue.cString(5, limit);
                String sql = queue.cString(5 + utf8Length(name) + 1, limit);
                statements.put(name, sql);
            }
            case 'B' -> {
                String portal = queue.cString(5, limit);
                String statement = queue.cString(5 + utf8Length(portal) + 1, limit);
                portals.put(portal, statements.getOrDefault(statement, "?"));
            }
            case 'E' -> counter.statement(kind(portals.getOrDefault(queue.cString(5, limit), "?")));
            default -> {
                // Sync, Describe, Close, Flush, Terminate: no statement runs
            }
        }
    }

    private static int utf8Length(String s) {
        return s.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
    }

    /**
     * The leading keyword, with the data-changing verbs of a {@code WITH} statement in the order they appear, e.g.
     * {@code WITH…INSERT} or {@code WITH…UPDATE+INSERT}.
     */
    static String kind(String sql) {
        // several statements sent at once (none of those measured has a semicolon inside a literal, but comments do):
        // each one's kind
        String[] statements = sql.replaceAll("--[^\n]*", "").strip().split(";");
        if (statements.length > 1) {
            return java.util.Arrays.stream(statements)
                    .filter(each -> !each.isBlank())
                    .map(PgFrontendCounter::kind)
                    .collect(java.util.stream.Collectors.joining("; "));
        }
        Matcher comments = LEADING_COMMENTS.matcher(sql);
        String body = comments.lookingAt() ? sql.substring(comments.end()) : sql;
        String upper = body.toUpperCase(Locale.ROOT);
        int end = 0;
        while (end < upper.length() && Character.isLetter(upper.charAt(end))) {
            end++;
        }
        String keyword = end == 0 ? "?" : upper.substring(0, end);
        if (keyword.equals("WITH")) {
            Matcher dml = DML.matcher(upper);
            Set<String> verbs = new LinkedHashSet<>();
            while (dml.find()) {
                verbs.add(dml.group(1));
            }
            if (!verbs.isEmpty()) {
                return "WITH…" + String.join("+", verbs);
            }
        }
        if (keyword.equals("SELECT") && upper.stripTrailing().endsWith("FOR UPDATE")) {
            return "SELECT…FOR UPDATE";
        }
        if (keyword.equals("SELECT") && upper.contains("ADVISORY")) {
            int open = upper.indexOf("PG_");
            int paren = upper.indexOf('(', open);
            if (open >= 0 && paren > open) {
                return "SELECT " + body.substring(open, paren);
            }
        }
        return keyword;
    }
}
