-- Chip counts (docs/tournament.md, "Chip counts"): each table's last report of its players'
-- chips, after one of its hands; a table's new report replaces its rows.

CREATE TABLE tournament_chip_counts (
    tournament_id   text NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    table_no        integer NOT NULL,
    seat            integer NOT NULL,
    player          text NOT NULL,
    chips           bigint NOT NULL CHECK (chips >= 0),
    hand            text NOT NULL,
    recorded_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tournament_id, table_no, seat)
);
