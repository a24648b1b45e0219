-- Fair mode's queue: one ticket per waiting caller, drawn from the fencing sequence, served in increasing
-- order. A waiter's re-checks refresh its client's tickets; a dead client's tickets lapse at expires_at.
-- Placeholder: the validated <table>_queue, quoted.
-- Keep this file and ../schema-postgresql.sql identical apart from the names (a test compares them).

CREATE TABLE IF NOT EXISTS ${queue_table} (
    lock_key   varchar(255) COLLATE "C" NOT NULL,
    ticket     bigint       NOT NULL,
    waiter     uuid         NOT NULL,
    expires_at timestamptz  NOT NULL,
    PRIMARY KEY (lock_key, ticket)
);

COMMENT ON TABLE ${queue_table} IS 'Fencepost fair-mode queue: waiters per key, served in ticket order.';
COMMENT ON COLUMN ${queue_table}.lock_key IS 'The key waited for.';
COMMENT ON COLUMN ${queue_table}.ticket IS 'Place in the queue, from the fencing sequence: lower is served first.';
COMMENT ON COLUMN ${queue_table}.waiter IS 'The waiting client; its re-checks refresh all its tickets on the key.';
COMMENT ON COLUMN ${queue_table}.expires_at IS 'When the ticket lapses unless refreshed, by the database clock.';
