-- Waiter registrations: a waiting exclusive request of any client is a row of the queue table that also says
-- what the waiter would be granted (its owner token, holder and lease time). A release of a key that someone
-- waits for hands the lease to the oldest live registration in the same statement, so the key is never free in
-- between and the waiter finds itself the holder. Fair-mode tickets leave the three columns empty.
-- Placeholder: the validated <table>_queue, quoted.
-- Keep this file and ../schema-postgresql.sql identical apart from the names (a test compares them).

ALTER TABLE ${queue_table} ADD COLUMN IF NOT EXISTS owner_token uuid;
ALTER TABLE ${queue_table} ADD COLUMN IF NOT EXISTS holder varchar(255);
ALTER TABLE ${queue_table} ADD COLUMN IF NOT EXISTS lease_ms bigint;

COMMENT ON COLUMN ${queue_table}.owner_token IS 'A registered waiter: the secret its grant will carry when a release hands it the lease. Never shown.';
COMMENT ON COLUMN ${queue_table}.holder IS 'A registered waiter: its holder name, written with the lease it is handed.';
COMMENT ON COLUMN ${queue_table}.lease_ms IS 'A registered waiter: the lease time, in milliseconds, of the lease it is handed.';
