-- Messages the floor could not decode or store (docs/floor.md, "Quarantine"): set aside with
-- the reason, so the worker goes on with the next message and a person can look at them.
-- The payload is bytea (a payload that is not UTF-8 or holds a NUL is kept as it came), cut
-- to its first 16 KB; size and sha256 are of the whole. The same message on the same topic
-- again (a redelivery after a worker restart, a flood) is one row: count and last_at go up.

CREATE TABLE quarantine (
    id          bigserial PRIMARY KEY,
    received_at timestamptz NOT NULL,
    last_at     timestamptz NOT NULL,
    count       bigint NOT NULL DEFAULT 1,
    topic       text NOT NULL,
    table_id    text,
    reason      text NOT NULL,
    payload     bytea NOT NULL,
    size        bigint NOT NULL,
    sha256      text NOT NULL,
    UNIQUE (topic, sha256)
);
CREATE INDEX quarantine_by_time ON quarantine (last_at);
