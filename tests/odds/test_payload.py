"""The odds message's schema: checked in as generated, and what the feed publishes fits it."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from tablectl.odds.feed import odds_payload
from tablectl.odds.payload import SCHEMA_DIR, OddsEnvelope, schema_files
from tablectl.odds.position import compute, request_from_snapshot
from tablectl.publish.envelope import SnapshotEnvelope


def test_checked_in_schema_is_the_generated_one() -> None:
    for name, text in schema_files().items():
        assert (SCHEMA_DIR / name).read_text() == text, f"regenerate {name}: write_schemas()"


def test_published_odds_fit_the_model() -> None:
    data = {"hand": {"id": "h1", "number": 1}, "game": {"variant": "omaha-hi-lo"},
            "street": "turn", "board": ["2c", "7d", "9h", "3s"], "burns": ["Kd"],
            "seats": [{"seat": n, "name": f"P{n}", "status": "active",
                       "cards": [{"card": c, "up": False} for c in cards]}
                      for n, cards in ((1, ["As", "2s", "Kc", "Qd"]),
                                       (4, ["4c", "5c", "Jh", "Jd"]))]}
    env = SnapshotEnvelope(table="t01", epoch=3, seq=9, ts=datetime(2026, 12, 1, tzinfo=UTC),
                           hand=2, data=data)
    request = request_from_snapshot(env.data)
    assert request is not None
    raw = odds_payload(env, compute(request))
    model = OddsEnvelope.model_validate_json(raw)
    assert model.data.exact and model.data.players[1].outs is not None
    assert model.data.players[0].high is not None
    withdrawn = odds_payload(env, {"hand": data["hand"], "players": []})
    assert OddsEnvelope.model_validate_json(withdrawn).data.players == []
    assert json.loads(raw)["type"] == "odds"
