-- Tournaments (docs/tournament.md): one row per tournament with its structure as it was
-- created and its clock record (status, period, started_at, used: tablectl/tournament/clock.py
-- says what each means); one row per entry (a player's buy-in or re-entry) and one per
-- elimination. These tables may live in the floor's database beside its history.

CREATE TABLE tournaments (
    id              text PRIMARY KEY,
    name            text NOT NULL,
    structure       jsonb NOT NULL,
    status          text NOT NULL CHECK (status IN ('not_started', 'running', 'paused',
                                                    'finished')),
    period          integer NOT NULL CHECK (period >= 0),
    started_at      timestamptz,
    used            double precision NOT NULL,
    seats_per_table integer NOT NULL,
    tables          integer[] NOT NULL DEFAULT '{}',
    version         bigint NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    CHECK ((status = 'running') = (started_at IS NOT NULL))
);

CREATE TABLE tournament_entries (
    tournament_id   text NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    player          text NOT NULL,
    number          integer NOT NULL CHECK (number >= 1),
    position        integer NOT NULL,
    status          text NOT NULL CHECK (status IN ('playing', 'eliminated')),
    table_no        integer,
    seat            integer,
    chips           bigint NOT NULL,
    PRIMARY KEY (tournament_id, player, number),
    -- one player per seat; an eliminated entry has no seat (NULLs never clash)
    UNIQUE (tournament_id, table_no, seat) DEFERRABLE INITIALLY DEFERRED
);

CREATE TABLE tournament_eliminations (
    tournament_id   text NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    ord             integer NOT NULL,
    player          text NOT NULL,
    entry           integer NOT NULL,
    hand            text NOT NULL,
    start_chips     bigint NOT NULL CHECK (start_chips > 0),
    table_no        integer,
    seat            integer,
    recorded_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tournament_id, ord),
    FOREIGN KEY (tournament_id, player, entry)
        REFERENCES tournament_entries (tournament_id, player, number)
);
