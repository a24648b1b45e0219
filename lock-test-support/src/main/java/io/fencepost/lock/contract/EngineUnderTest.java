package io.fencepost.lock.contract;

import io.fencepost.lock.LockManager;
import io.fencepost.lock.spi.LeaseStore;
import java.util.UUID;

/** What the lock manager contract suites share: managers on the store under test, each a separate client. */
public interface EngineUnderTest {

    /** The store under test; every manager of a test uses it, like instances of a service sharing one database. */
    LeaseStore store();

    /** A new manager (a client of its own, with its own renewal) on {@link #store()}, closed after the test. */
    LockManager manager();

    /** A fresh key: the tests never share one, so one store (one table) can serve them all. */
    static String key() {
        return "engine:" + UUID.randomUUID();
    }
}
