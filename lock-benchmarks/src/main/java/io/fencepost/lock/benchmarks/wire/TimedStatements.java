package io.fencepost.lock.benchmarks.wire;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Set;
import javax.sql.DataSource;

/**
 * A {@link DataSource} whose connections report every prepared statement they execute: its kind (as
 * {@link PgFrontendCounter#kind} names it) and when the call into the driver began and returned, on the calling
 * thread. Its connection builder is refused: the connections it built would escape the reports.
 */
final class TimedStatements {

    /** Told of each executed statement, on the thread that executed it; times from {@link System#nanoTime}. */
    @FunctionalInterface
    interface Listener {
        void executed(String kind, long startNanos, long endNanos);
    }

    private static final Set<String> EXECUTES =
            Set.of("execute", "executeQuery", "executeUpdate", "executeLargeUpdate");

    private TimedStatements() {}

    static DataSource wrap(DataSource target, Listener listener) {
        return (DataSource) Proxy.newProxyInstance(
                DataSource.class.getClassLoader(), new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
                    if (method.getName().equals("createConnectionBuilder")) {
                        throw new SQLFeatureNotSupportedException(
                                "connections are only timed when taken with getConnection");
                    }
                    Object result = invoke(target, method, args);
                    return method.getName().equals("getConnection") ? wrap((Connection) result, listener) : result;
                });
    }

    private static Connection wrap(Connection connection, Listener listener) {
        return (Connection) Proxy.newProxyInstance(
                Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                    Object result = invoke(connection, method, args);
                    if (method.getName().equals("prepareStatement") && result instanceof PreparedStatement ps) {
                        return wrap(ps, PgFrontendCounter.kind((String) args[0]), listener);
                    }
                    return result;
                });
    }

    private static PreparedStatement wrap(PreparedStatement statement, String kind, Listener listener) {
        return (PreparedStatement) Proxy.newProxyInstance(
                PreparedStatement.class.getClassLoader(),
                new Class<?>[] {PreparedStatement.class},
                (proxy, method, args) -> {
                    if (!EXECUTES.contains(method.getName()) || (args != null && args.length > 0)) {
                        return invoke(statement, method, args);
                    }
                    long start = System.nanoTime();
                    try {
                        return invoke(statement, method, args);
                    } finally {
                        listener.executed(kind, start, System.nanoTime());
                    }
                });
    }

    private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
