package io.fencepost.lock.reliability.leader;

import com.zaxxer.hikari.HikariDataSource;
import io.fencepost.lock.LeaderElection;
import io.fencepost.lock.LeadershipListener;
import io.fencepost.lock.Lease;
import io.fencepost.lock.jdbc.PostgresLockManager;
import io.fencepost.lock.jdbc.SchemaMode;
import io.fencepost.lock.reliability.support.Pools;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * One candidate of {@link LeaderElectionProcessTest}, in its own JVM: runs for leader of a group and prints
 * {@code GRANTED <term>} and {@code REVOKED <term>} as it is told; {@code YIELD} on its input steps down.
 *
 * <p>Arguments: jdbcUrl group leaseMillis name.
 */
public final class CandidateProcess {

    private CandidateProcess() {}

    public static void main(String[] args) throws Exception {
        try (HikariDataSource pool = Pools.hikari(args[0], "candidate-" + args[3], 4, 5_000);
                PostgresLockManager locks = PostgresLockManager.builder(pool)
                        .schemaMode(SchemaMode.VALIDATE)
                        .holderName(args[3])
                        .build();
                LeaderElection election = LeaderElection.builder(locks, args[1])
                        .leaseTime(Duration.ofMillis(Long.parseLong(args[2])))
                        .listener(new LeadershipListener() {
                            @Override
                            public void granted(Lease leadership) {
                                say("GRANTED " + leadership.fencingToken());
                            }

                            @Override
                            public void revoked(Lease leadership) {
                                say("REVOKED " + leadership.fencingToken());
                            }
                        })
                        .build()) {
            election.start();
            say("STARTED");
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            for (String command; (command = in.readLine()) != null; ) {
                if (command.equals("YIELD")) {
                    election.yieldLeadership();
                }
            }
        }
    }

    private static synchronized void say(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
