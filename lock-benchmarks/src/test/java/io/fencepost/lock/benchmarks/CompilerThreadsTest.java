package io.fencepost.lock.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CompilerThreadsTest {

    @TempDir
    Path tasks;

    @Test
    void countsTheCompilerThreadsCpuWhileTheyRunAndKeepsWhatAnEndedOneUsed() throws Exception {
        thread("11", "C2 CompilerThre", 30, 5);
        thread("12", "C1 CompilerThre", 4, 1);
        thread("13", "contender-1-0", 900, 100); // not a compiler: never counted
        CompilerThreads compilers = new CompilerThreads(tasks);

        assertThat(compilers.cpuMillis()).hasValue((30 + 5 + 4 + 1) * 10);

        thread("11", "C2 CompilerThre", 70, 5); // a compilation in progress: its thread's time grows
        assertThat(compilers.cpuMillis()).hasValue((70 + 5 + 4 + 1) * 10);

        Files.delete(tasks.resolve("12").resolve("stat")); // the JVM ends an idle compiler thread
        Files.delete(tasks.resolve("12"));
        assertThat(compilers.cpuMillis()).hasValue((70 + 5 + 4 + 1) * 10);
    }

    @Test
    void aJvmWhoseCompilersAreNamedOtherwiseIsLeftToTheJdksFigure() throws Exception {
        thread("21", "JVMCI CompilerT", 50, 5);
        thread("22", "main", 300, 10);

        assertThat(new CompilerThreads(tasks).cpuMillis()).isEmpty();
    }

    @Test
    void thisJvmsCompilersHaveWorkedAndTheirTimeNeverGoesBack() {
        CompilerThreads compilers = CompilerThreads.ofThisJvm();
        if (compilers.cpuMillis().isEmpty()) {
            return; // not Linux: JitActivity falls back to the JDK's compilation time
        }
        long first = compilers.cpuMillis().getAsLong();
        assertThat(compilers.cpuMillis().getAsLong()).isGreaterThanOrEqualTo(first);
    }

    /** A /proc task entry as Linux writes it: pid (comm) state and 49 more fields, utime and stime the 14th and 15th. */
    private void thread(String id, String name, long utime, long stime) throws Exception {
        Path dir = Files.createDirectories(tasks.resolve(id));
        String stat = id + " (" + name + ") S 1 1 1 0 -1 4194368 100 0 0 0 " + utime + " " + stime
                + " 0 0 20 0 30 0 9999 3714216 4000 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 -1 1 0 0 0 0 0\n";
        Files.writeString(dir.resolve("stat"), stat);
    }
}
