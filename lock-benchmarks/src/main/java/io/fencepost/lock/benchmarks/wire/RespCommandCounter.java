package io.fencepost.lock.benchmarks.wire;

import java.util.Locale;

/** Reads what a Redis client sends (RESP arrays of bulk strings) and counts each command by its name. */
final class RespCommandCounter {

    private final WireCounter counter;

    private final ByteQueue queue = new ByteQueue();

    RespCommandCounter(WireCounter counter) {
        this.counter = counter;
    }

    void feed(byte[] bytes, int length) {
        queue.append(bytes, length);
        int consumed;
        while ((consumed = parseOne()) > 0) {
            queue.skip(consumed);
        }
    }

    /** Parses one whole command at the head of the queue; returns its length, or 0 when it is incomplete. */
    private int parseOne() {
        if (queue.available() == 0) {
            return 0;
        }
        int lineEnd = queue.indexOfCrlf(0);
        if (lineEnd < 0) {
            return 0;
        }
        if (queue.byteAt(0) != '*') {
            // an inline command: one line
            String line = queue.ascii(0, lineEnd).trim();
            int space = line.indexOf(' ');
            counter.statement((space < 0 ? line : line.substring(0, space)).toUpperCase(Locale.ROOT));
            return lineEnd + 2;
        }
        int elements = Integer.parseInt(queue.ascii(1, lineEnd - 1));
        int position = lineEnd + 2;
        String name = "?";
        for (int i = 0; i < elements; i++) {
            int headerEnd = queue.indexOfCrlf(position);
            if (headerEnd < 0) {
                return 0;
            }
            int size = Integer.parseInt(queue.ascii(position + 1, headerEnd - position - 1));
            int dataStart = headerEnd + 2;
            if (queue.available() < dataStart + size + 2) {
                return 0;
            }
            if (i == 0) {
                name = queue.ascii(dataStart, size).toUpperCase(Locale.ROOT);
            }
            position = dataStart + size + 2;
        }
        counter.statement(name);
        return position;
    }
}
