package io.fencepost.lock;

import io.fencepost.lock.internal.LogSafe;
import io.fencepost.lock.internal.OutageLog;
import io.fencepost.lock.spi.StoreLimits;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Leader election for a group of candidates, on a lock: the candidate that holds the group's lease is the leader,
 * and the lease's fencing token is its term. Renewal keeps a live leader in office; a leader whose lease is lost is
 * told by its safe local deadline, before the store can grant anyone else; one that yields or closes steps down by
 * releasing, so a waiting candidate is granted at once, woken like any waiter. At most one leader per group at any
 * instant of the store's clock, and terms strictly increase.
 *
 * <p>{@link #start} joins the election on a background thread, which waits for the lease as long as it takes. The
 * group's lock key is {@code fencepost:leader:} followed by the group; its metrics carry the name {@code
 * leader:<group>}.
 */
public final class LeaderElection implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(LeaderElection.class.getName());

    /** The default lease of a leader: how long a dead leader keeps the group without one, at most. */
    public static final Duration DEFAULT_LEASE_TIME = Duration.ofSeconds(10);

    /**
     * How long a candidate that yielded stays out before it competes again, so that another candidate is granted
     * first; a candidate alone in its group is leader again after this.
     */
    public static final Duration YIELD_PAUSE = Duration.ofSeconds(1);

    /** After a store failure, try again this soon. */
    private static final long RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

    private final LockManager locks;

    private final String group;

    private final String key;

    private final LockOptions options;

    private final LeadershipListener listener;

    /** One line when the campaign stops reaching the store, one when it is back, however many retries fail between. */
    private final OutageLog outage;

    /** Guards the election's state below. */
    private final Object monitor = new Object();

    /** Delivers the listener's calls one at a time, in order. */
    private final ReentrantLock callbacks = new ReentrantLock();

    private Thread campaign;

    private boolean closed;

    private Lease leadership;

    /** When (nanoTime) a candidate that yielded competes again. */
    private long rejoinAtNanos;

    private LeaderElection(Builder builder) {
        this.locks = builder.locks;
        this.group = builder.group;
        this.key = "fencepost:leader:" + builder.group;
        this.outage = new OutageLog(
                LOG,
                "leader election of group ''{1}'' could not reach the lock store: {0}",
                "leader election of group ''{1}'' reaches the lock store again after {0}",
                LogSafe.text(builder.group));
        this.listener = builder.listener;
        this.options = LockOptions.builder()
                .name("leader:" + builder.group)
                .leaseTime(builder.leaseTime)
                .waitTime(LockOptions.MAX_DURATION)
                .maxHoldTime(LockOptions.MAX_DURATION)
                .reentrant(false)
                .build();
    }

    /**
     * A candidate of {@code group} on {@code locks}.
     *
     * @throws IllegalArgumentException for a blank group, or one too long for a lock key
     */
    public static Builder builder(LockManager locks, String group) {
        return new Builder(locks, group);
    }

    /** The group this candidate runs in. */
    public String group() {
        return group;
    }

    /**
     * Joins the election in the background; does nothing when already started.
     *
     * @throws IllegalStateException after {@link #close}
     */
    public void start() {
        synchronized (monitor) {
            if (closed) {
                throw new IllegalStateException("leader election of group '" + group + "' is closed; build a new one");
            }
            if (campaign == null) {
                campaign = new Thread(this::campaign, "fencepost-leader-" + group);
                campaign.setDaemon(true);
                campaign.start();
            }
        }
    }

    /** Whether this candidate is the leader now: it holds the group's lease, within its safe local deadline. */
    public boolean isLeader() {
        return leadership().isPresent();
    }

    /** The lease while this candidate is leader; its fencing token is the term. */
    public Optional<Lease> leadership() {
        Lease lease;
        synchronized (monitor) {
            lease = leadership;
        }
        return lease != null && lease.isHeld() ? Optional.of(lease) : Optional.empty();
    }

    /**
     * Steps down now, if leader: {@code revoked} is called, the lease is released, and a waiting candidate is granted
     * at once. This candidate stays in the election and competes again after {@link #YIELD_PAUSE}.
     */
    public void yieldLeadership() {
        stepDown(YIELD_PAUSE);
    }

    /** Steps down, if leader, and leaves the election. */
    @Override
    public void close() {
        Thread running;
        synchronized (monitor) {
            closed = true;
            running = campaign;
        }
        stepDown(Duration.ZERO);
        if (running != null) {
            running.interrupt();
            try {
                running.join(TimeUnit.SECONDS.toMillis(10));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void stepDown(Duration pause) {
        Lease lease;
        synchronized (monitor) {
            lease = leadership;
            leadership = null;
            rejoinAtNanos = System.nanoTime() + pause.toNanos();
            monitor.notifyAll();
        }
        if (lease != null) {
            tell(lease, false); // before the release: nobody else can be granted yet
            lease.release();
        }
    }

    /** The lease was lost: told by the loss watchdog, at the latest at the lease's safe local deadline. */
    private void lost(Lease lease) {
        synchronized (monitor) {
            if (leadership != lease) {
                return; // stepped down already
            }
            leadership = null;
            monitor.notifyAll();
        }
        tell(lease, false);
        lease.release(); // frees the key sooner if the store still has it as ours
    }

    private void campaign() {
        while (true) {
            Lease lease;
            try {
                if (!awaitRejoin()) {
                    return;
                }
                lease = locks.acquire(key, options);
                outage.succeeded();
            } catch (InterruptedException | LockNotAcquiredException e) {
                boolean interrupted = Thread.interrupted(); // ours, from close; any other is not meant for this thread
                if (isClosed()) {
                    return;
                }
                if (!interrupted) {
                    outage.succeeded(); // the store answered: busy
                }
                continue;
            } catch (LockException | IllegalStateException e) {
                outage.failed(e);
                if (!pause(RETRY_NANOS)) {
                    return;
                }
                continue;
            }
            if (!serve(lease)) {
                return;
            }
        }
    }

    /** Holds office until the lease is lost, yielded or closed; false when closed. */
    private boolean serve(Lease lease) {
        synchronized (monitor) {
            if (closed) {
                lease.release();
                return false;
            }
            leadership = lease;
        }
        tell(lease, true);
        lease.onLost(e -> lost(lease));
        boolean open;
        synchronized (monitor) {
            while (leadership == lease && !closed) {
                try {
                    monitor.wait();
                } catch (InterruptedException e) {
                    // close interrupts; the loop condition tells
                }
            }
            open = !closed;
        }
        return open; // whoever ended the term released the lease, after telling the listener
    }

    /** Waits out a yield pause; false when closed meanwhile. */
    private boolean awaitRejoin() throws InterruptedException {
        synchronized (monitor) {
            long left;
            while (!closed && (left = rejoinAtNanos - System.nanoTime()) > 0) {
                TimeUnit.NANOSECONDS.timedWait(monitor, left);
            }
            return !closed;
        }
    }

    private boolean pause(long nanos) {
        try {
            Thread.sleep(TimeUnit.NANOSECONDS.toMillis(nanos));
        } catch (InterruptedException e) {
            return !isClosed();
        }
        return !isClosed();
    }

    private boolean isClosed() {
        synchronized (monitor) {
            return closed;
        }
    }

    private void tell(Lease lease, boolean granted) {
        callbacks.lock();
        try {
            if (granted) {
                listener.granted(lease);
            } else {
                listener.revoked(lease);
            }
        } catch (RuntimeException e) {
            // With a throwable, System.Logger does not format the message: it is built here, and the stack trace
            // goes with it.
            String callback = granted ? "granted" : "revoked";
            long term = lease.fencingToken();
            LOG.log(
                    Level.WARNING,
                    () -> "leadership listener of group '" + LogSafe.text(group) + "' failed on " + callback
                            + " of term " + term,
                    e);
        } finally {
            callbacks.unlock();
        }
    }

    @Override
    public String toString() {
        return "LeaderElection[group=" + group + ", leader=" + isLeader() + "]";
    }

    /** Builds a {@link LeaderElection}. */
    public static final class Builder {

        private final LockManager locks;

        private final String group;

        private Duration leaseTime = DEFAULT_LEASE_TIME;

        private LeadershipListener listener = new LeadershipListener() {
            @Override
            public void granted(Lease leadership) {}

            @Override
            public void revoked(Lease leadership) {}
        };

        private Builder(LockManager locks, String group) {
            this.locks = Objects.requireNonNull(locks, "locks");
            if (group == null || group.isBlank()) {
                throw new IllegalArgumentException("a leader election needs a group name, was '" + group
                        + "': name the group of candidates, such as 'report-scheduler'");
            }
            StoreLimits.requireValidKey("fencepost:leader:" + group);
            this.group = group;
        }

        /** How long a leader's lease lasts unless renewed: how long a dead leader keeps the group, at most. */
        public Builder leaseTime(Duration leaseTime) {
            this.leaseTime = Objects.requireNonNull(leaseTime, "leaseTime");
            return this;
        }

        public Builder listener(LeadershipListener listener) {
            this.listener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /**
         * Validates and builds; the election starts with {@link LeaderElection#start}.
         *
         * @throws IllegalArgumentException for a lease time that {@link LockOptions} refuses
         */
        public LeaderElection build() {
            return new LeaderElection(this);
        }
    }
}
