package io.fencepost.lock.contract;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencepost.lock.Lease;
import io.fencepost.lock.LockManager;
import io.fencepost.lock.LockOptions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * One hot key, several managers (instances of a service), several threads each, as production runs them: a manager
 * whose threads keep handing the key to one another locally still lets it go to the other managers' waiters now and
 * then, so that no instance is starved while another is busy.
 */
public interface HotKeyContract extends EngineUnderTest {

    /** Below this share of the critical sections, a manager counts as starved; an even split gives each a half. */
    double STARVED_SHARE = 0.10;

    @Test
    default void managersWithSeveralThreadsEachAllGetTheirShareOfAHotKey() throws Exception {
        String key = EngineUnderTest.key();
        List<LockManager> managers = List.of(manager(), manager());
        LockOptions waiting = LockOptions.builder()
                .leaseTime(Duration.ofSeconds(30))
                .waitTime(Duration.ofSeconds(30))
                .build();
        Map<LockManager, AtomicLong> sections = new ConcurrentHashMap<>();
        managers.forEach(manager -> sections.put(manager, new AtomicLong()));

        Workers.run(managers, 3, Duration.ofSeconds(2), (locks, random) -> {
            Lease lease = locks.acquire(key, waiting);
            try {
                sections.get(locks).incrementAndGet();
            } finally {
                lease.release();
            }
        });

        long total = sections.values().stream().mapToLong(AtomicLong::get).sum();
        assertThat(total).as("critical sections").isPositive();
        for (LockManager manager : managers) {
            assertThat((double) sections.get(manager).get() / total)
                    .as("one manager's share of %s critical sections", total)
                    .isGreaterThan(STARVED_SHARE);
        }
    }
}
