-- Player statistics (docs/floor.md, "Player statistics"): one row per player dealt in per
-- settled hand, with what each statistic counts for it. tablectl/floor/stats.py sums these
-- rows by player and game; the definitions are in docs/floor.md and nowhere else.
--
-- The function player_hand_rows(hand ids) computes the rows of those hands from their
-- actions, boards, winners and stacks; the store keeps them in the table player_hands,
-- written in the transaction that settles the hand (tablectl/floor/pg.py, _write), so a
-- query of the statistics reads one row per player and hand, not the whole history.
--
-- The first betting round is 'preflop' in the board games and 'third' street in stud: the
-- street the floor stored with each action (tablectl/floor/fold.py). Forced bets (blinds,
-- straddle, antes, the bring-in) and undone actions are never decisions. A wager is a bet, a
-- raise or a stud completion; wagers_before counts the others' wagers before an action on
-- its street, in the order of the events (a hand carried over a daemon restart continues on
-- the newer stream, created later).

CREATE TABLE player_hands (
    hand_id text NOT NULL REFERENCES hands (id),
    table_id text NOT NULL,
    started_at timestamptz NOT NULL,
    ended_at timestamptz,
    variant text NOT NULL,
    structure text NOT NULL,
    game_label text NOT NULL,
    currency text NOT NULL,
    unit numeric NOT NULL,
    seat integer NOT NULL,
    name text,
    player text NOT NULL,
    vpip_chance boolean NOT NULL,
    vpip boolean NOT NULL,
    pfr boolean NOT NULL,
    three_bet_chance boolean NOT NULL,
    three_bet boolean NOT NULL,
    saw_second_street boolean NOT NULL,
    showdown boolean NOT NULL,
    won_showdown boolean NOT NULL,
    net bigint,
    PRIMARY KEY (hand_id, seat)
);
CREATE INDEX player_hands_by_player ON player_hands (player, variant, started_at);
CREATE INDEX player_hands_by_start ON player_hands (started_at);

CREATE FUNCTION player_hand_rows(ids text[]) RETURNS SETOF player_hands
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
       unit, seat, name, coalesce(name, table_id || ' seat ' || seat) AS player,
       decided AS vpip_chance, vpip, pfr, three_bet_chance, three_bet,
       NOT folded_first AND (went_on OR live >= 2) AS saw_second_street,
       NOT folded AND live >= 2 AS showdown,
       NOT folded AND live >= 2 AND won AS won_showdown,
       stack_after - stack_before AS net
  FROM joined
$$;

-- the hands settled before this migration
INSERT INTO player_hands SELECT * FROM player_hand_rows(ARRAY(SELECT id FROM hands));
