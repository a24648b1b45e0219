package io.fencepost.sample.lab;

import com.zaxxer.hikari.HikariDataSource;
import io.fencepost.lock.Lease;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.LockStoreException;
import io.fencepost.lock.jdbc.PostgresLockManager;
import io.fencepost.sample.db.ReplicatedPair;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * Step 6, don't trust one node: the lock store is a primary with a streaming standby (embedded, from the same
 * binaries); client x is granted the key, the primary is killed ({@code kill -9}) right after and the standby promoted,
 * and client y asks for the key on the promoted store. Asynchronously replicated, the standby never saw x's grant: y
 * is granted the key while x still believes it holds it (a double grant), and without fencing both write the
 * resource (a lost update). Synchronously replicated, x's grant is not confirmed until the standby has it: x is never
 * told it holds a grant the promoted store lacks. To make the asynchronous case show every time, the standby's WAL
 * receiver is stopped just before x's grant (in both variants), as the Patroni tests stall replication.
 */
final class FailoverStep implements LabStep {

    /** Long enough that no lease runs out during the failover: the double grant is the replica's doing, not expiry's. */
    private static final Duration LEASE = Duration.ofSeconds(30);

    private static final int COMMITS_MEASURED = 5;

    private final boolean synchronous;

    private final FailoverGround ground;

    private final FailoverTally tally;

    private final FailoverTally other;

    private final LabResource resource;

    private final Supplier<LabFencing> fencing;

    FailoverStep(
            boolean synchronous,
            FailoverGround ground,
            FailoverTally tally,
            FailoverTally other,
            LabResource resource,
            Supplier<LabFencing> fencing) {
        this.synchronous = synchronous;
        this.ground = ground;
        this.tally = tally;
        this.other = other;
        this.resource = resource;
        this.fencing = fencing;
    }

    @Override
    public String id() {
        return synchronous ? "failover-sync" : "failover-async";
    }

    @Override
    public void reset() {
        tally.reset();
    }

    @Override
    public void run(StepContext context) throws InterruptedException {
        String key = context.key("failover");
        String variant = synchronous ? "synchronous" : "asynchronous";
        context.event(id(), "starting a primary and a streaming " + variant + " standby (embedded)");
        ExecutorService asker = Executors.newSingleThreadExecutor();
        try (ReplicatedPair pair = ReplicatedPair.start(ground.template(), ground.nextPair(), synchronous);
                HikariDataSource pool = pool(pair.clientUrl());
                PostgresLockManager x = context.client("x", pool);
                PostgresLockManager y = context.client("y", pool)) {
            tally.commits(commitTimes(x, context.key("failover-commit")));

            pair.stallStandby();
            context.event(id(), "the standby's WAL receiver is stopped: it receives nothing from now on");
            LockOptions options = LockOptions.builder()
                    .leaseTime(LEASE)
                    .waitTime(Duration.ZERO)
                    .name("lab")
                    .build();
            Future<Optional<Lease>> asked = asker.submit(() -> x.tryAcquire(key, options));
            if (synchronous) {
                pair.awaitCommitWaitingForStandby();
            } else {
                await(asked);
            }
            pair.crashPrimary();
            Lease xLease = leaseOrNull(asked);
            context.event(
                    id(),
                    "primary killed (kill -9) "
                            + (xLease != null
                                    ? "right after granting x token " + xLease.fencingToken()
                                    : "while x's grant waited for the standby: x was not told it holds the key")
                            + "; promoting the standby");
            pair.promoteStandby();
            Optional<Lease> yLease = y.tryAcquire(key, context.options(Duration.ofSeconds(10)));
            boolean xBelieves = xLease != null && xLease.isHeld();
            boolean doubleGrant = xBelieves && yLease.isPresent();
            boolean reissued = doubleGrant && yLease.get().fencingToken() <= xLease.fencingToken();
            long lost = doubleGrant ? bothWrite(xLease, yLease.get()) : 0;
            tally.failover(doubleGrant, reissued, lost);
            context.event(
                    id(),
                    yLease.map(lease -> "the promoted store grants y token " + lease.fencingToken())
                                    .orElse("the promoted store does not grant y the key")
                            + (doubleGrant
                                    ? " while x still believes it holds token " + xLease.fencingToken()
                                            + ": DOUBLE GRANT" + (reissued ? ", token handed out again" : "")
                                            + (lost > 0 ? "; both wrote the resource: " + lost + " lost update" : "")
                                    : ""));
            yLease.ifPresent(Lease::release);
            context.result(id(), tally.doubleGrants() == 0, summary());
        } finally {
            asker.shutdownNow();
        }
    }

