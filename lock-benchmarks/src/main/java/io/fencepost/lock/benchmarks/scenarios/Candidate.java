package io.fencepost.lock.benchmarks.scenarios;

import io.fencepost.lock.LeaderElection;
import io.fencepost.lock.LeadershipListener;
import io.fencepost.lock.Lease;
import io.fencepost.lock.benchmarks.clients.ClientContext;
import io.fencepost.lock.benchmarks.clients.SpringIntegrationClient;
import io.fencepost.lock.jdbc.PostgresLockManager;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import org.springframework.integration.jdbc.lock.DefaultLockRepository;
import org.springframework.integration.jdbc.lock.JdbcLockRegistry;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

/**
 * One application instance competing for the leadership of a group, with its own lock client (its own manager or
 * repository), recording when it was granted leadership. The failover scenario and the second JVM both use it.
 */
public abstract class Candidate implements AutoCloseable {

    /** {@link System#nanoTime()} of each grant, in order. */
    final BlockingQueue<Long> grants = new LinkedBlockingQueue<>();

    /** Joins the election in the background. */
    public abstract void start();

    /** Whether this candidate leads now, as the library tells it. */
    public abstract boolean isLeader();

    /** Steps down now, staying in the election, as the library offers it. */
    public abstract void yieldLeadership();

    /** Steps down, if leader, and leaves; closes what the candidate opened. */
    @Override
    public abstract void close();

    /** The next grant's {@link System#nanoTime()}, waiting up to {@code timeout}; null when none came. */
    public Long awaitGrant(Duration timeout) throws InterruptedException {
        return grants.poll(timeout.toNanos(), java.util.concurrent.TimeUnit.NANOSECONDS);
    }

    /** Drops the grants recorded so far (one that came after a hand-over was given up must not count later). */
    void forgetGrants() {
        grants.clear();
    }

    /** The key the library locks for {@code group}, as it appears in its table's key column. */
    static String fencepostKey(String group) {
        return "fencepost:leader:" + group;
    }

    /** Fencepost's {@code LeaderElection} on a manager of its own (default settings). */
    public static Candidate fencepost(ClientContext context, String group, Duration leaseTime) {
        PostgresLockManager locks =
                PostgresLockManager.builder(context.dataSource()).build();
        return new Candidate() {
            private final LeaderElection election = LeaderElection.builder(locks, group)
                    .leaseTime(leaseTime)
                    .listener(new LeadershipListener() {
                        @Override
                        public void granted(Lease leadership) {
                            grants.add(System.nanoTime());
                        }

                        @Override
                        public void revoked(Lease leadership) {}
                    })
                    .build();

            @Override
            public void start() {
                election.start();
            }

            @Override
            public boolean isLeader() {
                return election.isLeader();
            }

            @Override
            public void yieldLeadership() {
                election.yieldLeadership();
            }

            @Override
            public void close() {
                election.close();
                locks.close();
            }
        };
    }

    /**
     * Spring Integration's {@code LockRegistryLeaderInitiator} over a {@code JdbcLockRegistry} with its own
     * repository (its own client id) whose time to live is {@code leaseTime}; heartbeat and busy wait as shipped.
     */
    public static Candidate springIntegration(ClientContext context, String group, Duration leaseTime) {
        DefaultLockRepository repository = SpringIntegrationClient.startedRepository(context);
        JdbcLockRegistry registry = new JdbcLockRegistry(repository, leaseTime);
        return new Candidate() {
            private final LockRegistryLeaderInitiator initiator = new LockRegistryLeaderInitiator(
                    registry, new DefaultCandidate(UUID.randomUUID().toString(), group) {
                        @Override
                        public void onGranted(Context ctx) {
                            grants.add(System.nanoTime());
                        }
                    });

            @Override
            public void start() {
                initiator.start();
            }

            @Override
            public boolean isLeader() {
                return initiator.getContext().isLeader();
            }

            @Override
            public void yieldLeadership() {
                initiator.getContext().yield();
            }

            @Override
            public void close() {
                initiator.stop();
                repository.stop();
                repository.close();
            }
        };
    }
}
