package io.fencepost.lock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class DurationsTest {

    @Test
    void writesDurationsAsPeopleDo() {
        assertThat(Durations.readable(Duration.ZERO)).isEqualTo("0 ms");
        assertThat(Durations.readable(Duration.ofNanos(72_408))).isEqualTo("0.072 ms");
        assertThat(Durations.readable(Duration.ofMillis(250))).isEqualTo("250 ms");
        assertThat(Durations.readable(Duration.ofMillis(1500))).isEqualTo("1.5 s");
        assertThat(Durations.readable(Duration.ofSeconds(5))).isEqualTo("5 s");
        assertThat(Durations.readable(Duration.ofSeconds(125))).isEqualTo("2 min 5 s");
        assertThat(Durations.readable(Duration.ofMinutes(90))).isEqualTo("1 h 30 min");
        assertThat(Durations.readable(Duration.ofHours(1))).isEqualTo("1 h");
        assertThat(Durations.readable(Duration.ofDays(3))).isEqualTo("3 d");
        assertThat(Durations.readable(Duration.ofDays(365L * 200))).isEqualTo("73000 d");
    }
}
