package io.fencepost.sample.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencepost.lock.LockManager;
import io.fencepost.sample.TestDatabase;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Transfers take both accounts' locks together: transfers in opposite directions never wait for each other for good,
 * and every transfer leaves both keys free.
 */
@ExtendWith(TestDatabase.class)
@SpringBootTest(
        properties = {
            "sample.transfers.wait-time=10s",
            "sample.settlement.cron=0 0 0 1 1 *",
            "spring.main.banner-mode=off"
        })
class TransferServiceTest {

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        registry.add("spring.datasource.url", TestDatabase::jdbcUrl);
    }

    @Autowired
    TransferService transfers;

    @Autowired
    LockManager locks;

    @Autowired
    JdbcClient jdbc;

    private long balance(String account) {
        return jdbc.sql("SELECT balance_cents FROM account WHERE id = ?")
                .param(account)
                .query(Long.class)
                .single();
    }

    @Test
    void transfersInOppositeDirectionsAllCompleteAndLeaveBothKeysFree() throws Exception {
        long before = balance("alice") + balance("bob");

        CompletableFuture<Void> there = CompletableFuture.runAsync(() -> {
            for (int i = 0; i < 20; i++) {
                transfers.transfer("alice", "bob", 100);
            }
        });
        CompletableFuture<Void> back = CompletableFuture.runAsync(() -> {
            for (int i = 0; i < 20; i++) {
                transfers.transfer("bob", "alice", 50);
            }
        });
        CompletableFuture.allOf(there, back).get(60, TimeUnit.SECONDS);

        assertThat(balance("alice") + balance("bob")).isEqualTo(before);
        assertThat(balance("bob") - balance("alice")).isEqualTo(2 * 20 * 50);
        for (String key : List.of(TransferService.key("alice"), TransferService.key("bob"))) {
            assertThat(locks.inspect(key)).as(key).isEmpty();
        }
    }
}
