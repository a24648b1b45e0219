package io.fencepost.lock.benchmarks.scenarios;

import io.fencepost.lock.benchmarks.Harness;
import io.fencepost.lock.benchmarks.Series;
import io.fencepost.lock.benchmarks.clients.ClientContext;
import io.fencepost.lock.benchmarks.clients.ExtendableClient;
import io.fencepost.lock.benchmarks.clients.Library;
import java.util.List;

/**
 * One thread holds one lease and moves its end by hand, call after call, as fast as the library allows: Fencepost's
 * {@code Lease.extend} (exclusive, shared and permit leases), next to the owner-checked extensions the other libraries
 * offer: ShedLock's {@code SimpleLock.extend}, Spring Integration's {@code JdbcLockRegistry.renewLock} and Redisson's
 * {@code RPermitExpirableSemaphore.updateLeaseTime}. Redisson's {@code RLock} has no such call (its watchdog renews).
 */
public final class ExtendScenario {

    /** The libraries with an owner-checked call that moves the end of a held lease. */
    static final List<Library> LIBRARIES = List.of(
            Library.FENCEPOST,
            Library.FENCEPOST_SHARED,
            Library.FENCEPOST_PERMITS,
            Library.SHEDLOCK,
            Library.SPRING_INTEGRATION,
            Library.REDISSON_PERMITS);

    private final Harness harness;

    public ExtendScenario(Harness harness) {
        this.harness = harness;
    }

    public Series<CycleResult> run() throws Exception {
        return Rounds.shortCycles(
                harness, "extend", (library, round) -> measure(library), LIBRARIES.toArray(Library[]::new));
    }

    private CycleResult measure(Library library) throws Exception {
        ExtendableClient client = (ExtendableClient) harness.client(library);
        ExtendableClient.Extendable lease = client.hold("bench:" + library.id() + ":extend");
        try {
            return BackToBack.run(
                    harness.settings().cycleWindow(),
                    () -> lease.extend(ClientContext.LEASE_TIME),
                    extended -> !extended);
        } finally {
            lease.release();
        }
    }
}
