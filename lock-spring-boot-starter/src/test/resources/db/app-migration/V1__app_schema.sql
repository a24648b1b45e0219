-- An application's own Flyway migration that also creates fencepost's table (named app_managed_lock), as a
-- team that manages all DDL itself would, from lock-jdbc's schema-postgresql.sql.
CREATE TABLE invoice (id bigint PRIMARY KEY, settled_with_token bigint);

CREATE SEQUENCE app_managed_lock_fence_seq AS bigint START 1 INCREMENT 1 CACHE 1 NO CYCLE;

CREATE TABLE app_managed_lock (
    lock_key      varchar(255) COLLATE "C" PRIMARY KEY,
    owner_token   uuid         NOT NULL,
    holder        varchar(255) NOT NULL,
    fencing_token bigint       NOT NULL,
    acquired_at   timestamptz  NOT NULL,
    expires_at    timestamptz  NOT NULL,
    contended     boolean      NOT NULL DEFAULT false
);
