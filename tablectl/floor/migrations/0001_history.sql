-- The floor's history: one row per table, stream, event, hand and hand detail.
-- Every event row and every row derived from one is keyed by (table_id, epoch, seq), the
-- event's name on the MQTT API: a second insert of the same event changes nothing.
-- epoch is text: the floor compares it only for equality (docs/floor.md).

CREATE TABLE tables (
    id          text PRIMARY KEY,
    epoch       text,
    game        jsonb,
    stakes      jsonb,
    snapshot    jsonb,
    snapshot_seq bigint,
    snapshot_at timestamptz,
    first_seen  timestamptz NOT NULL DEFAULT now(),
    last_seen   timestamptz NOT NULL DEFAULT now()
);

-- One (table, epoch): how far it is applied, the highest seq known to exist, the fold state.
CREATE TABLE streams (
    table_id    text NOT NULL REFERENCES tables (id),
    epoch       text NOT NULL,
    applied     bigint NOT NULL DEFAULT 0,
    max_seen    bigint NOT NULL DEFAULT 0,
    state       jsonb NOT NULL DEFAULT '{}'::jsonb,
    created     bigserial,
    first_seen  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (table_id, epoch)
);
CREATE INDEX streams_open_gaps ON streams (table_id, epoch) WHERE max_seen > applied;

-- Every public event as it came (applied or waiting for a gap before it to fill).
CREATE TABLE events (
    table_id    text NOT NULL,
    epoch       text NOT NULL,
    seq         bigint NOT NULL,
    type        text NOT NULL,
    hand        bigint,
    ts          timestamptz NOT NULL,
    data        jsonb NOT NULL,
    received_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (table_id, epoch, seq),
    FOREIGN KEY (table_id, epoch) REFERENCES streams (table_id, epoch)
);

CREATE TABLE hands (
    id          text PRIMARY KEY,           -- table:epoch:seq of its hand_started
    table_id    text NOT NULL REFERENCES tables (id),
    epoch       text NOT NULL,
    seq         bigint NOT NULL,
    journal_hand bigint,
    name        text NOT NULL,
    number      integer NOT NULL,
    button      integer,
    seats       jsonb NOT NULL,
    game        jsonb,
    stakes      jsonb,
    started_at  timestamptz NOT NULL,
    ended_at    timestamptz,
    result      text,
    stacks      jsonb,
    rake        bigint,
    pot         bigint
);
CREATE INDEX hands_by_table ON hands (table_id, started_at);
CREATE INDEX hands_by_start ON hands (started_at);

CREATE TABLE actions (
    table_id text NOT NULL, epoch text NOT NULL, seq bigint NOT NULL,
    hand_id  text NOT NULL REFERENCES hands (id),
    street   text,
    seat     integer NOT NULL,
    kind     text NOT NULL,
    amount   bigint NOT NULL,
    "to"     bigint,
    all_in   boolean NOT NULL,
    forced   boolean NOT NULL,
    undone   boolean NOT NULL DEFAULT false,
    PRIMARY KEY (table_id, epoch, seq)
);
CREATE INDEX actions_by_hand ON actions (hand_id);

CREATE TABLE boards (
    table_id text NOT NULL, epoch text NOT NULL, seq bigint NOT NULL,
    hand_id  text NOT NULL REFERENCES hands (id),
    street   text NOT NULL,
    cards    jsonb NOT NULL,
    PRIMARY KEY (table_id, epoch, seq)
);
CREATE INDEX boards_by_hand ON boards (hand_id);

CREATE TABLE pots (
    table_id text NOT NULL, epoch text NOT NULL, seq bigint NOT NULL,
    hand_id  text NOT NULL REFERENCES hands (id),
    street   text NOT NULL,
    pots     jsonb NOT NULL,
    total    bigint NOT NULL,
    PRIMARY KEY (table_id, epoch, seq)
);
CREATE INDEX pots_by_hand ON pots (hand_id);

CREATE TABLE showdowns (
    table_id text NOT NULL, epoch text NOT NULL, seq bigint NOT NULL,
    hand_id  text NOT NULL REFERENCES hands (id),
    seat     integer NOT NULL,
    cards    jsonb NOT NULL,
    best     jsonb NOT NULL,
    high     text,
    low      text,
    PRIMARY KEY (table_id, epoch, seq)
);
CREATE INDEX showdowns_by_hand ON showdowns (hand_id);

CREATE TABLE winners (
    table_id text NOT NULL, epoch text NOT NULL, seq bigint NOT NULL,
    hand_id  text NOT NULL REFERENCES hands (id),
    pot      integer NOT NULL,
    seat     integer NOT NULL,
    amount   bigint NOT NULL,
    half     text NOT NULL,
    description text NOT NULL,
    PRIMARY KEY (table_id, epoch, seq)
);
CREATE INDEX winners_by_hand ON winners (hand_id);

-- Jackpot and high-hand qualifications, for the floor supervisor to confirm.
CREATE TABLE flags (
    hand_id    text NOT NULL REFERENCES hands (id),
    rule       text NOT NULL,
    kind       text NOT NULL,
    seat       integer NOT NULL,
    detail     text NOT NULL,
    flagged_at timestamptz NOT NULL DEFAULT now(),
    confirmed_by text,
    confirmed_at timestamptz,
    PRIMARY KEY (hand_id, rule, seat)
);
