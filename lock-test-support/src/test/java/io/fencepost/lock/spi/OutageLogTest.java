package io.fencepost.lock.spi;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class OutageLogTest {

    private static final String NAME = "io.fencepost.test.OutageLogTest";

    private final List<LogRecord> records = new CopyOnWriteArrayList<>();

    private final Logger logger = Logger.getLogger(NAME);

    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            records.add(record);
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    };

    @BeforeEach
    void capture() {
        logger.setLevel(Level.ALL);
        capture.setLevel(Level.ALL);
        logger.addHandler(capture);
    }

    @AfterEach
    void release() {
        logger.removeHandler(capture);
    }

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

        assertThat(rendered(Level.WARNING))
                .containsExactly("group 'it's {weird}' lost the store (java.io.IOException: connection refused 0)");
        assertThat(rendered(Level.INFO))
                .singleElement()
                .asString()
                .startsWith("group 'it's {weird}' has the store again after ")
                .doesNotContain("PT");
        assertThat(records)
                .filteredOn(r -> r.getLevel() == Level.FINE)
                .hasSize(5)
                .allMatch(r -> r.getThrown() != null);
        assertThat(rendered(Level.FINE)).noneMatch(line -> line.contains("{0}") || line.contains("{1}"));
        assertThat(outage.isDown()).isFalse();
    }

    private List<String> rendered(Level level) {
        SimpleFormatter formatter = new SimpleFormatter();
        return records.stream()
                .filter(r -> r.getLevel() == level)
                .map(formatter::formatMessage)
                .toList();
    }
}
