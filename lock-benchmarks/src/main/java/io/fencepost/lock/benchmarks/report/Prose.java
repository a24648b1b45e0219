package io.fencepost.lock.benchmarks.report;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Properties;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Report prose kept in a properties resource next to this class, as fragments with {@code {name}} placeholders,
 * so that the code that measures and chooses does not also carry the sentences.
 */
final class Prose {

    private static final Pattern PLACEHOLDER = Pattern.compile("\\{([A-Za-z0-9.-]+)}");

    private final String resource;

    private final Properties fragments;

    private Prose(String resource, Properties fragments) {
        this.resource = resource;
        this.fragments = fragments;
    }

    static Prose load(String resource) {
        Properties fragments = new Properties();
        try (InputStream in = Prose.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("no resource " + resource + " next to " + Prose.class.getName());
            }
            fragments.load(new InputStreamReader(in, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("reading " + resource, e);
        }
        return new Prose(resource, fragments);
    }

    /** The fragment {@code key} with every placeholder replaced by what {@code values} gives for its name. */
    String fill(String key, Function<String, String> values) {
        String text = fragments.getProperty(key);
        if (text == null) {
            throw new IllegalArgumentException("no fragment '" + key + "' in " + resource);
        }
        return PLACEHOLDER.matcher(text).replaceAll(m -> Matcher.quoteReplacement(values.apply(m.group(1))));
    }

    /** A paragraph put together from fragments of this prose, filled from {@code figures}. */
    Paragraph paragraph(Figures figures) {
        return new Paragraph(figures);
    }

    /** Fragments appended one after another as they are written, the ones that do not apply left out. */
    final class Paragraph {

        private final Figures figures;

        private final StringBuilder text = new StringBuilder();

        private Paragraph(Figures figures) {
            this.figures = figures;
        }

        Paragraph add(String key) {
            text.append(fill(key, figures));
            return this;
        }

        Paragraph addIf(boolean applies, String key) {
            return applies ? add(key) : this;
        }

        @Override
        public String toString() {
            return text.toString();
        }
    }
}
