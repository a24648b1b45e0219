package io.fencepost.lock.contract;

import static io.fencepost.lock.contract.EngineUnderTest.key;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

import io.fencepost.lock.Lease;
import io.fencepost.lock.LeaseMode;
import io.fencepost.lock.LockManager;
import io.fencepost.lock.LockOptions;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The contract of shared leases, permits and non-reentrant holds through the lock manager, with real threads and
 * several managers (clients) on one store: readers together, never with a writer; a waiting writer is not starved; at
 * most n permits; callers that disagree on n are told; a non-reentrant holder is busy for itself.
 */
public interface SharedAndPermitsContract extends EngineUnderTest {

    Duration LONG = Duration.ofMinutes(1);

    private static LockOptions.Builder waitingUpTo(Duration waitTime) {
        return LockOptions.builder().leaseTime(LONG).waitTime(waitTime);
    }

    @Test
    default void readersHoldTogetherAndAWriterNeverWithAnyoneElse() throws Exception {
        Sections sections = new Sections();
        List<LockManager> clients = List.of(manager(), manager());
        String key = key();
        LockOptions read = waitingUpTo(Duration.ofSeconds(20)).shared(true).build();
        LockOptions write = waitingUpTo(Duration.ofSeconds(20)).build();

        Workers.run(clients, 3, Duration.ofSeconds(3), (locks, random) -> {
            boolean exclusive = random.nextInt(5) == 0;
            try (Lease lease = locks.acquire(key, exclusive ? write : read)) {
                sections.inside(exclusive, lease.fencingToken(), () -> Workers.pause(random, 3));
            }
        });

        sections.assertNoViolations();
        assertThat(sections.mostReadersAtOnce()).as("readers shared the key").isGreaterThanOrEqualTo(2);
        assertThat(sections.writes()).as("writers got the key").isPositive();
    }

    @Test
    default void aWaitingWriterIsGrantedWithinTwoHoldTimesOfReadersTakingTheKeyBackToBack() throws Exception {
        Duration hold = Duration.ofMillis(400);
        for (boolean writerAmongReaders : new boolean[] {false, true}) {
            List<LockManager> readerClients = List.of(manager(), manager());
            LockManager writerClient = writerAmongReaders ? readerClients.get(0) : manager();
            String key = key();
            LockOptions read = waitingUpTo(Duration.ofSeconds(30)).shared(true).build();
            Sections sections = new Sections();

            try (Workers readers = Workers.start(readerClients, 4, (locks, random) -> {
                try (Lease lease = locks.acquire(key, read)) {
                    sections.inside(false, lease.fencingToken(), () -> Workers.pause(hold));
                }
            })) {
                // 8 readers back to back: the key is never free of readers from here on
                await().atMost(Duration.ofSeconds(20)).until(() -> sections.reads() >= 16);
                long asked = System.nanoTime();
                try (Lease writer = writerClient.acquire(
                        key, waitingUpTo(Duration.ofSeconds(20)).build())) {
                    Duration waited = Duration.ofNanos(System.nanoTime() - asked);
                    sections.inside(true, writer.fencingToken(), () -> {});
                    assertThat(waited)
                            .as("writer %s the readers' client waited", writerAmongReaders ? "in" : "beside")
                            .isLessThan(hold.multipliedBy(2));
                }
                readers.stop();
            }
            sections.assertNoViolations();
        }
    }

    @Test
    default void atMostNPermitsAreHeldAtOnceAndEveryPermitHasItsOwnToken() throws Exception {
        Sections sections = new Sections();
        List<LockManager> clients = List.of(manager(), manager());
        String key = key();
        LockOptions permit = waitingUpTo(Duration.ofSeconds(20)).permits(3).build();

        Workers.run(clients, 4, Duration.ofSeconds(3), (locks, random) -> {
            try (Lease lease = locks.acquire(key, permit)) {
                sections.insideCounted(lease.fencingToken(), () -> Workers.pause(random, 5));
            }
        });

        sections.assertNoViolations();
        assertThat(sections.mostCountedAtOnce()).isEqualTo(3);
    }

