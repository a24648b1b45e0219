-- The sample's payments ledger. Fencepost's own tables (distributed_lock, its sequence and fence table) are
-- created by Fencepost itself, with their own Flyway history table.

CREATE TABLE account (
    id            varchar(32)  PRIMARY KEY,
    owner         varchar(100) NOT NULL,
    balance_cents bigint       NOT NULL CHECK (balance_cents >= 0),
    -- the highest fencing token of an 'account:<id>' lease that wrote this row: a write with a lower one is a
    -- holder whose lease was superseded, and updates no row
    fence         bigint       NOT NULL DEFAULT 0
);

-- One row per run of the settlement job: the cron slot it served, and which instance ran it.
CREATE TABLE settlement_run (
    id            bigserial    PRIMARY KEY,
    tick          timestamptz  NOT NULL,
    instance      varchar(100) NOT NULL,
    fencing_token bigint       NOT NULL,
    transfers     integer      NOT NULL DEFAULT 0,
    amount_cents  bigint       NOT NULL DEFAULT 0,
    started_at    timestamptz  NOT NULL DEFAULT clock_timestamp()
);

CREATE TABLE transfer (
    id             bigserial   PRIMARY KEY,
    from_account   varchar(32) NOT NULL REFERENCES account (id),
    to_account     varchar(32) NOT NULL REFERENCES account (id),
    amount_cents   bigint      NOT NULL CHECK (amount_cents > 0),
    created_at     timestamptz NOT NULL DEFAULT clock_timestamp(),
    settlement_run bigint      REFERENCES settlement_run (id)
);

CREATE INDEX transfer_unsettled ON transfer (id) WHERE settlement_run IS NULL;

-- Two entries per transfer: the debit (negative) and the credit, each with the token of the lease under which
-- its account was written.
CREATE TABLE ledger_entry (
    transfer_id   bigint      NOT NULL REFERENCES transfer (id),
    account_id    varchar(32) NOT NULL REFERENCES account (id),
    amount_cents  bigint      NOT NULL,
    fencing_token bigint      NOT NULL,
    PRIMARY KEY (transfer_id, account_id)
);

INSERT INTO account (id, owner, balance_cents) VALUES
    ('alice', 'Alice Archer', 100000),
    ('bob', 'Bob Baker', 100000),
    ('carol', 'Carol Chen', 100000),
    ('dave', 'Dave Diaz', 100000),
    ('erin', 'Erin Evans', 100000),
    ('frank', 'Frank Fischer', 100000);
