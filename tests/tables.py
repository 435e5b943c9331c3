"""A small table's config text for tests of what a config names (its sources, its files)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def two_seat_table(tmp_path: Path, sources: str, extra: str = "") -> Path:
    """``tmp_path/table.toml``: a no-limit hold'em table ``t9`` of two seats, the given
    ``[[sources]]`` text, a floor role and its journal in ``tmp_path``; ``extra`` appended."""
    out = tmp_path / "table.toml"
    out.write_text(f"""deck = "{ROOT}/config/decks/demo-red.csv"
[table]
id = "t9"
[game]
variant = "holdem"
structure = "no-limit"
[game.stakes]
small_blind = 1
big_blind = 2
[[seats]]
number = 1
stack = 500
[[seats]]
number = 2
stack = 500
{sources.strip()}
[access]
roles = {{ floor-t9 = "floor" }}
[journal]
path = "{tmp_path}/t9.sqlite"
{extra}""", encoding="utf-8")
    return out
