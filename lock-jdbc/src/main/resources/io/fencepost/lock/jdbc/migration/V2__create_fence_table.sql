-- The fencing guard's table (JdbcFencingGuard): per protected resource, the highest fencing token it has
-- accepted. The guard checks and advances it inside the caller's own transaction, so that the business
-- write and the check commit or roll back together. Placeholder: the validated <table>_fence, quoted.
-- Keep this file and ../schema-postgresql.sql identical apart from the names (a test compares them).

CREATE TABLE IF NOT EXISTS ${fence_table} (
    resource      varchar(255) COLLATE "C" PRIMARY KEY,
    fencing_token bigint       NOT NULL,
    accepted_at   timestamptz  NOT NULL
);

COMMENT ON TABLE ${fence_table} IS 'Fencepost fencing guard: per resource, the highest fencing token accepted; writes with a lower token are refused.';
COMMENT ON COLUMN ${fence_table}.resource IS 'The protected resource, as named by the application.';
COMMENT ON COLUMN ${fence_table}.fencing_token IS 'The highest fencing token accepted for the resource.';
COMMENT ON COLUMN ${fence_table}.accepted_at IS 'When that token was last accepted, by the database clock.';
