package io.fencepost.lock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fencepost.lock.Lease;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.memory.InMemoryLeaseStore;
import io.fencepost.lock.test.LogCapture;
import java.time.Duration;
import java.util.List;
import java.util.logging.Level;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A lock key built from request data cannot write a line of its own into the log. */
class LogForgingTest {

    private static final String FORGED = "account:7\r\n2026-01-01 00:00:00 INFO admin logged in\u2028FAKE";

    @RegisterExtension
    final LogCapture logs = new LogCapture("io.fencepost");

    @Test
    void aKeyWithLineBreaksStaysOnOneLogLineWhenTheEngineLogsIt() {
        InMemoryLeaseStore store = new InMemoryLeaseStore();
        try (DefaultLockManager locks = DefaultLockManager.builder(store).build()) {
            Lease lease = locks.acquire(FORGED, LockOptions.of(Duration.ofSeconds(30)));

            // Both warnings carry the key: the operator's force-release and the holder's loss.
            locks.forceRelease(FORGED);
            await().atMost(Duration.ofSeconds(5)).until(() -> !lease.isHeld());

            List<String> warnings = logs.rendered(Level.WARNING);
            assertThat(warnings).hasSizeGreaterThanOrEqualTo(2);
            assertThat(warnings)
                    .allSatisfy(line -> assertThat(line).doesNotContain("\r", "\n", "\u2028"))
                    .anySatisfy(line -> assertThat(line).contains("force-released"))
                    .anySatisfy(line -> assertThat(line).contains("lost lock"))
                    .allSatisfy(line -> assertThat(line).contains("account:7\\u000d\\u000a2026-01-01"));
        }
    }
}
