package io.fencepost.lock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencepost.lock.test.LogCapture;
import java.io.IOException;
import java.util.logging.Level;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class OutageLogTest {

    private static final String NAME = "io.fencepost.test.OutageLogTest";

    @RegisterExtension
    final LogCapture logs = new LogCapture(NAME);

    @Test
    void anOutageIsOneWarningWithTheCauseAndOneLineWhenItEnds() {
        OutageLog outage = new OutageLog(
                System.getLogger(NAME),
                "group ''{1}'' lost the store ({0})",
                "group ''{1}'' has the store again after {0}",
                "it's {weird}");
        outage.succeeded(); // no outage: nothing to say
        for (int i = 0; i < 5; i++) {
            outage.failed(new IOException("connection refused " + i));
        }
        assertThat(outage.isDown()).isTrue();
        outage.succeeded();
        outage.succeeded();

        assertThat(logs.rendered(Level.WARNING))
                .containsExactly("group 'it's {weird}' lost the store (java.io.IOException: connection refused 0)");
        assertThat(logs.rendered(Level.INFO))
                .singleElement()
                .asString()
                .startsWith("group 'it's {weird}' has the store again after ")
                .doesNotContain("PT");
        assertThat(logs.records())
                .filteredOn(r -> r.getLevel() == Level.FINE)
                .hasSize(5)
                .allMatch(r -> r.getThrown() != null);
        assertThat(logs.rendered(Level.FINE)).noneMatch(line -> line.contains("{0}") || line.contains("{1}"));
        assertThat(outage.isDown()).isFalse();
    }
}
