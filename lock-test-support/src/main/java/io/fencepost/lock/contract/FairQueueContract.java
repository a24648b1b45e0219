package io.fencepost.lock.contract;

import static io.fencepost.lock.contract.StoreUnderTest.key;
import static io.fencepost.lock.contract.StoreUnderTest.token;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fencepost.lock.spi.AcquireRequest;
import io.fencepost.lock.spi.AcquireResult;
import io.fencepost.lock.spi.FairQueue;
import io.fencepost.lock.spi.QueueTicket;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The contract of {@link FairQueue}, for a store that has that ability: a test class that extends
 * {@link LeaseStoreContract} implements this interface too, and its tests run with the others.
 */
public interface FairQueueContract extends StoreUnderTest {

    default FairQueue fairQueue() {
        assertThat(store()).as("the store under test").isInstanceOf(FairQueue.class);
        return (FairQueue) store();
    }

    default AcquireResult acquireInTurn(
            String key, String owner, String holder, Duration leaseTime, QueueTicket ticket) {
        return fairQueue().acquireInTurn(new AcquireRequest(key, owner, holder, leaseTime, true), ticket);
    }

    @Test
    default void fairModeServesTheLowestLiveTicketFirst() {
        String key = key();
        String first = token();
        String second = token();
        QueueTicket t1 = fairQueue().enqueue(key, first, LONG);
        QueueTicket t2 = fairQueue().enqueue(key, second, LONG);
        assertThat(t2.number()).isGreaterThan(t1.number());

        assertThat(acquireInTurn(key, token(), "late", LONG, t2)).isInstanceOf(AcquireResult.Busy.class);
        assertThat(acquireInTurn(key, token(), "barger", LONG, QueueTicket.notQueued(key, token(), LONG)))
                .as("a caller that does not queue waits behind the queue")
                .isInstanceOf(AcquireResult.Busy.class);
        String owner = token();
        AcquireResult.Granted granted = (AcquireResult.Granted) acquireInTurn(key, owner, "first", LONG, t1);
        assertThat(release(key, owner, Duration.ZERO)).isTrue();

        assertThat(acquireInTurn(key, token(), "second", LONG, t2))
                .isInstanceOfSatisfying(
                        AcquireResult.Granted.class,
                        g -> assertThat(g.fencingToken()).isGreaterThan(granted.fencingToken()));
    }

    @Test
    default void aLapsedTicketNoLongerBlocksTheQueueAndARefreshedOneDoes() {
        String key = key();
        String deadWaiter = token();
        String liveWaiter = token();
        String lateWaiter = token();
        fairQueue().enqueue(key, deadWaiter, SHORT);
        QueueTicket live = fairQueue().enqueue(key, liveWaiter, SHORT);
        QueueTicket late = fairQueue().enqueue(key, lateWaiter, LONG);
        String holder = token();
        grant(key, holder, LONG);

        // The live waiter's re-checks (busy: the key is held) keep its ticket; the dead one's lapses.
        await().pollInterval(Duration.ofMillis(50))
                .during(SHORT.multipliedBy(2))
                .atMost(Duration.ofSeconds(5))
                .until(() -> acquireInTurn(key, token(), "live", LONG, live) instanceof AcquireResult.Busy);
        acquireInTurn(key, token(), "live", LONG, live);
        release(key, holder, Duration.ZERO);

        assertThat(acquireInTurn(key, token(), "late", LONG, late))
                .as("the live waiter's refreshed ticket is still ahead")
                .isInstanceOf(AcquireResult.Busy.class);
        fairQueue().dequeue(live);
        assertThat(acquireInTurn(key, token(), "late", LONG, late)).isInstanceOf(AcquireResult.Granted.class);
    }

    @Test
    default void aCallerThatDoesNotQueueIsServedWhileNobodyWaits() {
        String key = key();
        String owner = token();

        assertThat(acquireInTurn(key, owner, "passer-by", LONG, QueueTicket.notQueued(key, token(), LONG)))
                .isInstanceOf(AcquireResult.Granted.class);
        assertThat(release(key, owner, Duration.ZERO)).isTrue();
    }
}
