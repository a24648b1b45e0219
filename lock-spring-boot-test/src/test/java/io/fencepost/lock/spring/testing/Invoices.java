package io.fencepost.lock.spring.testing;

import io.fencepost.lock.DistributedLock;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** Only in the PostgreSQL test's context: a fenced transaction needs the leases in PostgreSQL. */
@Service
public class Invoices {

    private final JdbcClient jdbc;

    Invoices(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** Settles the invoice; {@code meanwhile} runs between the write and the commit, as a pause would. */
    @Transactional
    @DistributedLock(key = "'invoice:' + #id", fenceTransaction = true)
    public void settle(long id, Runnable meanwhile) {
        jdbc.sql("UPDATE invoice SET status = 'SETTLED' WHERE id = ?").param(id).update();
        meanwhile.run();
    }
}
