package io.fencepost.lock.reliability.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A JVM of the test's own on the test's class path, that talks with the test in lines: the test reads what it says
 * on standard output, tells it what to do on standard input, and freezes and resumes it with signals, as a GC pause
 * or a frozen VM would. Closing it kills it if it still runs.
 */
public final class ChildJvm implements AutoCloseable {

    private final Process process;

    private final BufferedReader out;

    private final Writer in;

    private ChildJvm(Process process) {
        this.process = process;
        this.out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        this.in = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    }

    /** Starts {@code main} with {@code args}; its standard error goes to {@code stderr}. */
    public static ChildJvm start(Class<?> main, ProcessBuilder.Redirect stderr, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                main.getName()));
        command.addAll(Arrays.asList(args));
        return new ChildJvm(new ProcessBuilder(command).redirectError(stderr).start());
    }

    /** The next line the child printed; null once it has closed its output. */
    public String readLine() throws IOException {
        return out.readLine();
    }

    /** Sends the child one line. */
    public void send(String line) throws IOException {
        in.write(line + "\n");
        in.flush();
    }

    /** Sends the child {@code kill -<signal>} ({@code STOP}, {@code CONT}, ...) and asserts that kill succeeded. */
    public void signal(String signal) throws Exception {
        long pid = process.pid();
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid))
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        assertThat(kill.waitFor(10, TimeUnit.SECONDS) && kill.exitValue() == 0)
                .as("kill -%s %d", signal, pid)
                .isTrue();
    }

    /** Waits for the child to exit; false if it still runs after {@code timeout}. */
    public boolean waitFor(long timeout, TimeUnit unit) throws InterruptedException {
        return process.waitFor(timeout, unit);
    }

    @Override
    public void close() {
        process.destroyForcibly();
    }
}
