-- Hands run more than once, double boards and bomb pots (docs/floor.md, "Runs, double
-- boards and bomb pots"), and players named by an id of the table config.
--
-- A board, showdown or winner row says which run (a hand run twice or three times: the
-- `run` of its event, docs/mqtt.md §8.1) and which board (a double-board hand: `board`) it
-- is about; both are 1 in a plain hand, and in every row written before this migration. A
-- hand row keeps how many times its board was run, how many boards it had, and a bomb
-- pot's ante (null: not a bomb pot).

ALTER TABLE boards ADD COLUMN run integer NOT NULL DEFAULT 1,
                   ADD COLUMN board integer NOT NULL DEFAULT 1;
ALTER TABLE showdowns ADD COLUMN run integer NOT NULL DEFAULT 1,
                      ADD COLUMN board integer NOT NULL DEFAULT 1;
ALTER TABLE winners ADD COLUMN run integer NOT NULL DEFAULT 1,
                    ADD COLUMN board integer NOT NULL DEFAULT 1;
ALTER TABLE hands ADD COLUMN runs integer NOT NULL DEFAULT 1,
                  ADD COLUMN boards integer NOT NULL DEFAULT 1,
                  ADD COLUMN bomb bigint;

-- The statistics' player: the seat's `player` id in the hand's hand_started (the table
-- config's [[seats]] player_id) when it has one, else its name, else "{table} seat {n}".
-- The function is 0003's with that one change; a bomb pot needs none: it has no first
-- betting round (no action on 'preflop'), so no VPIP, PFR or 3-bet chance, and a hand run
-- more than once is one showdown per player (its rows are per hand and seat, whatever the
-- runs and boards).
ALTER TABLE player_hands ADD COLUMN player_id text;
CREATE INDEX player_hands_by_player_id ON player_hands (player_id) WHERE player_id IS NOT NULL;

CREATE OR REPLACE FUNCTION player_hand_rows(ids text[]) RETURNS SETOF player_hands
LANGUAGE sql STABLE AS $$
WITH dealt AS (
    SELECT h.id AS hand_id, h.table_id, h.started_at, h.ended_at,
           coalesce(h.game->>'variant', '') AS variant,
           coalesce(h.game->>'structure', '') AS structure,
           coalesce(h.game->>'label', h.game->>'variant', '') AS game_label,
           coalesce(h.stakes->>'currency', '') AS currency,
           CASE WHEN jsonb_typeof(h.stakes->'units_per_currency') = 'number'
                     AND (h.stakes->>'units_per_currency')::numeric > 0
                THEN (h.stakes->>'units_per_currency')::numeric ELSE 1 END AS unit,
           (s->>'seat')::integer AS seat,
           CASE WHEN jsonb_typeof(s->'name') = 'string' AND btrim(s->>'name') <> ''
                THEN s->>'name' END AS name,
           CASE WHEN jsonb_typeof(s->'player') = 'string' AND btrim(s->>'player') <> ''
                THEN s->>'player' END AS player_id,
           CASE WHEN jsonb_typeof(s->'stack') = 'number'
                THEN (s->>'stack')::bigint END AS stack_before,
           (SELECT (e->>'stack')::bigint FROM jsonb_array_elements(
                CASE WHEN jsonb_typeof(h.stacks) = 'array' THEN h.stacks END) e
             WHERE e->>'seat' = s->>'seat' LIMIT 1) AS stack_after
      FROM hands h CROSS JOIN LATERAL jsonb_array_elements(h.seats) s
     WHERE h.id = ANY(ids) AND h.result = 'settled' AND jsonb_typeof(h.seats) = 'array'
), decisions AS (
    SELECT a.hand_id, a.seat, a.kind, a.forced,
           coalesce(a.street IN ('preflop', 'third'), false) AS first_round,
           count(*) FILTER (WHERE a.kind IN ('bet', 'raise', 'complete') AND NOT a.forced)
               OVER (PARTITION BY a.hand_id, a.street ORDER BY st.created, a.seq
                     ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS wagers_before
      FROM actions a
      JOIN streams st ON st.table_id = a.table_id AND st.epoch = a.epoch
     WHERE a.hand_id = ANY(ids) AND NOT a.undone
), per_seat AS (
    SELECT hand_id, seat,
           bool_or(first_round AND NOT forced) AS decided,
           bool_or(first_round AND NOT forced
                   AND kind IN ('call', 'bet', 'raise', 'complete')) AS vpip,
           bool_or(first_round AND NOT forced AND kind IN ('bet', 'raise', 'complete')) AS pfr,
           bool_or(first_round AND NOT forced AND wagers_before = 1) AS three_bet_chance,
           bool_or(first_round AND NOT forced AND wagers_before = 1
                   AND kind IN ('bet', 'raise', 'complete')) AS three_bet,
           bool_or(NOT forced AND kind = 'fold') AS folded,
           bool_or(first_round AND NOT forced AND kind = 'fold') AS folded_first
      FROM decisions
     GROUP BY hand_id, seat
), later AS (   -- hands that went on past the first betting round
    SELECT hand_id FROM actions
     WHERE hand_id = ANY(ids) AND NOT undone AND street NOT IN ('preflop', 'third')
    UNION
    SELECT hand_id FROM boards WHERE hand_id = ANY(ids) AND street <> 'preflop'
), joined AS (
    SELECT d.*, coalesce(p.decided, false) AS decided, coalesce(p.vpip, false) AS vpip,
           coalesce(p.pfr, false) AS pfr,
           coalesce(p.three_bet_chance, false) AS three_bet_chance,
           coalesce(p.three_bet, false) AS three_bet,
           coalesce(p.folded, false) AS folded, coalesce(p.folded_first, false) AS folded_first,
           count(*) FILTER (WHERE NOT coalesce(p.folded, false))
               OVER (PARTITION BY d.hand_id) AS live,
           EXISTS (SELECT 1 FROM later l WHERE l.hand_id = d.hand_id) AS went_on,
           EXISTS (SELECT 1 FROM winners w WHERE w.hand_id = d.hand_id AND w.seat = d.seat
                   AND w.amount > 0) AS won
      FROM dealt d
      LEFT JOIN per_seat p ON p.hand_id = d.hand_id AND p.seat = d.seat
)
SELECT hand_id, table_id, started_at, ended_at, variant, structure, game_label, currency,
       unit, seat, name, coalesce(player_id, name, table_id || ' seat ' || seat) AS player,
       decided AS vpip_chance, vpip, pfr, three_bet_chance, three_bet,
       NOT folded_first AND (went_on OR live >= 2) AS saw_second_street,
       NOT folded AND live >= 2 AS showdown,
       NOT folded AND live >= 2 AND won AS won_showdown,
       stack_after - stack_before AS net,
       player_id
  FROM joined
$$;

-- No hand settled before this migration can name a player id: hand_started's seats carry one
-- only since the same release (docs/mqtt.md §8.1), so the rows already kept stay as they are.
