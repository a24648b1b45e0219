-- A grant's fencing token becomes a key of the lease row, in PostgreSQL's sense (a plain unique index on it).
-- A change of grant (a take-over, a hand-over) then updates a key of the row, while a renewal does not, so a
-- transaction that key-share locks the row (JdbcLeaseGuard) learns of a change of grant made after its snapshot,
-- also under REPEATABLE READ, where a plain read would show it the old grant. Tokens are unique anyway: each
-- comes from the sequence once. Placeholder: the validated <table>_token_key, quoted.
-- Keep this file and ../schema-postgresql.sql identical apart from the names (a test compares them).

CREATE UNIQUE INDEX IF NOT EXISTS ${token_key} ON ${table} (fencing_token);
