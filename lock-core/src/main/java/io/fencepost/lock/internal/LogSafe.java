package io.fencepost.lock.internal;

/**
 * Text from outside (lock keys, group names, principals) made safe to put in a log line: keys may come from request
 * data, and a key with a line break in it would otherwise write a forged line into the log. Control characters and
 * the Unicode line and paragraph separators become {@code \\uXXXX}; everything else, every ordinary key included,
 * is left as it is.
 */
public final class LogSafe {

    private LogSafe() {}

    /** {@code text} with its control characters and line separators escaped; "null" for null. */
    public static String text(String text) {
        if (text == null) {
            return "null";
        }
        if (text.codePoints().noneMatch(LogSafe::unsafe)) {
            return text;
        }
        StringBuilder out = new StringBuilder(text.length() + 16);
        text.codePoints().forEach(c -> {
            if (unsafe(c)) {
                out.append(String.format("\\u%04x", c));
            } else {
                out.appendCodePoint(c);
            }
        });
        return out.toString();
    }

    private static boolean unsafe(int c) {
        return Character.isISOControl(c) || c == '\u2028' || c == '\u2029';
    }
}
