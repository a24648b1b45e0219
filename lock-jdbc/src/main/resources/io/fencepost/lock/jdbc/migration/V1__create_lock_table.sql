-- Fencepost's lease table and fencing-token sequence, applied by fencepost's own Flyway instance with its
-- own history table (<table>_schema_history), so it never mixes with the application's migrations.
-- Its two placeholders are the validated table name and <table>_fence_seq, as quoted identifiers.
-- Keep this file and ../schema-postgresql.sql identical apart from the names (a test compares them).
-- IF NOT EXISTS lets a schema created by hand from schema-postgresql.sql be adopted; fencepost then
-- validates its shape.

-- CACHE 1 is essential: with a larger cache every session pre-allocates its own block of values, so a
-- later grant could draw a token lower than one another session already handed out, and fencing tokens
-- would no longer increase in grant order. NO CYCLE: a token must never come round again.
CREATE SEQUENCE IF NOT EXISTS ${sequence} AS bigint START 1 INCREMENT 1 CACHE 1 NO CYCLE;

CREATE TABLE IF NOT EXISTS ${table} (
    lock_key      varchar(255) COLLATE "C" PRIMARY KEY,
    owner_token   uuid         NOT NULL,
    holder        varchar(255) NOT NULL,
    fencing_token bigint       NOT NULL,
    acquired_at   timestamptz  NOT NULL,
    expires_at    timestamptz  NOT NULL
);

COMMENT ON SEQUENCE ${sequence} IS 'Fencepost fencing tokens: one value per grant, strictly increasing in grant order.';
COMMENT ON TABLE ${table} IS 'Fencepost leases: one row per key that is or was recently locked; a row whose expires_at has passed is free.';
COMMENT ON COLUMN ${table}.lock_key IS 'The locked key, compared byte-wise (collation C).';
COMMENT ON COLUMN ${table}.owner_token IS 'Secret of the current grant: release and renewal only touch the row while it matches. Never shown.';
COMMENT ON COLUMN ${table}.holder IS 'Human-readable name of the holder, such as app@host; informational only.';
COMMENT ON COLUMN ${table}.fencing_token IS 'Token of the current grant, drawn from the fencing sequence when the key was won.';
COMMENT ON COLUMN ${table}.acquired_at IS 'When the current grant was made, by the database clock.';
COMMENT ON COLUMN ${table}.expires_at IS 'When the lease ends unless renewed, by the database clock; from then on the key is free.';