    @Test
    default void callersThatDisagreeOnTheNumberOfPermitsAreToldBothNumbers() {
        String key = key();
        manager().acquire(key, LockOptions.builder().leaseTime(LONG).permits(3).build());
        LockManager other = manager();

        assertThatIllegalStateException()
                .isThrownBy(() -> other.tryAcquire(
                        key, LockOptions.builder().leaseTime(LONG).permits(5).build()))
                .withMessageContaining("held with 3 permits")
                .withMessageContaining("asks for 5");
        assertThatIllegalStateException()
                .as("a caller that would wait is told too, at once")
                .isThrownBy(() ->
                        other.acquire(key, waitingUpTo(Duration.ofSeconds(30)).build()))
                .withMessageContaining("held with 3 permits")
                .withMessageContaining("asks for 1");
        assertThat(store().inspect(key).orElseThrow().leases()).isEqualTo(1);
    }

    @Test
    default void aWriterWaitingForReadersIsWokenWhenTheLastOneLeavesAndAReaderWhenTheWriterLeaves() throws Exception {
        String key = key();
        LockOptions read = waitingUpTo(Duration.ofSeconds(30)).shared(true).build();
        Lease firstReader = manager().acquire(key, read);
        Lease secondReader = manager().acquire(key, read);
        LockManager writerClient = manager();

        CompletableFuture<Lease> writer = CompletableFuture.supplyAsync(() ->
                writerClient.acquire(key, waitingUpTo(Duration.ofSeconds(30)).build()));
        firstReader.release();
        assertThat(store().inspect(key).orElseThrow().leases()).isEqualTo(1);
        secondReader.release();

        // Within a few seconds, far less than the readers' one-minute leases: woken, not waiting for expiry.
        Lease written = writer.get(10, TimeUnit.SECONDS);
        assertThat(store().inspect(key).orElseThrow().mode()).isEqualTo(LeaseMode.EXCLUSIVE);
        LockManager readerClient = manager();
        CompletableFuture<Lease> reader = CompletableFuture.supplyAsync(() -> readerClient.acquire(key, read));
        written.release();
        assertThat(reader.get(10, TimeUnit.SECONDS).fencingToken()).isGreaterThan(written.fencingToken());
    }

    @Test
    default void aNonReentrantHolderIsBusyForItselfLikeAnyOtherCaller() {
        LockManager locks = manager();
        String key = key();
        LockOptions once =
                LockOptions.builder().leaseTime(LONG).reentrant(false).build();

        try (Lease lease = locks.acquire(key, once)) {
            assertThat(locks.tryAcquire(key, once)).isEmpty();
            assertThat(locks.tryAcquire(key, LockOptions.of(LONG)))
                    .as("a non-reentrant hold is not re-entered by a reentrant request either")
                    .isEmpty();
            assertThat(lease.isHeld()).isTrue();
        }
        try (Lease reentrant = locks.acquire(key, LockOptions.of(LONG))) {
            Optional<Lease> again = locks.tryAcquire(key, LockOptions.of(LONG));
            assertThat(again).map(Lease::fencingToken).contains(reentrant.fencingToken());
            again.get().release();
        }
    }

    @Test
    default void aReaderAskingToWriteIsBusyRatherThanUpgradedAndAReaderReentersItsSharedLease() {
        LockManager locks = manager();
        String key = key();
        LockOptions read = LockOptions.builder().leaseTime(LONG).shared(true).build();

        try (Lease lease = locks.acquire(key, read)) {
            assertThat(locks.tryAcquire(key, LockOptions.of(LONG))).isEmpty();
            Optional<Lease> again = locks.tryAcquire(key, read);
            assertThat(again).map(Lease::fencingToken).contains(lease.fencingToken());
            again.get().release();
            assertThat(lease.isHeld()).isTrue();
        }
        assertThat(store().inspect(key)).isEmpty();
    }
}
