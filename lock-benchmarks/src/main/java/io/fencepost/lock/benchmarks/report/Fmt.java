package io.fencepost.lock.benchmarks.report;

import java.time.Duration;
import java.util.Locale;

/** Number formatting for the report: thousands separators, units, and a dash for what was not measured. */
final class Fmt {

    static final String NONE = "–";

    private Fmt() {}

    static String count(double v) {
        return Double.isNaN(v) ? NONE : String.format(Locale.ROOT, "%,.0f", v);
    }

    static String dec(double v, int digits) {
        return Double.isNaN(v) ? NONE : String.format(Locale.ROOT, "%." + digits + "f", v);
    }

    /** Two significant-ish digits for small values, none for large ones. */
    static String num(double v) {
        if (Double.isNaN(v)) {
            return NONE;
        }
        double a = Math.abs(v);
        if (a >= 100) {
            return String.format(Locale.ROOT, "%,.0f", v);
        }
        if (a >= 10) {
            return String.format(Locale.ROOT, "%.1f", v);
        }
        return String.format(Locale.ROOT, "%.2f", v);
    }

    static String us(double micros) {
        return Double.isNaN(micros) ? NONE : num(micros) + " µs";
    }

    static String ms(double millis) {
        return Double.isNaN(millis) ? NONE : num(millis) + " ms";
    }

    static String ratio(double v) {
        return Double.isNaN(v) || Double.isInfinite(v) ? NONE : String.format(Locale.ROOT, "%.2f×", v);
    }

    static String pct(double share) {
        return Double.isNaN(share) ? NONE : String.format(Locale.ROOT, "%.0f %%", share * 100);
    }

    static String secs(Duration d) {
        return String.format(Locale.ROOT, "%.1f s", d.toNanos() / 1e9);
    }

    static String range(double min, double max) {
        return Double.isNaN(min) ? NONE : count(min) + "–" + count(max);
    }
}
