package io.fencepost.lock.spring.autoconfigure;

import io.fencepost.lock.LeaderElection;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.jdbc.PostgresLeaseStore;
import io.fencepost.lock.jdbc.PostgresLockManager;
import io.fencepost.lock.jdbc.SchemaMode;
import io.fencepost.lock.spring.aop.DistributedLockAdvisor;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;

/** Configuration properties for Fencepost's distributed locks, under {@code fencepost}. */
@ConfigurationProperties("fencepost")
public class LockProperties {

    /**
     * Whether to enable distributed locking. When disabled, there is no LockManager bean and @DistributedLock
     * methods never run: those with onLocked=THROW throw LockNotAcquiredException, those with onLocked=SKIP are
     * skipped.
     */
    private boolean enabled = true;

    /**
     * Lease time of @DistributedLock methods that set none. A lease is renewed while its method runs, so this bounds
     * how long the key stays locked after the holder dies.
     */
    private Duration leaseTime = LockOptions.DEFAULT_LEASE_TIME;

    /**
     * How long @DistributedLock methods that set no wait time wait for a busy key. Zero means a single attempt.
     */
    private Duration waitTime = LockOptions.DEFAULT_WAIT_TIME;

    /**
     * Bound on the renewal of leases of @DistributedLock methods that set none: a lease is never extended beyond
     * its acquisition plus this.
     */
    private Duration maxHoldTime = LockOptions.DEFAULT_MAX_HOLD_TIME;

    /**
     * Human-readable name of this instance, recorded as the holder of its leases. When not set,
     * 'application@host:pid' with spring.application.name, else 'user@host:pid'.
     */
    private String holderName;

    private final Jdbc jdbc = new Jdbc();

    private final Aop aop = new Aop();

    private final Endpoint endpoint = new Endpoint();

    private final Leader leader = new Leader();

    private final Web web = new Web();

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public Duration getLeaseTime() {
        return leaseTime;
    }

    public void setLeaseTime(Duration leaseTime) {
        this.leaseTime = leaseTime;
    }

    public Duration getWaitTime() {
        return waitTime;
    }

    public void setWaitTime(Duration waitTime) {
        this.waitTime = waitTime;
    }

    public Duration getMaxHoldTime() {
        return maxHoldTime;
    }

    public void setMaxHoldTime(Duration maxHoldTime) {
        this.maxHoldTime = maxHoldTime;
    }

    public String getHolderName() {
        return holderName;
    }

    public void setHolderName(String holderName) {
        this.holderName = holderName;
    }

    public Jdbc getJdbc() {
        return jdbc;
    }

    public Aop getAop() {
        return aop;
    }

    public Endpoint getEndpoint() {
        return endpoint;
    }

    /**
     * The default lock options of {@code @DistributedLock} methods. Each value was checked alone when bound
     * ({@link LockPropertyRules}); this only fails should the core library refuse a combination of them.
     *
     * @throws IllegalStateException naming the properties when the options are invalid
     */
    LockOptions toDefaultOptions() {
        try {
            return LockOptions.builder()
                    .leaseTime(leaseTime)
                    .waitTime(waitTime)
                    .maxHoldTime(maxHoldTime)
                    .build();
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException(
                    "Invalid fencepost.lease-time, fencepost.wait-time or fencepost.max-hold-time: " + e.getMessage(),
                    e);
        }
    }

    /** PostgreSQL settings. */
    public static class Jdbc {

        /**
         * Name of the lock table; its fencing sequence is '<table>_fence_seq'. Lower-case letters, digits and
         * underscores, at most 48 characters.
         */
        private String tableName = PostgresLockManager.DEFAULT_TABLE_NAME;

        /**
         * What to do about the lock table at start-up: 'create' applies Fencepost's own Flyway migration (with its
         * own history table, '<table>_schema_history') and then checks the table, 'validate' only checks it and
         * fails the start-up when it is missing or misshapen, 'none' trusts that it exists.
         */
        private SchemaMode initializeSchema = PostgresLockManager.DEFAULT_SCHEMA_MODE;

