package io.fencepost.lock.core;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fencepost.lock.spi.LockListener;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class EngineSettingsTest {

    private static final Duration MS = Duration.ofMillis(1);

    @Test
    void settingsMadeWithoutTheBuilderAreCheckedAsTheBuilderChecksThem() {
        assertThatThrownBy(() -> new EngineSettings("app", LockListener.NONE, MS.multipliedBy(2), MS, MS))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("retry backoff must satisfy 0 < min <= max, was min=PT0.002S, max=PT0.001S");
        assertThatThrownBy(() -> new EngineSettings("app", LockListener.NONE, MS, MS, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("push fallback must be positive, was PT0S");
        assertThatThrownBy(() -> new EngineSettings("app", LockListener.NONE, null, MS, MS))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
