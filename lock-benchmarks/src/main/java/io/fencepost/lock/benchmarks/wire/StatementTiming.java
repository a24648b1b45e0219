package io.fencepost.lock.benchmarks.wire;

import io.fencepost.lock.benchmarks.Samples;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLFeatureNotSupportedException;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import javax.sql.DataSource;

/**
 * Times every prepared statement executed through the data sources it wraps, by leading keyword (as
 * {@link PgFrontendCounter#kind} names them). Used where the statements are few but large, such as renewing
 * thousands of leases in one {@code UPDATE}.
 */
public final class StatementTiming {

    private static final Set<String> EXECUTES =
            Set.of("execute", "executeQuery", "executeUpdate", "executeLargeUpdate");

    private final Map<String, Samples> byKind = new HashMap<>();

    /** Durations in nanoseconds of the statements of one kind executed since the last reset (a copy). */
    public synchronized Samples durations(String kind) {
        Samples copy = new Samples();
        Samples samples = byKind.get(kind);
        if (samples != null) {
            copy.addAll(samples);
        }
        return copy;
    }

    /** How many statements of each kind were executed since the last reset. */
    public synchronized Map<String, Integer> counts() {
        Map<String, Integer> counts = new HashMap<>();
        byKind.forEach((kind, samples) -> counts.put(kind, samples.size()));
        return counts;
    }

    public synchronized void reset() {
        byKind.clear();
    }

    private synchronized void record(String kind, long nanos) {
        byKind.computeIfAbsent(kind, k -> new Samples()).add(nanos);
    }

    /**
     * {@code target} with every connection taken from it timing its statements here. Its connection builder is
     * refused: the connections it built would escape the timing.
     */
    public DataSource wrap(DataSource target) {
        return (DataSource) Proxy.newProxyInstance(
                DataSource.class.getClassLoader(), new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
                    if (method.getName().equals("createConnectionBuilder")) {
                        throw new SQLFeatureNotSupportedException(
                                "connections are only timed when taken with getConnection");
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
                    if (!EXECUTES.contains(method.getName()) || (args != null && args.length > 0)) {
                        return invoke(statement, method, args);
                    }
                    long start = System.nanoTime();
                    try {
                        return invoke(statement, method, args);
                    } finally {
                        record(kind, System.nanoTime() - start);
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
