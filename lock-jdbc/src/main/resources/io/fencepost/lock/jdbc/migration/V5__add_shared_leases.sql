-- Shared leases and permits: a key's row says which kind of lease it holds. An exclusive row is one lease,
-- as before. A shared or permits row stands for all the live leases of the key at once: each lease is an
-- entry of holders (its owner token, fencing token, holder, acquired_at and expires_at), and the row's own
-- expires_at is the end of the last of them, so an exclusive request sees the key busy until then. The
-- row's owner_token is then a random value that belongs to nobody.
-- Keep this file and ../schema-postgresql.sql identical apart from the names (a test compares them).

ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS lease_mode text NOT NULL DEFAULT 'exclusive'
    CHECK (lease_mode IN ('exclusive', 'shared', 'permits'));
ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS permits integer NOT NULL DEFAULT 1;
ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS holders jsonb;
ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS exclusive_waits_until timestamptz;

COMMENT ON COLUMN ${table}.lease_mode IS 'exclusive (one lease), shared (any number of shared leases) or permits (at most permits leases).';
COMMENT ON COLUMN ${table}.permits IS 'How many leases of the key may be live at once: 1 when exclusive, 0 (no count) when shared.';
COMMENT ON COLUMN ${table}.holders IS 'Shared and permits rows: the live leases, by owner token, each with its own fencing token. Never shown.';
COMMENT ON COLUMN ${table}.exclusive_waits_until IS 'Until when a waiting exclusive request keeps new shared leases of the key from being granted.';
