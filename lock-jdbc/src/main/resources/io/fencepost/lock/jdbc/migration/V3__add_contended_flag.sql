-- A waiter marks a live lease as waited for (once per grant) in its failed acquire statement; the release
-- of a marked lease sends a NOTIFY on fencepost_<table>, so only releases that someone waits for pay for
-- NOTIFY (which serializes committing transactions on a global lock).
-- Keep this file and ../schema-postgresql.sql identical apart from the names (a test compares them).

ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS contended boolean NOT NULL DEFAULT false;

COMMENT ON COLUMN ${table}.contended IS 'Whether someone waits for the current grant: its release then sends a NOTIFY.';
