package io.fencepost.lock.benchmarks.wire;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLFeatureNotSupportedException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;

/**
 * When each prepared statement ran, on which thread, as the client saw it: from the call into the driver to its
 * return (the round trip, the server's work and, for an autocommit statement, its commit). Only the threads named
 * with {@link #record} are recorded, each into a list of its own, so that recording costs the timed threads no lock.
 * Used to take a hand-off apart into the statements on its path and the client's time between them.
 */
public final class StatementTimeline {

    /** One statement: {@code kind} as {@link PgFrontendCounter#kind} names it; times from {@link System#nanoTime}. */
    public record Call(String kind, long startNanos, long endNanos) {}

    private static final Set<String> EXECUTES =
            Set.of("execute", "executeQuery", "executeUpdate", "executeLargeUpdate");

    private final Map<Thread, List<Call>> byThread = new ConcurrentHashMap<>();

    /** From now on, the statements {@code thread} runs are recorded. */
    public void record(Thread thread) {
        byThread.put(thread, new ArrayList<>());
    }

    /** The statements {@code thread} ran, in order; read once the thread has stopped. */
    public List<Call> calls(Thread thread) {
        return byThread.getOrDefault(thread, List.of());
    }

    /** {@code target} with every connection taken from it recording its statements here. */
    public DataSource wrap(DataSource target) {
        return (DataSource) Proxy.newProxyInstance(
                DataSource.class.getClassLoader(), new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
                    if (method.getName().equals("createConnectionBuilder")) {
                        throw new SQLFeatureNotSupportedException(
                                "connections are only recorded when taken with getConnection");
                    }
                    Object result = invoke(target, method, args);
                    return method.getName().equals("getConnection") ? wrap((Connection) result) : result;
                });
    }

    private Connection wrap(Connection connection) {
        return (Connection) Proxy.newProxyInstance(
                Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                    Object result = invoke(connection, method, args);
                    if (method.getName().equals("prepareStatement") && result instanceof PreparedStatement ps) {
                        return wrap(ps, PgFrontendCounter.kind((String) args[0]));
                    }
                    return result;
                });
    }

    private PreparedStatement wrap(PreparedStatement statement, String kind) {
        return (PreparedStatement) Proxy.newProxyInstance(
                PreparedStatement.class.getClassLoader(),
                new Class<?>[] {PreparedStatement.class},
                (proxy, method, args) -> {
                    if (!EXECUTES.contains(method.getName())) {
                        return invoke(statement, method, args);
                    }
                    long start = System.nanoTime();
                    Object result = invoke(statement, method, args);
                    long end = System.nanoTime();
                    List<Call> calls = byThread.get(Thread.currentThread());
                    if (calls != null) {
                        calls.add(new Call(kind, start, end));
                    }
                    return result;
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
