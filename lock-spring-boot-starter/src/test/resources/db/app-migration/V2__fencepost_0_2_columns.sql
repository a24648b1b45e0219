-- The same application upgrading to fencepost 0.2: the columns of lock-jdbc's migration V5__add_shared_leases.sql,
-- added by the application's own migration.
ALTER TABLE app_managed_lock ADD COLUMN lease_mode text NOT NULL DEFAULT 'exclusive'
    CHECK (lease_mode IN ('exclusive', 'shared', 'permits'));
ALTER TABLE app_managed_lock ADD COLUMN permits integer NOT NULL DEFAULT 1;
ALTER TABLE app_managed_lock ADD COLUMN holders jsonb;
ALTER TABLE app_managed_lock ADD COLUMN exclusive_waits_until timestamptz;
