package io.fencepost.lock.benchmarks.clients;

import java.net.URISyntaxException;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The version of the library a class was loaded from, as resolved by this build (not as hoped for). */
public final class Versions {

    private static final Pattern JAR_VERSION = Pattern.compile("-(\\d+(?:\\.\\d+)+(?:[.-][A-Za-z0-9]+)?)\\.jar$");

    private Versions() {}

    public static String of(Class<?> type) {
        String version = type.getPackage() == null ? null : type.getPackage().getImplementationVersion();
        if (version != null) {
            return version;
        }
        try {
            CodeSource source = type.getProtectionDomain().getCodeSource();
            if (source != null) {
                String file =
                        Path.of(source.getLocation().toURI()).getFileName().toString();
                Matcher matcher = JAR_VERSION.matcher(file);
                if (matcher.find()) {
                    return matcher.group(1);
                }
            }
        } catch (URISyntaxException | RuntimeException e) {
            // fall through: an unknown version is reported as such
        }
        return "?";
    }
}
