package io.fencepost.lock.jdbc.test;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * Wraps a physical {@link DataSource} and counts what reaches the server: statements executed and calls that
 * cost a network round trip. Put a pool on top of it to count the pool's own traffic too.
 */
public final class CountingDataSource extends DelegatingDataSource {

    private static final Set<String> EXECUTES =
            Set.of("execute", "executeQuery", "executeUpdate", "executeLargeUpdate", "executeBatch");

    private static final Set<String> ROUND_TRIPS = Set.of("commit", "rollback", "isValid", "setTransactionIsolation");

    private final AtomicInteger statements = new AtomicInteger();

    private final AtomicInteger roundTrips = new AtomicInteger();

    private final List<String> sql = new CopyOnWriteArrayList<>();

    public CountingDataSource(DataSource target) {
        super(target);
    }

    public int statements() {
        return statements.get();
    }

    public int roundTrips() {
        return roundTrips.get();
    }

    /** The SQL texts executed since the last reset, first line only. */
    public List<String> executedSql() {
        return List.copyOf(sql);
    }

    public void reset() {
        statements.set(0);
        roundTrips.set(0);
        sql.clear();
    }

    @Override
    public Connection getConnection() throws SQLException {
        return wrap(super.getConnection());
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        return wrap(super.getConnection(username, password));
    }

    private Connection wrap(Connection connection) {
        InvocationHandler handler = (proxy, method, args) -> {
            if (method.getName().equals("setAutoCommit") && (Boolean) args[0] && !connection.getAutoCommit()) {
                roundTrips.incrementAndGet(); // switching autocommit on commits an open transaction
            }
            if (ROUND_TRIPS.contains(method.getName())) {
                roundTrips.incrementAndGet();
            }
            Object result = invoke(connection, method, args);
            if (result instanceof Statement statement) {
                String text = args != null && args.length > 0 && args[0] instanceof String s ? s : null;
                return wrapStatement(statement, text);
            }
            return result;
        };
        return (Connection) Proxy.newProxyInstance(
                CountingDataSource.class.getClassLoader(), new Class<?>[] {Connection.class}, handler);
    }

    private Object wrapStatement(Statement statement, String preparedSql) {
        InvocationHandler handler = (proxy, method, args) -> {
            if (EXECUTES.contains(method.getName())) {
                statements.incrementAndGet();
                roundTrips.incrementAndGet();
                String text = args != null && args.length > 0 && args[0] instanceof String s ? s : preparedSql;
                sql.add(text == null ? "?" : text.strip().lines().findFirst().orElse(""));
            }
            return invoke(statement, method, args);
        };
        Set<Class<?>> interfaces = new java.util.LinkedHashSet<>();
        for (Class<?> type = statement.getClass(); type != null; type = type.getSuperclass()) {
            for (Class<?> candidate : type.getInterfaces()) {
                if (Statement.class.isAssignableFrom(candidate)) {
                    interfaces.add(candidate);
                }
            }
        }
        return Proxy.newProxyInstance(
                CountingDataSource.class.getClassLoader(), interfaces.toArray(Class<?>[]::new), handler);
    }

    private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
