package io.fencepost.lock.spring.integration;

import static io.micrometer.observation.tck.TestObservationRegistryAssert.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

import io.fencepost.lock.DistributedLock;
import io.fencepost.lock.Lease;
import io.fencepost.lock.LockManager;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.OnLocked;
import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import io.fencepost.lock.spring.test.LockContextRunners;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code @DistributedLock} calls as Micrometer observations: one around the acquisition, one around the hold that
 * is current while the method runs (so the method's own spans nest in it), with only the name and result as
 * low-cardinality values.
 */
class LockObservationTest {

    @RegisterExtension
    static PostgresTestDatabase db = new PostgresTestDatabase();

    private final ApplicationContextRunner contextRunner = LockContextRunners.onDatabase(db)
            .withPropertyValues("spring.datasource.hikari.maximum-pool-size=4")
            .withBean(ObservationRegistry.class, TestObservationRegistry::create)
            .withBean(Settlement.class);

    @Test
    void observesTheAcquisitionAndTheHoldAroundTheMethod() {
        contextRunner.run(context -> {
            TestObservationRegistry registry = (TestObservationRegistry) context.getBean(ObservationRegistry.class);
            Settlement settlement = context.getBean(Settlement.class);

            Observation current = settlement.settle(42);

            assertThat(registry)
                    .hasObservationWithNameEqualTo("fencepost.lock.acquisition")
                    .that()
                    .hasContextualNameEqualTo("acquire settlement")
                    .hasLowCardinalityKeyValue("name", "settlement")
                    .hasLowCardinalityKeyValue("result", "acquired")
                    .hasHighCardinalityKeyValue("key", "invoice:42")
                    .hasBeenStarted()
                    .hasBeenStopped();
            assertThat(registry)
                    .hasObservationWithNameEqualTo("fencepost.lock.hold")
                    .that()
                    .hasContextualNameEqualTo("hold settlement")
                    .hasLowCardinalityKeyValue("name", "settlement")
                    .hasLowCardinalityKeyValue("result", "released")
                    .hasHighCardinalityKeyValue("key", "invoice:42")
                    .hasBeenStopped();
            assertThat(current).as("the observation current inside the method").isNotNull();
            assertThat(current.getContext().getName()).isEqualTo("fencepost.lock.hold");
            assertThat(registry)
                    .hasNumberOfObservationsEqualTo(2)
                    .forAllObservationsWithNameEqualTo(
                            "fencepost.lock.acquisition",
                            observation -> observation
                                    .doesNotHaveLowCardinalityKeyValueWithKey("key")
                                    .doesNotHaveLowCardinalityKeyValue("name", "invoice:42"))
                    .forAllObservationsWithNameEqualTo(
                            "fencepost.lock.hold",
                            observation -> observation
                                    .doesNotHaveLowCardinalityKeyValueWithKey("key")
                                    .doesNotHaveLowCardinalityKeyValueWithKey("fencing.token"));
        });
    }

    @Test
    void aSkippedCallIsAnAcquisitionWithResultSkippedAndNoHold() throws Exception {
        contextRunner.run(context -> {
            TestObservationRegistry registry = (TestObservationRegistry) context.getBean(ObservationRegistry.class);
            Settlement settlement = context.getBean(Settlement.class);
            LockManager locks = context.getBean(LockManager.class);
            try (Lease held = locks.acquire("nightly", LockOptions.of(Duration.ofSeconds(30)))) {
                assertThat(CompletableFuture.supplyAsync(settlement::nightly).get(10, TimeUnit.SECONDS))
                        .isFalse();
            }
            assertThat(registry)
                    .hasObservationWithNameEqualTo("fencepost.lock.acquisition")
                    .that()
                    .hasLowCardinalityKeyValue("name", "nightly")
                    .hasLowCardinalityKeyValue("result", "skipped");
            assertThat(registry).hasNumberOfObservationsWithNameEqualTo("fencepost.lock.hold", 0);
        });
    }

    static class Settlement {

        private final ObservationRegistry registry;

        Settlement(ObservationRegistry registry) {
            this.registry = registry;
        }

        @DistributedLock(key = "'invoice:' + #id", name = "settlement")
        public Observation settle(long id) {
            return registry.getCurrentObservation();
        }

        @DistributedLock(key = "'nightly'", name = "nightly", onLocked = OnLocked.SKIP)
        public boolean nightly() {
            return true;
        }
    }
}
