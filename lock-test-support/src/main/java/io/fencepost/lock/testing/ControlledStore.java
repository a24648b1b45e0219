package io.fencepost.lock.testing;

import io.fencepost.lock.LockStoreException;
import io.fencepost.lock.spi.LeaseStore;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Set;

/**
 * Stands between the engine and the real store, so that a test can take the store down and, for the in-memory store,
 * start over on a fresh one. It is a dynamic proxy over every interface the real store implements, so the engine
 * finds the same abilities (hand-over, waiter relay, queue) as on the real store, also when the SPI grows.
 */
final class ControlledStore implements InvocationHandler {

    private volatile LeaseStore delegate;

    private volatile boolean down;

    private final LeaseStore proxy;

    ControlledStore(LeaseStore delegate) {
        this.delegate = Objects.requireNonNull(delegate, "store");
        Set<Class<?>> interfaces = new LinkedHashSet<>();
        for (Class<?> type = delegate.getClass(); type != null; type = type.getSuperclass()) {
            collect(type, interfaces);
        }
        this.proxy = (LeaseStore)
                Proxy.newProxyInstance(delegate.getClass().getClassLoader(), interfaces.toArray(Class<?>[]::new), this);
    }

    private static void collect(Class<?> type, Set<Class<?>> interfaces) {
        for (Class<?> implemented : type.getInterfaces()) {
            if (interfaces.add(implemented)) {
                collect(implemented, interfaces);
            }
        }
    }

    /** The store the engine is given. */
    LeaseStore store() {
        return proxy;
    }

    /** The real store, for calls that must not be refused or seen by the engine. */
    LeaseStore delegate() {
        return delegate;
    }

    /** Continues on {@code fresh}, which must be of the same class as the store this began with. */
    void replace(LeaseStore fresh) {
        if (fresh.getClass() != delegate.getClass()) {
            throw new IllegalArgumentException(
                    "a replacement store must be a " + delegate.getClass().getName() + ", was "
                            + fresh.getClass().getName());
        }
        delegate = fresh;
    }

    void down(boolean down) {
        this.down = down;
    }

    boolean isDown() {
        return down;
    }

    @Override
    public Object invoke(Object self, Method method, Object[] args) throws Throwable {
        if (method.getDeclaringClass() == Object.class) {
            return switch (method.getName()) {
                case "equals" -> self == args[0];
                case "hashCode" -> System.identityHashCode(self);
                default -> delegate + (down ? " (down)" : "");
            };
        }
        if (down && !method.getName().equals("close")) {
            throw new LockStoreException("the lock store is unreachable: the test took it down with"
                    + " TestLocks.storeDown(); TestLocks.storeUp() brings it back");
        }
        try {
            return method.invoke(delegate, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
