package io.fencepost.lock.benchmarks.wire;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/** Reads Redis's own statistics ({@code INFO}) over a plain socket, so that counting never goes through a client. */
public final class RedisInfo {

    private final String host;

    private final int port;

    public RedisInfo(String host, int port) {
        this.host = host;
        this.port = port;
    }

    /** Calls per command since the server started, lower-case names, this tool's own INFO calls left out. */
    public Map<String, Long> commandCalls() throws IOException {
        Map<String, Long> calls = new LinkedHashMap<>();
        for (String line : info("commandstats").split("\r\n")) {
            if (line.startsWith("cmdstat_")) {
                String name = line.substring("cmdstat_".length(), line.indexOf(':'));
                int start = line.indexOf("calls=") + "calls=".length();
                int end = line.indexOf(',', start);
                calls.put(
                        name.toLowerCase(Locale.ROOT),
                        Long.parseLong(line.substring(start, end < 0 ? line.length() : end)));
            }
        }
        calls.remove("info");
        return calls;
    }

    /** A field of {@code INFO server} or {@code INFO persistence}, such as {@code redis_version}. */
    public Map<String, String> facts() throws IOException {
        Map<String, String> facts = new LinkedHashMap<>();
        for (String section : new String[] {"server", "persistence"}) {
            for (String line : info(section).split("\r\n")) {
                int colon = line.indexOf(':');
                if (colon > 0 && !line.startsWith("#")) {
                    facts.put(line.substring(0, colon), line.substring(colon + 1));
                }
            }
        }
        return facts;
    }

    private String info(String section) throws IOException {
        try (Socket socket = new Socket(host, port)) {
            socket.setSoTimeout(5_000);
            OutputStream out = socket.getOutputStream();
            String command = "*2\r\n$4\r\nINFO\r\n$" + section.length() + "\r\n" + section + "\r\n";
            out.write(command.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = new BufferedInputStream(socket.getInputStream());
            String header = readLine(in);
            if (!header.startsWith("$")) {
                throw new IOException("unexpected INFO reply from Redis: " + header);
            }
            int length = Integer.parseInt(header.substring(1));
            byte[] body = in.readNBytes(length);
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    private static String readLine(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        int c;
        while ((c = in.read()) >= 0 && c != '\n') {
            if (c != '\r') {
                line.append((char) c);
            }
        }
        return line.toString();
    }

    /** The difference of two {@link #commandCalls()} readings, commands that did not change left out. */
    public static Map<String, Long> delta(Map<String, Long> after, Map<String, Long> before) {
        Map<String, Long> delta = new LinkedHashMap<>();
        after.forEach((name, n) -> {
            long d = n - before.getOrDefault(name, 0L);
            if (d != 0) {
                delta.put(name.toUpperCase(Locale.ROOT), d);
            }
        });
        return delta;
    }
}
