package io.fencepost.lock.jdbc;

/** What fencepost does about its lock table and fencing sequence when a lock manager is built. */
public enum SchemaMode {

    /** Create or upgrade them with fencepost's own Flyway migration (own history table), then validate. */
    CREATE,

    /** Only check that they exist with the expected shape; fail start-up with instructions when not. */
    VALIDATE,

    /** Neither create nor check: the schema is managed elsewhere. */
    NONE
}
