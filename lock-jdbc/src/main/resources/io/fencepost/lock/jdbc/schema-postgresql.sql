-- Fencepost's schema for teams that manage DDL by hand: the same as the Flyway migration that fencepost
-- applies by itself (io/fencepost/lock/jdbc/migration/V1__ to V7__), with the default names.
-- Run it as the role that owns the application's schema, then use SchemaMode.VALIDATE
-- (fencepost.jdbc.initialize-schema=validate) or NONE. For another table name, replace every
-- distributed_lock below, also in distributed_lock_fence_seq, distributed_lock_fence,
-- distributed_lock_queue and distributed_lock_token_key. Safe to run again (IF NOT EXISTS).

-- CACHE 1 is essential: with a larger cache every session pre-allocates its own block of values, so a
-- later grant could draw a token lower than one another session already handed out, and fencing tokens
-- would no longer increase in grant order. NO CYCLE: a token must never come round again.
CREATE SEQUENCE IF NOT EXISTS distributed_lock_fence_seq AS bigint START 1 INCREMENT 1 CACHE 1 NO CYCLE;

CREATE TABLE IF NOT EXISTS distributed_lock (
    lock_key      varchar(255) COLLATE "C" PRIMARY KEY,
    owner_token   uuid         NOT NULL,
    holder        varchar(255) NOT NULL,
    fencing_token bigint       NOT NULL,
    acquired_at   timestamptz  NOT NULL,
    expires_at    timestamptz  NOT NULL,
    contended     boolean      NOT NULL DEFAULT false,
    lease_mode    text         NOT NULL DEFAULT 'exclusive' CHECK (lease_mode IN ('exclusive', 'shared', 'permits')),
    permits       integer      NOT NULL DEFAULT 1,
    holders       jsonb,
    exclusive_waits_until timestamptz
);

COMMENT ON SEQUENCE distributed_lock_fence_seq IS 'Fencepost fencing tokens: one value per grant, strictly increasing in grant order.';
COMMENT ON TABLE distributed_lock IS 'Fencepost leases: one row per key that is or was recently locked; a row whose expires_at has passed is free.';
COMMENT ON COLUMN distributed_lock.lock_key IS 'The locked key, compared byte-wise (collation C).';
COMMENT ON COLUMN distributed_lock.owner_token IS 'Secret of the current grant: release and renewal only touch the row while it matches. Never shown.';
COMMENT ON COLUMN distributed_lock.holder IS 'Human-readable name of the holder, such as app@host; informational only.';
COMMENT ON COLUMN distributed_lock.fencing_token IS 'Token of the current grant, drawn from the fencing sequence when the key was won.';
COMMENT ON COLUMN distributed_lock.acquired_at IS 'When the current grant was made, by the database clock.';
COMMENT ON COLUMN distributed_lock.expires_at IS 'When the lease ends unless renewed, by the database clock; from then on the key is free.';
COMMENT ON COLUMN distributed_lock.contended IS 'Whether someone waits for the current grant: its release then sends a NOTIFY.';
COMMENT ON COLUMN distributed_lock.lease_mode IS 'exclusive (one lease), shared (any number of shared leases) or permits (at most permits leases).';
COMMENT ON COLUMN distributed_lock.permits IS 'How many leases of the key may be live at once: 1 when exclusive, 0 (no count) when shared.';
COMMENT ON COLUMN distributed_lock.holders IS 'Shared and permits rows: the live leases, by owner token, each with its own fencing token. Never shown.';
COMMENT ON COLUMN distributed_lock.exclusive_waits_until IS 'Until when a waiting exclusive request keeps new shared leases of the key from being granted.';

-- A grant's fencing token is a key of the row, from migration V6__add_token_key.sql: a change of grant then
-- updates a key of the row and a renewal does not, which JdbcLeaseGuard relies on under REPEATABLE READ.
CREATE UNIQUE INDEX IF NOT EXISTS distributed_lock_token_key ON distributed_lock (fencing_token);

-- The fencing guard's table (JdbcFencingGuard), from migration V2__create_fence_table.sql.
CREATE TABLE IF NOT EXISTS distributed_lock_fence (
    resource      varchar(255) COLLATE "C" PRIMARY KEY,
    fencing_token bigint       NOT NULL,
    accepted_at   timestamptz  NOT NULL
);

COMMENT ON TABLE distributed_lock_fence IS 'Fencepost fencing guard: per resource, the highest fencing token accepted; writes with a lower token are refused.';
COMMENT ON COLUMN distributed_lock_fence.resource IS 'The protected resource, as named by the application.';
COMMENT ON COLUMN distributed_lock_fence.fencing_token IS 'The highest fencing token accepted for the resource.';
COMMENT ON COLUMN distributed_lock_fence.accepted_at IS 'When that token was last accepted, by the database clock.';

-- The queue: fair-mode tickets and waiter registrations, from migrations V4__create_queue_table.sql and
-- V7__add_waiter_registrations.sql.
CREATE TABLE IF NOT EXISTS distributed_lock_queue (
    lock_key   varchar(255) COLLATE "C" NOT NULL,
    ticket     bigint       NOT NULL,
    waiter     uuid         NOT NULL,
    expires_at timestamptz  NOT NULL,
    owner_token uuid,
    holder     varchar(255),
    lease_ms   bigint,
    PRIMARY KEY (lock_key, ticket)
);

COMMENT ON TABLE distributed_lock_queue IS 'Fencepost fair-mode queue: waiters per key, served in ticket order.';
COMMENT ON COLUMN distributed_lock_queue.lock_key IS 'The key waited for.';
COMMENT ON COLUMN distributed_lock_queue.ticket IS 'Place in the queue, from the fencing sequence: lower is served first.';
COMMENT ON COLUMN distributed_lock_queue.waiter IS 'The waiting client; its re-checks refresh all its tickets on the key.';
COMMENT ON COLUMN distributed_lock_queue.expires_at IS 'When the ticket lapses unless refreshed, by the database clock.';
COMMENT ON COLUMN distributed_lock_queue.owner_token IS 'A registered waiter: the secret its grant will carry when a release hands it the lease. Never shown.';
COMMENT ON COLUMN distributed_lock_queue.holder IS 'A registered waiter: its holder name, written with the lease it is handed.';
COMMENT ON COLUMN distributed_lock_queue.lease_ms IS 'A registered waiter: the lease time, in milliseconds, of the lease it is handed.';
