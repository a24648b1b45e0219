-- The same application upgrading to fencepost's schema V7, in its own words: the queue table as fencepost 0.1's
-- fair mode made it (V4__create_queue_table.sql), then the columns with which every waiting acquire registers its
-- waiter (V7__add_waiter_registrations.sql).
CREATE TABLE app_managed_lock_queue (lock_key varchar(255) COLLATE "C", ticket bigint, waiter uuid NOT NULL,
    expires_at timestamptz NOT NULL, PRIMARY KEY (lock_key, ticket));

ALTER TABLE app_managed_lock_queue
    ADD COLUMN owner_token uuid,
    ADD COLUMN holder varchar(255),
    ADD COLUMN lease_ms bigint;
