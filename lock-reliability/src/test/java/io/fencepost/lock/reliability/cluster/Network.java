package io.fencepost.lock.reliability.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Hosts as network namespaces joined by one bridge, as machines on a switch: every host has one address on
 * {@value #SUBNET}.0/24, the test JVM reaches them all through the bridge's own address ({@value #SUBNET}.1), and a
 * link between two hosts is cut with a blackhole route on each side, so that packets vanish as they would in a real
 * partition (no reset, no error: the peers find out by their timeouts).
 *
 * <p>Every name starts with {@value #PREFIX}; {@link #close()} removes the namespaces (killing every process still
 * in them) and the bridge, and {@link #removeLeftovers()} does the same for a run that died before it could.
 */
final class Network implements AutoCloseable {

    static final String PREFIX = "fpha-";

    static final String SUBNET = "10.211.0";

    private static final String BRIDGE = PREFIX + "br";

    /** The test JVM's address on the bridge: never partitioned, so the orchestrator can always see everything. */
    static final String GATEWAY = SUBNET + ".1";

    private final Set<String> hosts = new LinkedHashSet<>();

    private final Set<String> cuts = new LinkedHashSet<>();

    private Network() {}

    /** What is missing to build a network here, if anything (root, iproute2, namespaces). */
    static Optional<String> missing() {
        if (!"root".equals(System.getProperty("user.name"))) {
            return Optional.of("network namespaces need root (running as " + System.getProperty("user.name") + ")");
        }
        if (!Files.isExecutable(Path.of("/usr/sbin/ip")) && !Files.isExecutable(Path.of("/sbin/ip"))) {
            return Optional.of("the ip command (iproute2) is missing");
        }
        String probe = PREFIX + "probe";
        Result made = exec(List.of("ip", "netns", "add", probe));
        exec(List.of("ip", "netns", "del", probe));
        if (made.exit != 0) {
            return Optional.of("cannot create a network namespace: " + made.output.strip());
        }
        return Optional.empty();
    }

    /** A bridge with no hosts yet; leftovers of an earlier run that died are removed first. */
    static Network create() {
        removeLeftovers();
        Network network = new Network();
        try {
            run("ip", "link", "add", BRIDGE, "type", "bridge");
            run("ip", "addr", "add", GATEWAY + "/24", "dev", BRIDGE);
            run("ip", "link", "set", BRIDGE, "up");
            return network;
        } catch (RuntimeException e) {
            network.close();
            throw e;
        }
    }

    /** Adds host {@code name} (a namespace) at {@link #SUBNET}.{@code octet}; returns its address. */
    String addHost(String name, int octet) {
        String namespace = PREFIX + name;
        String address = SUBNET + "." + octet;
        String hostSide = PREFIX + name + "-h";
        run("ip", "netns", "add", namespace);
        hosts.add(name);
        run("ip", "link", "add", hostSide, "type", "veth", "peer", "name", "eth0", "netns", namespace);
        run("ip", "link", "set", hostSide, "master", BRIDGE, "up");
        run("ip", "-n", namespace, "addr", "add", address + "/24", "dev", "eth0");
        run("ip", "-n", namespace, "link", "set", "eth0", "up");
        run("ip", "-n", namespace, "link", "set", "lo", "up");
        return address;
    }

    /** The command prefix that runs a program inside host {@code name}. */
    static List<String> inside(String name) {
        return List.of("ip", "netns", "exec", PREFIX + name);
    }

    /** Cuts the link between hosts {@code a} and {@code b} (at addresses {@code addressA}, {@code addressB}). */
    synchronized void cut(String a, String addressA, String b, String addressB) {
        blackhole(a, addressB);
        blackhole(b, addressA);
    }

    private void blackhole(String host, String address) {
        String cut = host + " " + address;
        if (cuts.add(cut)) {
            run("ip", "-n", PREFIX + host, "route", "add", "blackhole", address + "/32");
        }
    }

    /** Restores every link that was cut. */
    synchronized void heal() {
        for (String cut : List.copyOf(cuts)) {
            String[] parts = cut.split(" ");
            exec(List.of("ip", "-n", PREFIX + parts[0], "route", "del", "blackhole", parts[1] + "/32"));
            cuts.remove(cut);
        }
    }

    synchronized boolean isCut() {
        return !cuts.isEmpty();
    }

    /** The processes inside host {@code name}. */
    static List<Long> pids(String name) {
        Result result = exec(List.of("ip", "netns", "pids", PREFIX + name));
        List<Long> pids = new ArrayList<>();
        if (result.exit == 0) {
            for (String line : result.output.split("\\s+")) {
                if (!line.isBlank()) {
                    pids.add(Long.parseLong(line.strip()));
                }
            }
        }
        return pids;
    }

    /** A process's command line, words joined by spaces; empty when it is gone. */
    static String commandLine(long pid) {
        try {
            return new String(
                            Files.readAllBytes(Path.of("/proc", Long.toString(pid), "cmdline")), StandardCharsets.UTF_8)
                    .replace('\0', ' ')
                    .strip();
        } catch (IOException e) {
            return "";
        }
    }

    /** Sends {@code signal} (such as {@code KILL}, {@code STOP}, {@code CONT}) to the processes, quietly. */
    static void signal(String signal, List<Long> pids) {
        if (pids.isEmpty()) {
            return;
        }
        List<String> command = new ArrayList<>(List.of("kill", "-" + signal));
        pids.forEach(p -> command.add(Long.toString(p)));
        exec(command);
    }

    /** Kills every process in the namespaces and removes them and the bridge. */
    @Override
    public void close() {
        for (String host : hosts) {
            removeNamespace(PREFIX + host);
        }
        hosts.clear();
        cuts.clear();
        removeLinks();
    }

    /** Removes whatever an earlier run left: its namespaces (and their processes) and its bridge. */
    static void removeLeftovers() {
        Result list = exec(List.of("ip", "netns", "list"));
        if (list.exit == 0) {
            for (String line : list.output.split("\n")) {
                String name = line.strip().split("\\s+")[0];
                if (name.startsWith(PREFIX)) {
                    removeNamespace(name);
                }
            }
        }
        removeLinks();
    }

    /**
     * Deletes the bridge and the host ends of the veth pairs. A removed namespace lingers in the kernel while
     * sockets of its killed processes wind down (to an unreachable peer, minutes), and its veth pair with it: deleting
     * the host end now leaves nothing behind.
     */
    private static void removeLinks() {
        Result links = exec(List.of("ip", "-o", "link", "show"));
        if (links.exit == 0) {
            for (String line : links.output.split("\n")) {
                String[] fields = line.split(":\\s+");
                if (fields.length > 1) {
                    String name = fields[1].split("@")[0].strip();
                    if (name.startsWith(PREFIX) && !name.equals(BRIDGE)) {
                        exec(List.of("ip", "link", "del", name));
                    }
                }
            }
        }
        exec(List.of("ip", "link", "del", BRIDGE));
    }

    private static void removeNamespace(String namespace) {
        for (int attempt = 0; attempt < 50; attempt++) {
            Result pids = exec(List.of("ip", "netns", "pids", namespace));
            if (pids.exit != 0 || pids.output.isBlank()) {
                break;
            }
            List<String> command = new ArrayList<>(List.of("kill", "-KILL"));
            command.addAll(List.of(pids.output.strip().split("\\s+")));
            exec(command);
            sleep(100);
        }
        exec(List.of("ip", "netns", "del", namespace));
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    record Result(int exit, String output) {}

    /** Runs a command, failing with its output when it exits non-zero. */
    static String run(String... command) {
        Result result = exec(List.of(command));
        if (result.exit != 0) {
            throw new IllegalStateException(
                    "failed (exit " + result.exit + "): " + String.join(" ", command) + "\n" + result.output);
        }
        return result.output;
    }

    /** Runs a command and returns its exit code and output (stdout and stderr together). */
    static Result exec(List<String> command) {
        try {
            Process process = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                    .start();
            byte[] output = process.getInputStream().readAllBytes();
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                return new Result(-1, "timed out");
            }
            return new Result(process.exitValue(), new String(output, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Result(-1, "interrupted");
        }
    }
}
