package io.fencepost.lock.benchmarks.wire;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** Bytes received but not yet parsed into whole messages. */
final class ByteQueue {

    private byte[] bytes = new byte[8 * 1024];

    private int start;

    private int end;

    void append(byte[] chunk, int length) {
        append(chunk, 0, length);
    }

    void append(byte[] chunk, int offset, int length) {
        if (end + length > bytes.length) {
            int live = end - start;
            byte[] target = live + length > bytes.length ? new byte[Math.max(bytes.length * 2, live + length)] : bytes;
            System.arraycopy(bytes, start, target, 0, live);
            bytes = target;
            start = 0;
            end = live;
        }
        System.arraycopy(chunk, offset, bytes, end, length);
        end += length;
    }

    int available() {
        return end - start;
    }

    byte byteAt(int offset) {
        return bytes[start + offset];
    }

    int intAt(int offset) {
        int p = start + offset;
        return ((bytes[p] & 0xff) << 24)
                | ((bytes[p + 1] & 0xff) << 16)
                | ((bytes[p + 2] & 0xff) << 8)
                | (bytes[p + 3] & 0xff);
    }

    /** The NUL-terminated string at {@code offset}, within {@code limit} bytes of the start. */
    String cString(int offset, int limit) {
        int p = start + offset;
        int stop = p;
        while (stop < start + limit && bytes[stop] != 0) {
            stop++;
        }
        return new String(bytes, p, stop - p, StandardCharsets.UTF_8);
    }

    /** Index (from the start) of the first CRLF at or after {@code offset}, or -1. */
    int indexOfCrlf(int offset) {
        for (int p = start + offset; p + 1 < end; p++) {
            if (bytes[p] == '\r' && bytes[p + 1] == '\n') {
                return p - start;
            }
        }
        return -1;
    }

    String ascii(int offset, int length) {
        return new String(
                Arrays.copyOfRange(bytes, start + offset, start + offset + length), StandardCharsets.US_ASCII);
    }

    void skip(int n) {
        start += n;
        if (start == end) {
            start = 0;
            end = 0;
        }
    }
}
