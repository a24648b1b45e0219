package io.fencepost.lock.benchmarks.scenarios;

import io.fencepost.lock.benchmarks.Harness;
import io.fencepost.lock.benchmarks.Series;
import io.fencepost.lock.benchmarks.clients.Library;
import io.fencepost.lock.benchmarks.clients.LockClient;
import java.util.EnumMap;
import java.util.Map;

/**
 * A key held by another client (another manager, registry or connection, as another application instance would
 * be): how fast does a single attempt learn that it lost?
 */
public final class LosingScenario {

    private final Harness harness;

    public LosingScenario(Harness harness) {
        this.harness = harness;
    }

    public Series<CycleResult> run() throws Exception {
        Map<Library, LockClient> holders = new EnumMap<>(Library.class);
        try {
            return Rounds.shortCycles(
                    harness,
                    "losing-tryAcquire",
                    (library, round) -> {
                        LockClient holder = holders.computeIfAbsent(library, l -> l.open(harness.context()));
                        return measure(library, holder);
                    },
                    Library.RAW_INSERT,
                    Library.RAW,
                    Library.FENCEPOST,
                    Library.FENCEPOST_STORE,
                    Library.SHEDLOCK,
                    Library.SPRING_INTEGRATION,
                    Library.REDISSON,
                    Library.ADVISORY);
        } finally {
            holders.values().forEach(LockClient::close);
        }
    }

    private CycleResult measure(Library library, LockClient holder) throws Exception {
        LockClient client = harness.client(library);
        String key = "bench:" + library.id() + ":busy";
        // Taken anew each round: Spring Integration's lock expires after 10 s unless renewed.
        try (HeldElsewhere busy = new HeldElsewhere(holder, key)) {
            return BackToBack.run(harness.settings().losingWindow(), () -> client.tryAcquire(busy.key()), held -> {
                if (held == null) {
                    return false;
                }
                held.release(); // won a key that is held elsewhere
                return true;
            });
        }
    }
}