        /**
         * Bound on every lock statement, the wait for a connection of the pool included; past it the call fails with
         * LockStoreException.
         */
        private Duration statementTimeout = PostgresLockManager.DEFAULT_STATEMENT_TIMEOUT;

        /**
         * Whether the application may start while another Fencepost lock table of the same application (by
         * spring.application.name, or of any application when it is not set) is in use in the database: a lock
         * manager running on it, a live lease, or one that ended in the last 24 hours. When not allowed, the start-up fails, since instances that
         * lock in different tables do not exclude each other; when allowed, the locks health indicator names the
         * other tables.
         */
        private boolean allowOtherLockTables = false;

        /**
         * How many connections of the pool the lock manager may hold at once to wait in PostgreSQL's own lock queue:
         * one per key it waits for behind another instance, kept while it holds the key it got there, so that the
         * release before its turn wakes it in the server. Past the bound, and behind a pooler in transaction mode,
         * waiters are woken by notifications instead; 0 turns the queue off. Size the pool for them.
         */
        private int queueSessions = PostgresLeaseStore.DEFAULT_QUEUE_SESSIONS;

        private final Sweep sweep = new Sweep();

        public Sweep getSweep() {
            return sweep;
        }

        public int getQueueSessions() {
            return queueSessions;
        }

        public void setQueueSessions(int queueSessions) {
            this.queueSessions = queueSessions;
        }

        public String getTableName() {
            return tableName;
        }

        public void setTableName(String tableName) {
            this.tableName = tableName;
        }

        public SchemaMode getInitializeSchema() {
            return initializeSchema;
        }

        public void setInitializeSchema(SchemaMode initializeSchema) {
            this.initializeSchema = initializeSchema;
        }

        public Duration getStatementTimeout() {
            return statementTimeout;
        }

        public void setStatementTimeout(Duration statementTimeout) {
            this.statementTimeout = statementTimeout;
        }

        public boolean isAllowOtherLockTables() {
            return allowOtherLockTables;
        }

        public void setAllowOtherLockTables(boolean allowOtherLockTables) {
            this.allowOtherLockTables = allowOtherLockTables;
        }
    }

    /** Settings of the background sweeper of the lock table. */
    public static class Sweep {

        /**
         * Whether the lock manager removes, in the background, the rows of leases that ended without a release (a
         * crashed holder, a key used once) and of waiter registrations that lapsed.
         */
        private boolean enabled = true;

        /**
         * Pause between sweeps that found less than a full batch; a full batch is followed by the next at once.
         */
        private Duration interval = PostgresLockManager.DEFAULT_SWEEP_INTERVAL;

        /**
         * Most rows of one kind that one sweep statement removes, which bounds how long it runs and holds row locks.
         */
        private int batchSize = PostgresLockManager.DEFAULT_SWEEP_BATCH_SIZE;

        /**
         * How long a record of the fencing guard (table '<table>_fence') must have gone without an accepted write
         * before the sweeper removes it; unset keeps the records. A removed record no longer refuses stale tokens at
         * its resource, so set it well above the longest time a write can be delayed, such as 7d.
         */
        private Duration fenceRowAge;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public Duration getInterval() {
            return interval;
        }

        public void setInterval(Duration interval) {
            this.interval = interval;
        }

        public int getBatchSize() {
            return batchSize;
        }

        public void setBatchSize(int batchSize) {
            this.batchSize = batchSize;
        }

        public Duration getFenceRowAge() {
            return fenceRowAge;
        }

        public void setFenceRowAge(Duration fenceRowAge) {
            this.fenceRowAge = fenceRowAge;
        }
    }

    /** Settings of the @DistributedLock advisor. */
    public static class Aop {

        /**
         * Order of the @DistributedLock advisor. The default runs it outside @Transactional (whose advisor has the
         * lowest precedence by default), so the lock is taken before the transaction begins and released after it
         * ends.
         */
        private int order = DistributedLockAdvisor.DEFAULT_ORDER;

