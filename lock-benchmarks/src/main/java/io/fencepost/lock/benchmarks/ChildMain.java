package io.fencepost.lock.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import io.fencepost.lock.benchmarks.clients.ClientContext;
import io.fencepost.lock.benchmarks.clients.Library;
import io.fencepost.lock.benchmarks.clients.LockClient;
import io.fencepost.lock.benchmarks.clients.Nodes;
import io.fencepost.lock.benchmarks.scenarios.Candidate;
import io.fencepost.lock.benchmarks.scenarios.ContendedWorker;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * The second JVM of the contended, nodes and failover scenarios: another application instance with its own pool and
 * its own client per library (or leader candidate), driven by the first JVM over standard input. Replies start with
 * {@code @@}; anything else a library prints goes to standard error.
 */
public final class ChildMain {

    private ChildMain() {}

    /** Arguments: JDBC URL, database user, Redis host, Redis port, the fsynced Redis's port (0: none). */
    public static void main(String[] args) throws Exception {
        PrintStream replies = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true, "UTF-8");
        // Keep libraries that print to standard output from corrupting the replies.
        System.setOut(System.err);
        HikariDataSource pool = Pools.open(args[0], args[1], Harness.POOL_NAME + "-child", Pools.MAX_SIZE);
        ClientContext context = new ClientContext(
                pool, args[2], Integer.parseInt(args[3]), ClientContext.LEASE_TIME, Integer.parseInt(args[4]));
        Map<Library, LockClient> clients = new EnumMap<>(Library.class);
        List<Candidate> candidates = new ArrayList<>();
        Nodes nodes = Nodes.none();
        BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        replies.println("@@READY");
        try {
            String line;
            while ((line = commands.readLine()) != null) {
                String[] words = line.trim().split(" ");
                switch (words[0]) {
                    case "TIME" -> replies.println("@@TIME " + System.nanoTime());
                    case "JIT" -> replies.println("@@JIT " + JitActivity.ownMillis());
                    case "OPEN" -> {
                        clients.computeIfAbsent(Library.byId(words[1]), l -> l.open(context));
                        replies.println("@@OPEN");
                    }
                    case "NODES" -> {
                        // NODES <library> <count>: replaces this JVM's nodes (0 only closes them).
                        nodes.close();
                        nodes = Nodes.open(
                                Library.byId(words[1]),
                                Integer.parseInt(words[2]),
                                args[0],
                                args[1],
                                context,
                                Harness.POOL_NAME + "-child-node");
                        replies.println("@@NODES");
                    }
                    case "EVICT" -> {
                        // Idle connections of this JVM's pool back to the server, before the nodes need them.
                        pool.getHikariPoolMXBean().softEvictConnections();
                        replies.println("@@EVICT");
                    }
                    case "RUN" -> {
                        // A tenth word "nodes": one thread per node opened by NODES, instead of threads of one client.
                        boolean onNodes = words.length > 9 && words[9].equals("nodes");
                        LockClient client =
                                onNodes ? null : clients.computeIfAbsent(Library.byId(words[1]), l -> l.open(context));
                        ContendedWorker.Outcome outcome = ContendedWorker.run(
                                onNodes
                                        ? nodes.clients()
                                        : java.util.Collections.nCopies(Integer.parseInt(words[3]), client),
                                words[2],
                                Integer.parseInt(words[4]),
                                Long.parseLong(words[5]),
                                Long.parseLong(words[6]),
                                Long.parseLong(words[7]));
                        try (OutputStream out = Files.newOutputStream(Path.of(words[8]))) {
                            outcome.write(out);
                        }
                        replies.println("@@DONE " + outcome.events().size());
                    }
                    case "LEAD" -> {
                        // LEAD <library> <group> <lease millis>: a candidate that stays leader until this JVM dies.
                        Duration leaseTime = Duration.ofMillis(Long.parseLong(words[3]));
                        Candidate candidate = Library.byId(words[1]) == Library.FENCEPOST
                                ? Candidate.fencepost(context, words[2], leaseTime)
                                : Candidate.springIntegration(context, words[2], leaseTime);
                        candidates.add(candidate);
                        candidate.start();
                        replies.println(
                                candidate.awaitGrant(Duration.ofSeconds(30)) == null
                                        ? "@@ERROR not leader within 30 s"
                                        : "@@LEADER");
                    }
                    case "QUIT" -> {
                        return;
                    }
                    default -> replies.println("@@ERROR unknown command " + words[0]);
                }
            }
        } catch (Exception e) {
            e.printStackTrace();
            replies.println("@@ERROR " + e);
        } finally {
            candidates.forEach(Candidate::close);
            nodes.close();
            clients.values().forEach(LockClient::close);
            pool.close();
        }
    }
}
