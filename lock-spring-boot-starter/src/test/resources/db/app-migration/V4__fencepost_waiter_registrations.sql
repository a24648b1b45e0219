-- The same application upgrading to fencepost's schema V7 (V4__create_queue_table.sql and
-- V7__add_waiter_registrations.sql): waiting acquires register in the queue table, by the application's own
-- migration.
CREATE TABLE app_managed_lock_queue (
    lock_key    varchar(255) COLLATE "C" NOT NULL,
    ticket      bigint       NOT NULL,
    waiter      uuid         NOT NULL,
    expires_at  timestamptz  NOT NULL,
    owner_token uuid,
    holder      varchar(255),
    lease_ms    bigint,
    PRIMARY KEY (lock_key, ticket)
);