    private String summary() {
        String commit = "grant commit " + tally.medianCommitMillis() + " ms median";
        if (synchronous) {
            return "Synchronous standby, " + tally.failovers() + " failover(s): " + tally.doubleGrants()
                    + " double grant(s). Each grant waits until the standby has it: x's grant was still waiting when"
                    + " the primary died, so x was never told it held the key, and the promoted store granted it"
                    + " to y alone. The price: " + commit
                    + (other.failovers() > 0
                            ? ", against " + other.medianCommitMillis() + " ms with the asynchronous standby"
                            : "")
                    + ". Production settings: docs/high-availability.md.";
        }
        return "Asynchronous standby, " + tally.failovers() + " failover(s): " + tally.doubleGrants()
                + " double grant(s) (x still believed it held the key when the promoted store granted it to y), "
                + tally.reissued() + " fencing token(s) handed out again, " + tally.lostUpdates()
                + " lost update(s) with fencing " + fencingName() + ". To show it every time, the standby's WAL"
                + " receiver was stopped just before x's grant; without that, a crash loses a grant only when it"
                + " falls in the replication lag. " + commit + ". Fail over only to a synchronous standby:"
                + " docs/high-availability.md.";
    }

    private String fencingName() {
        return fencing.get() == LabFencing.COLUMN ? "on" : "off";
    }

    /** x and y, each believing it holds the key, read the resource and then write it plus one. */
    private long bothWrite(Lease x, Lease y) {
        boolean fenced = fencing.get() == LabFencing.COLUMN;
        resource.init();
        LabResource.State before = resource.state();
        Optional<LabResource.Snapshot> xRead = resource.read(fenced, x.fencingToken());
        Optional<LabResource.Snapshot> yRead = resource.read(fenced, y.fencingToken());
        xRead.ifPresent(read -> resource.write(fenced, x.fencingToken(), "x", read.value() + 1));
        yRead.ifPresent(read -> resource.write(fenced, y.fencingToken(), "y", read.value() + 1));
        LabResource.State after = resource.state();
        return Math.max(0, (after.version() - before.version()) - (after.value() - before.value()));
    }

    /** How long a grant takes, measured on a key of its own, before the failover. */
    private static List<Long> commitTimes(PostgresLockManager client, String key) {
        List<Long> micros = new ArrayList<>();
        LockOptions options = LockOptions.builder().leaseTime(LEASE).name("lab").build();
        for (int i = 0; i < COMMITS_MEASURED; i++) {
            long start = System.nanoTime();
            Lease lease = client.tryAcquire(key, options).orElseThrow();
            micros.add(TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - start));
            lease.release();
        }
        return micros;
    }

    private static void await(Future<Optional<Lease>> asked) throws InterruptedException {
        try {
            asked.get(30, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("x's acquire on the primary failed: " + e, e);
        }
    }

    private static Lease leaseOrNull(Future<Optional<Lease>> asked) throws InterruptedException {
        try {
            return asked.get(30, TimeUnit.SECONDS).orElse(null);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof LockStoreException) {
                return null; // the store died before it confirmed: x was never told it holds the key
            }
            throw new IllegalStateException("x's acquire failed: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException("x's acquire did not return within 30 s of the crash", e);
        }
    }

    private static HikariDataSource pool(String url) {
        HikariDataSource pool = new HikariDataSource();
        pool.setJdbcUrl(url);
        pool.setPoolName("lab-failover");
        pool.setMaximumPoolSize(8);
        pool.setMinimumIdle(0);
        pool.setConnectionTimeout(10_000);
        return pool;
    }
}
