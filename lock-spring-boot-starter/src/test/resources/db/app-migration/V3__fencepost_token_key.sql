-- The same application upgrading to fencepost's schema V6 (V6__add_token_key.sql): a grant's fencing token becomes a
-- key of the lease row, by the application's own migration.
CREATE UNIQUE INDEX app_managed_lock_token_key ON app_managed_lock (fencing_token);
