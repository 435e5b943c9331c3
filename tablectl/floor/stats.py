"""Player statistics from the floor's history (sans-IO: the query, the values, the table).

The statistics are computed in PostgreSQL: the table ``player_hands`` (migration
``0003_player_hands.sql``, filled by its function ``player_hand_rows`` when a hand settles)
has one row per player dealt in per settled hand with what each statistic counts for it, and
:func:`stats_sql` sums those rows by player and game.
:meth:`tablectl.floor.pg.PgStore.player_stats` runs it. The definitions (what a chance is,
what counts as voluntary, stud's first round, walks) are in docs/floor.md, "Player
statistics".

A player is the seat's player id in the hand's ``hand_started`` (``[[seats]] player_id``),
else its name (``[[seats]] name`` or ``seat_player``); a seat with neither is
``{table} seat {n}``, a player of that table only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from enum import StrEnum
from typing import Any, Final

from tablectl.domain.games import GameKind


class StatsBy(StrEnum):
    """How the rows are grouped."""

    PLAYER_GAME = "player,game"
    PLAYER = "player"
    GAME = "game"


@dataclass(frozen=True, slots=True)
class StatsQuery:
    """Which hands, and how to group them.

    Attributes:
        players: only these players (their names; empty: everyone).
        games: only these variants (``GameKind`` values; empty: every game).
        table: only hands of this table.
        since / until: only hands started at or after ``since`` and before ``until``.
        last: only each player's last ``last`` hands (within the other limits), newest by
            their start.
        by: the grouping.
    """

    players: tuple[str, ...] = ()
    games: tuple[str, ...] = ()
    table: str | None = None
    since: datetime | None = None
    until: datetime | None = None
    last: int | None = None
    by: StatsBy = StatsBy.PLAYER_GAME

    def __post_init__(self) -> None:
        known = {g.value for g in GameKind}
        for game in self.games:
            if game not in known:
                raise ValueError(f"unknown game {game!r}: one of {', '.join(sorted(known))}")
        if self.last is not None and self.last < 1:
            raise ValueError(f"last must be at least 1, not {self.last}")
        if self.since and self.until and self.until <= self.since:
            raise ValueError("until must be after since")


@dataclass(frozen=True, slots=True)
class Ratio:
    """``made`` out of ``chances`` (a percentage is None without a chance)."""

    made: int
    chances: int

    @property
    def percent(self) -> float | None:
        """``made / chances`` as a percentage with one decimal, None without a chance."""
        return round(100 * self.made / self.chances, 1) if self.chances else None

    def text(self) -> str:
        """``"33%"``, or ``"-"`` without a chance.

        >>> Ratio(1, 3).text(), Ratio(0, 0).text()
        ('33%', '-')
        """
        pct = self.percent
        return "-" if pct is None else f"{pct:.0f}%"

    def to_json(self) -> dict[str, Any]:
        """``{"made", "chances", "percent"}``."""
        return {"made": self.made, "chances": self.chances, "percent": self.percent}


@dataclass(frozen=True, slots=True)
class PlayerStats:
    """One group's statistics (docs/floor.md, "Player statistics").

    Attributes:
        player: the player (None when grouped by game only).
        game: the game's label (None when grouped by player only); ``variant`` and
            ``structure`` as the hands recorded them.
        hands: settled hands dealt in.
        vpip / pfr / three_bet: first-round money put in voluntarily, raised, re-raised.
        wtsd: went to showdown, of the hands that saw the second street.
        wsd: won money at a showdown, of the showdowns.
        net: chips won less chips put in, in the currency (``units_per_currency`` units a
            unit; chip units at a table whose stakes name none).
        currency: the stakes' currency ('' when they name none).
        last_hand: when the newest hand counted ended.
    """

    player: str | None
    game: str | None
    variant: str | None
    structure: str | None
    hands: int
    vpip: Ratio
    pfr: Ratio
    three_bet: Ratio
    wtsd: Ratio
    wsd: Ratio
    net: Decimal
    currency: str = ""
    last_hand: datetime | None = field(default=None, compare=False)

    @classmethod
    def empty(cls, player: str | None) -> PlayerStats:
        """No hand yet."""
        none = Ratio(0, 0)
        return cls(player, None, None, None, 0, none, none, none, none, none, Decimal(0))

    def net_text(self) -> str:
        """The net amount, signed, cents only when it has some.

        >>> from dataclasses import replace
        >>> replace(PlayerStats.empty("Ada"), net=Decimal("-12.50"), currency="USD").net_text()
        '-12.50 USD'
        """
        whole = self.net == self.net.to_integral_value()
        amount = f"{self.net:+,.0f}" if whole else f"{self.net:+,.2f}"
        amount = "0" if self.net == 0 else amount.replace("+-", "-")
        return f"{amount} {self.currency}".strip()

    def to_json(self) -> dict[str, Any]:
        """One JSON object: counts and percentages, ``net`` as a number in the currency."""
        return {"player": self.player, "game": self.game, "variant": self.variant,
                "structure": self.structure, "hands": self.hands,
                "vpip": self.vpip.to_json(), "pfr": self.pfr.to_json(),
                "three_bet": self.three_bet.to_json(), "wtsd": self.wtsd.to_json(),
                "wsd": self.wsd.to_json(), "net": float(self.net),
                "currency": self.currency,
                "last_hand": self.last_hand.isoformat() if self.last_hand else None}


_SUMS: Final = """count(*) AS hands,
       count(*) FILTER (WHERE vpip), count(*) FILTER (WHERE vpip_chance),
       count(*) FILTER (WHERE pfr),
       count(*) FILTER (WHERE three_bet), count(*) FILTER (WHERE three_bet_chance),
       count(*) FILTER (WHERE showdown), count(*) FILTER (WHERE saw_second_street),
       count(*) FILTER (WHERE won_showdown),
       coalesce(sum(net / unit), 0), currency, max(ended_at)"""

_KEYS: Final[Mapping[StatsBy, tuple[str, ...]]] = {
    StatsBy.PLAYER_GAME: ("player", "game_label", "variant", "structure"),
    StatsBy.PLAYER: ("player",),
    StatsBy.GAME: ("game_label", "variant", "structure"),
}


def stats_sql(query: StatsQuery) -> tuple[str, dict[str, Any]]:
    """The SQL (psycopg's named parameters) and its parameters for ``query``.

    Its rows go to :func:`stats_from_rows`. The filters are parameters, never text in the
    statement; the grouping is one of three fixed column lists.
    """
    keys = _KEYS[query.by]
    params: dict[str, Any] = {"players": list(query.players) or None,
                              "games": list(query.games) or None, "table": query.table,
                              "since": query.since, "until": query.until,
                              "last": query.last}
    where = ("(%(players)s::text[] IS NULL OR player = ANY(%(players)s::text[])) AND "
             "(%(games)s::text[] IS NULL OR variant = ANY(%(games)s::text[])) AND "
             "(%(table)s::text IS NULL OR table_id = %(table)s::text) AND "
             "(%(since)s::timestamptz IS NULL OR started_at >= %(since)s::timestamptz) AND "
             "(%(until)s::timestamptz IS NULL OR started_at < %(until)s::timestamptz)")
    group = ", ".join((*keys, "currency"))
    # only the fixed column names of _KEYS are put into the text; every value is a parameter
    text = (f"SELECT {', '.join(keys)}, {_SUMS} FROM ("  # noqa: S608
            "SELECT *, row_number() OVER (PARTITION BY player ORDER BY started_at DESC, "
            f"hand_id DESC) AS back FROM player_hands WHERE {where}) AS counted "
            "WHERE %(last)s::integer IS NULL OR back <= %(last)s::integer "
            f"GROUP BY {group} ORDER BY {group}")
    return text, params


def stats_from_rows(by: StatsBy, rows: Sequence[Sequence[Any]]) -> list[PlayerStats]:
    """The rows of :func:`stats_sql` as values."""
    out = []
    for row in rows:
        named = dict(zip(_KEYS[by], row, strict=False))
        (hands, vpip, chances, pfr, three, three_chances, showdowns, saw_second, won, net,
         currency, last) = row[len(_KEYS[by]):]
        out.append(PlayerStats(
            player=named.get("player"), game=named.get("game_label"),
            variant=named.get("variant"), structure=named.get("structure"), hands=hands,
            vpip=Ratio(vpip, chances), pfr=Ratio(pfr, chances),
            three_bet=Ratio(three, three_chances), wtsd=Ratio(showdowns, saw_second),
            wsd=Ratio(won, showdowns), net=Decimal(net).normalize() + 0,
            currency=currency or "", last_hand=last))
    return out


@dataclass(frozen=True, slots=True)
class TableStats:
    """The statistics of the players seated at one table, in its game now, as the floor
    publishes them for the table's displays and overlay (docs/floor.md, "Published for the
    displays and the overlay").

    Attributes:
        table: the table's id.
        game: the table's game (its latest snapshot's ``game``).
        seats: ``(seat, name, player, stats)`` of each seated player with a name or a player
            id, by seat (``player``: the id, else the name: who the statistics are of); ``stats``
            over every settled hand of this game (variant and structure) the player was dealt
            in at any table, None before the first.
        through: when the newest hand counted ended (None: no hand yet): a consumer keeps the
            message with the latest ``through`` (several workers may publish for one table).
    """

    table: str
    game: Mapping[str, Any]
    seats: tuple[tuple[int, str, str, PlayerStats | None], ...]
    through: datetime | None

    def to_json(self, now: datetime) -> dict[str, Any]:
        """The message body (``poker/v1/floor/tables/{t}/stats``, docs/mqtt.md §1)."""
        players = []
        for seat, name, player, st in self.seats:
            figures = (st or PlayerStats.empty(player)).to_json()
            for key in ("player", "game", "variant", "structure"):
                figures.pop(key, None)
            players.append({"seat": seat, "name": name,
                            **({"player": player} if player != name else {}), **figures})
        return {"v": 1, "type": "stats", "table": self.table, "ts": now.isoformat(),
                "through": self.through.isoformat() if self.through else None,
                "game": {k: self.game.get(k) for k in ("variant", "structure", "label")},
                "players": players}


def seated(snapshot: Mapping[str, Any] | None) -> list[tuple[int, str, str]]:
    """``(seat, name, player)`` of the seated players a snapshot names: ``player`` is the
    seat's player id (docs/mqtt.md §8: the config's ``[[seats]] player_id``), else its name
    (an empty seat, or one with neither, is nobody to follow).

    >>> seated({"seats": [{"seat": 1, "name": "Ada", "status": "active"},
    ...                   {"seat": 2, "name": "", "status": "empty"}, "junk",
    ...                   {"seat": 3, "name": "Bo", "player": "bo-17", "status": "out"}]})
    [(1, 'Ada', 'Ada'), (3, 'Bo', 'bo-17')]
    """
    out = []
    for entry in (snapshot or {}).get("seats") or ():
        if not isinstance(entry, Mapping) or entry.get("status") == "empty":
            continue
        seat, name, player = entry.get("seat"), entry.get("name"), entry.get("player")
        name = name if isinstance(name, str) else ""
        key = player if isinstance(player, str) and player.strip() else name
        if isinstance(seat, int) and key.strip():
            out.append((seat, name, key))
    return sorted(out)


def seated_query(game: Mapping[str, Any], players: Sequence[tuple[int, str, str]]
                 ) -> StatsQuery | None:
    """The query of :class:`TableStats` (None: no known game, or nobody seated)."""
    variant = game.get("variant")
    if not players or variant not in {g.value for g in GameKind}:
        return None
    return StatsQuery(players=tuple(sorted({player for _, _, player in players})),
                      games=(str(variant),))


def table_stats(table: str, game: Mapping[str, Any], players: Sequence[tuple[int, str, str]],
                rows: Sequence[PlayerStats]) -> TableStats:
    """Assemble :class:`TableStats` from :func:`seated_query`'s results (rows of another
    structure of the same variant are not this game)."""
    mine = {r.player: r for r in rows if r.structure == game.get("structure")}
    seats = tuple((seat, name, player, mine.get(player)) for seat, name, player in players)
    ends = [r.last_hand for r in mine.values() if r.last_hand is not None]
    return TableStats(table, game, seats, max(ends) if ends else None)


HEADERS: Final = ("hands", "VPIP", "PFR", "3-bet", "WTSD", "W$SD", "net")


def stats_lines(stats: Sequence[PlayerStats], by: StatsBy) -> list[str]:
    """A plain table, one line per group under a header line."""
    names = [s.player or "" for s in stats]
    games = [s.game or s.variant or "" for s in stats]
    cols: list[tuple[str, list[str]]] = []
    if by is not StatsBy.GAME:
        cols.append(("player", names))
    if by is not StatsBy.PLAYER:
        cols.append(("game", games))
    widths = [max([len(title), *(len(v) for v in values)]) for title, values in cols]
    numbers = [(str(s.hands), s.vpip.text(), s.pfr.text(),
                f"{s.three_bet.text()} ({s.three_bet.made}/{s.three_bet.chances})",
                s.wtsd.text(), s.wsd.text(), s.net_text()) for s in stats]
    num_widths = [max([len(h), *(len(n[i]) for n in numbers)]) for i, h in enumerate(HEADERS)]

    def line(left: Sequence[str], right: Sequence[str]) -> str:
        return "  ".join([*(v.ljust(w) for v, w in zip(left, widths, strict=True)),
                          *(v.rjust(w) for v, w in zip(right, num_widths, strict=True))])

    out = [line([title for title, _ in cols], HEADERS)]
    for i, n in enumerate(numbers):
        out.append(line([values[i] for _, values in cols], n))
    return out


__all__ = ["HEADERS", "PlayerStats", "Ratio", "StatsBy", "StatsQuery", "TableStats", "seated",
           "seated_query", "stats_from_rows", "stats_lines", "stats_sql", "table_stats"]
