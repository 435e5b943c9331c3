-- Results (docs/tournament.md, "Payouts and results"): each player's place and prize, written
-- in the transaction that finishes the tournament (tablectl/tournament/payouts.py computes
-- them). And an elimination a table reports is kept once per table, seat and hand
-- (tablectl/tournament/intake.py checks it first; this makes it a rule of the database too).

CREATE TABLE tournament_results (
    tournament_id   text NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    place           integer NOT NULL CHECK (place >= 1),
    player          text NOT NULL,
    entry           integer NOT NULL,
    amount_cents    bigint NOT NULL CHECK (amount_cents >= 0),
    currency        text NOT NULL,
    PRIMARY KEY (tournament_id, player, entry)
);

CREATE UNIQUE INDEX tournament_eliminations_once
    ON tournament_eliminations (tournament_id, table_no, seat, hand)
    WHERE table_no IS NOT NULL;
