package io.fencepost.lock.jdbc;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A statement whose parameters are named ({@code :key}) instead of counted: parsed once into the JDBC text and the
 * positions of each name, so that binding a value binds every place that uses it, and a missing or unknown name
 * fails loudly instead of shifting every later parameter.
 */
final class NamedStatement {

    private final String sql;

    private final String jdbcSql;

    /** For each parameter name, its 1-based positions in the JDBC text. */
    private final Map<String, int[]> positions;

    private NamedStatement(String sql, String jdbcSql, Map<String, int[]> positions) {
        this.sql = sql;
        this.jdbcSql = jdbcSql;
        this.positions = positions;
    }

    /**
     * Parses {@code sql}: every {@code :name} outside string literals, quoted identifiers and comments becomes a
     * {@code ?}; {@code ::type} casts stay as they are.
     */
    static NamedStatement parse(String sql) {
        StringBuilder jdbc = new StringBuilder(sql.length());
        Map<String, List<Integer>> found = new LinkedHashMap<>();
        int count = 0;
        int i = 0;
        while (i < sql.length()) {
            char c = sql.charAt(i);
            if (c == '\'' || c == '"') {
                int end = sql.indexOf(c, i + 1);
                end = end < 0 ? sql.length() : end + 1;
                jdbc.append(sql, i, end);
                i = end;
            } else if (c == '-' && sql.startsWith("--", i)) {
                int end = sql.indexOf('\n', i);
                end = end < 0 ? sql.length() : end;
                jdbc.append(sql, i, end);
                i = end;
            } else if (c == ':' && sql.startsWith("::", i)) {
                jdbc.append("::");
                i += 2;
            } else if (c == ':' && i + 1 < sql.length() && isNameStart(sql.charAt(i + 1))) {
                int end = i + 1;
                while (end < sql.length() && isNamePart(sql.charAt(end))) {
                    end++;
                }
                found.computeIfAbsent(sql.substring(i + 1, end), name -> new ArrayList<>())
                        .add(++count);
                jdbc.append('?');
                i = end;
            } else {
                jdbc.append(c);
                i++;
            }
        }
        Map<String, int[]> positions = new LinkedHashMap<>();
        found.forEach((name, at) ->
                positions.put(name, at.stream().mapToInt(Integer::intValue).toArray()));
        return new NamedStatement(sql, jdbc.toString(), Map.copyOf(positions));
    }

    private static boolean isNameStart(char c) {
        return (c >= 'a' && c <= 'z') || c == '_';
    }

    private static boolean isNamePart(char c) {
        return isNameStart(c) || (c >= '0' && c <= '9');
    }

    /** The text to prepare. */
    String jdbcSql() {
        return jdbcSql;
    }

    /** The parameter names, for tests and error messages. */
    java.util.Set<String> names() {
        return positions.keySet();
    }

    /**
     * Binds {@code values} by name.
     *
     * @throws IllegalStateException when a name of the statement has no value, or a value names no parameter: a
     *     mistake in fencepost's own code, caught before the statement runs
     */
    void bind(PreparedStatement statement, Map<String, ?> values) throws SQLException {
        if (!values.keySet().equals(positions.keySet())) {
            throw new IllegalStateException("the parameters " + values.keySet() + " do not match " + positions.keySet()
                    + " of the statement:\n" + sql);
        }
        for (Map.Entry<String, int[]> parameter : positions.entrySet()) {
            Object value = Objects.requireNonNull(values.get(parameter.getKey()), parameter.getKey());
            for (int position : parameter.getValue()) {
                statement.setObject(position, value);
            }
        }
    }

    @Override
    public String toString() {
        return sql;
    }
}
