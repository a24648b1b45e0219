package io.fencepost.lock.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RecentKeysTest {

    @Test
    void aMarkHoldsForTheWindowAndThenLapses() {
        RecentKeys keys = new RecentKeys(Duration.ofMillis(200), 10);
        keys.mark("a");

        assertThat(keys.contains("a")).isTrue();
        assertThat(keys.contains("b")).isFalse();
        await().atMost(Duration.ofSeconds(5)).until(() -> !keys.contains("a"));
    }

    @Test
    void markingAgainStartsTheWindowAgain() {
        RecentKeys keys = new RecentKeys(Duration.ofMinutes(1), 10);
        keys.mark("a");
        keys.mark("a");

        assertThat(keys.contains("a")).isTrue();
    }

    @Test
    void pastItsBoundItForgetsRatherThanGrows() {
        RecentKeys keys = new RecentKeys(Duration.ofMinutes(1), 2);
        keys.mark("a");
        keys.mark("b");
        keys.mark("c"); // no room, and nothing has lapsed: everything else is forgotten

        assertThat(keys.contains("c")).isTrue();
        assertThat(keys.contains("a")).isFalse();
        assertThat(keys.contains("b")).isFalse();
    }

    @Test
    void aWindowThatIsNotPositiveOrNoRoomIsRefusedWithTheValues() {
        assertThatThrownBy(() -> new RecentKeys(Duration.ZERO, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("PT0S");
        assertThatThrownBy(() -> new RecentKeys(Duration.ofSeconds(1), 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("positive window");
    }
}