        public int getOrder() {
            return order;
        }

        public void setOrder(int order) {
            this.order = order;
        }
    }

    /** Settings of the locks Actuator endpoint. */
    public static class Endpoint {

        private final ForceRelease forceRelease = new ForceRelease();

        public ForceRelease getForceRelease() {
            return forceRelease;
        }
    }

    /** Settings of the endpoint's forced release, DELETE /actuator/locks/{key}. */
    public static class ForceRelease {

        /**
         * Whether DELETE /actuator/locks/{key} may remove the lease on a key whoever holds it. A holder that is still
         * running then loses mutual exclusion, and only fencing protects the resource. When disabled, the request is
         * refused with 403.
         */
        private boolean enabled = false;

        /**
         * The role a caller must have (HttpServletRequest.isUserInRole, so with Spring Security an authority
         * ROLE_ followed by the role) for a forced release; blank: any authenticated caller.
         */
        private String role = "LOCK_ADMIN";

        /**
         * Whether a caller without a principal (no authentication in front of Actuator) may force-release. Off: such a
         * request is refused with 403 even when forced releases are enabled.
         */
        private boolean allowAnonymous = false;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public String getRole() {
            return role;
        }

        public void setRole(String role) {
            this.role = role;
        }

        public boolean isAllowAnonymous() {
            return allowAnonymous;
        }

        public void setAllowAnonymous(boolean allowAnonymous) {
            this.allowAnonymous = allowAnonymous;
        }
    }

    public Leader getLeader() {
        return leader;
    }

    public Web getWeb() {
        return web;
    }

    /** How a web application answers a request whose lock was busy. */
    public static class Web {

        /**
         * Whether a LockNotAcquiredException that reaches Spring MVC is answered as a problem detail (RFC 9457) with
         * the busy status, rather than as a server error. An @ExceptionHandler of the application takes precedence.
         */
        private boolean enabled = true;

        /** Status of the answer: CONFLICT (409) or SERVICE_UNAVAILABLE (503, with a Retry-After header). */
        private BusyStatus busyStatus = BusyStatus.CONFLICT;

        /** Retry-After of a SERVICE_UNAVAILABLE answer, in whole seconds rounded up. */
        private Duration retryAfter = Duration.ofSeconds(1);

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public BusyStatus getBusyStatus() {
            return busyStatus;
        }

        public void setBusyStatus(BusyStatus busyStatus) {
            this.busyStatus = busyStatus;
        }

        public Duration getRetryAfter() {
            return retryAfter;
        }

        public void setRetryAfter(Duration retryAfter) {
            this.retryAfter = retryAfter;
        }
    }

    /** The HTTP status a busy lock is answered with. */
    public enum BusyStatus {
        /** 409: the resource is in use by another request; the client may retry. */
        CONFLICT,
        /** 503 with Retry-After: come back later. */
        SERVICE_UNAVAILABLE
    }

    /** Leader election: the groups this instance is a candidate of. */
    public static class Leader {

        /**
         * The groups this instance runs for leader in, by name: each joins when the application starts and leaves
         * when it stops. Leadership is published as LeadershipGrantedEvent and LeadershipRevokedEvent, and
         * a @LeaderOnly("group") method runs only on the group's leader.
         */
        private final Map<String, Group> groups = new LinkedHashMap<>();

        public Map<String, Group> getGroups() {
            return groups;
        }
    }

    /** One leader election group. */
    public static class Group {

        /**
         * Lease time of the group's leader: how long the group stays without a leader, at most, after its leader
         * dies. Renewed while the leader runs.
         */
        private Duration leaseTime = LeaderElection.DEFAULT_LEASE_TIME;

        public Duration getLeaseTime() {
            return leaseTime;
        }

        public void setLeaseTime(Duration leaseTime) {
            this.leaseTime = leaseTime;
        }
    }
}
