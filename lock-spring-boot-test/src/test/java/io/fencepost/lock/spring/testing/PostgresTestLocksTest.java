package io.fencepost.lock.spring.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fencepost.lock.LeaseLostException;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import io.fencepost.lock.testing.TestLocks;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** With the leases in PostgreSQL's lock table, a fenced transaction whose lease ran out mid-way rolls back. */
@SpringBootTest(
        classes = {Billing.class, Invoices.class},
        properties = "spring.application.name=billing")
@AutoConfigureTestLocks(store = AutoConfigureTestLocks.Store.POSTGRES)
class PostgresTestLocksTest {

    @RegisterExtension
    static PostgresTestDatabase db = new PostgresTestDatabase();

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        registry.add("spring.datasource.url", db::jdbcUrl);
    }

    @Autowired
    TestLocks locks;

    @Autowired
    Invoices invoices;

    @Autowired
    JdbcClient jdbc;

    @BeforeEach
    void invoice() {
        jdbc.sql("CREATE TABLE IF NOT EXISTS invoice (id bigint PRIMARY KEY, status text NOT NULL)")
                .update();
        jdbc.sql("INSERT INTO invoice VALUES (42, 'OPEN') ON CONFLICT (id) DO UPDATE SET status = 'OPEN'")
                .update();
    }

    @Test
    void aFencedTransactionCommitsWhileItsLeaseIsHeld() {
        invoices.settle(42, () -> {});

        assertThat(status()).isEqualTo("SETTLED");
        assertThat(locks.grants("invoice:42")).hasSize(1);
    }

    @Test
    void aFencedTransactionWhoseLeaseRanOutAndWasTakenOverRollsBack() {
        assertThatThrownBy(() -> invoices.settle(42, () -> {
                    locks.expire("invoice:42");
                    locks.instance("billing-2").acquire("invoice:42", LockOptions.of(Duration.ofMinutes(1)));
                }))
                .isInstanceOf(LeaseLostException.class);

        assertThat(status()).isEqualTo("OPEN");
        assertThat(locks.inspect("invoice:42"))
                .hasValueSatisfying(lease -> assertThat(lease.holder()).isEqualTo("billing-2"));
    }

    private String status() {
        return jdbc.sql("SELECT status FROM invoice WHERE id = 42")
                .query(String.class)
                .single();
    }
}
