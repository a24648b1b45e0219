package io.fencepost.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fencepost.lock.core.DefaultLockManager;
import io.fencepost.lock.memory.InMemoryLeaseStore;
import io.fencepost.lock.test.LogCapture;
import java.time.Duration;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A leadership listener that throws does not stop the election, and its failure is logged with the group, the
 * callback, the term and the exception itself, so that its stack trace reaches the log.
 */
class LeadershipListenerFailureTest {

    @RegisterExtension
    final LogCapture logs = new LogCapture("io.fencepost");

    @Test
    void aListenerThatThrowsIsLoggedWithItsException() {
        IllegalStateException failure = new IllegalStateException("the listener's own failure");
        try (DefaultLockManager locks =
                        DefaultLockManager.builder(new InMemoryLeaseStore()).build();
                LeaderElection election = LeaderElection.builder(locks, "reports")
                        .listener(new LeadershipListener() {
                            @Override
                            public void granted(Lease leadership) {
                                throw failure;
                            }

                            @Override
                            public void revoked(Lease leadership) {}
                        })
                        .build()) {
            election.start();
            await().atMost(Duration.ofSeconds(10)).until(election::isLeader);
            long term = election.leadership().orElseThrow().fencingToken();
            await().atMost(Duration.ofSeconds(10)).until(() -> warning() != null);

            LogRecord warning = warning();
            assertThat(warning.getThrown()).isSameAs(failure);
            assertThat(logs.rendered(Level.WARNING))
                    .anySatisfy(line -> assertThat(line)
                            .isEqualTo("leadership listener of group 'reports' failed on granted of term " + term));
            assertThat(election.isLeader()).as("still the leader").isTrue();
        }
    }

    private LogRecord warning() {
        return logs.records().stream()
                .filter(record -> record.getLevel() == Level.WARNING)
                .filter(record -> String.valueOf(record.getMessage()).contains("leadership listener"))
                .findFirst()
                .orElse(null);
    }
}
