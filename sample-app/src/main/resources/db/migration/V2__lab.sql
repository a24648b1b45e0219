-- The lab's protected resource: one counter per instance that workers increment under the lock.
CREATE TABLE lab_resource (
    id          varchar(100) PRIMARY KEY,
    value       bigint       NOT NULL DEFAULT 0,
    -- incremented by every accepted write: a writer whose read saw another version lost that update
    version     bigint       NOT NULL DEFAULT 0,
    -- the highest fencing token the resource has seen (while fencing is on)
    fence       bigint       NOT NULL DEFAULT 0,
    last_writer varchar(100),
    last_token  bigint
);
