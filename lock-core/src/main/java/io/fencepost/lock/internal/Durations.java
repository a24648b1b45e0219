package io.fencepost.lock.internal;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;

/** Durations as people write them in messages and logs: "0 ms", "250 ms", "1.5 s", "2 min 5 s", "1 h 30 min". */
public final class Durations {

    private Durations() {}

    /** {@code duration} in the largest unit that keeps it short; sub-millisecond times as a fraction of a ms. */
    public static String readable(Duration duration) {
        if (duration == null) {
            return "null";
        }
        if (duration.isNegative()) {
            return "-" + readable(duration.negated());
        }
        long nanos = saturatedNanos(duration);
        if (nanos == 0) {
            return "0 ms";
        }
        if (nanos < 1_000_000L) {
            return trimmed(nanos / 1_000_000.0, 3) + " ms";
        }
        if (nanos < 1_000_000_000L) {
            return trimmed(nanos / 1_000_000.0, 1) + " ms";
        }
        long seconds = duration.getSeconds();
        if (seconds < 60) {
            return trimmed(nanos / 1_000_000_000.0, 1) + " s";
        }
        if (seconds < 3600) {
            return joined(seconds / 60, "min", seconds % 60, "s");
        }
        if (seconds < 86_400) {
            return joined(seconds / 3600, "h", seconds % 3600 / 60, "min");
        }
        return joined(seconds / 86_400, "d", seconds % 86_400 / 3600, "h");
    }

    private static long saturatedNanos(Duration duration) {
        try {
            return duration.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }

    private static String joined(long major, String majorUnit, long minor, String minorUnit) {
        return minor == 0 ? major + " " + majorUnit : major + " " + majorUnit + " " + minor + " " + minorUnit;
    }

    /** {@code value} with at most {@code decimals} decimals and no trailing zeros, never grouped ("1000", not "1,000"). */
    private static String trimmed(double value, int decimals) {
        return BigDecimal.valueOf(value)
                .setScale(decimals, RoundingMode.HALF_UP)
                .stripTrailingZeros()
                .toPlainString();
    }
}
