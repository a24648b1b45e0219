package io.fencepost.lock.test;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Captures, during each test, every record of a {@code java.util.logging} logger and its children, at every level.
 * Register it as {@code @RegisterExtension final LogCapture logs = new LogCapture("io.fencepost");}.
 */
public final class LogCapture implements BeforeEachCallback, AfterEachCallback {

    private final List<LogRecord> records = new CopyOnWriteArrayList<>();

    /** Held here: the logging framework keeps only weak references to its loggers. */
    private final Logger logger;

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

    private Level level;

    /** Captures the records of the logger {@code name} and of the loggers below it. */
    public LogCapture(String name) {
        this.logger = Logger.getLogger(name);
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        level = logger.getLevel();
        logger.setLevel(Level.ALL);
        capture.setLevel(Level.ALL);
        logger.addHandler(capture);
    }

    @Override
    public void afterEach(ExtensionContext context) {
        logger.removeHandler(capture);
        logger.setLevel(level);
    }

    /** The records captured so far, oldest first. */
    public List<LogRecord> records() {
        return records;
    }

    /** The messages of the records at exactly {@code level}, with their parameters filled in, oldest first. */
    public List<String> rendered(Level level) {
        SimpleFormatter formatter = new SimpleFormatter();
        return records.stream()
                .filter(record -> record.getLevel() == level)
                .map(formatter::formatMessage)
                .toList();
    }
}
