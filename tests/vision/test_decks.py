"""Each development deck of ``../shared/corpus/cards`` enrolled on one photo per card and
read back (tests/vision/decks.py); skipped, with the reason, where a deck is absent.

Floors just under what was measured (docs/camera.md §6, "Per deck"): no wrong card
accepted where both kinds of evidence are available, and the share read right. The deck
is read with its profile as if enabled (enrolment's own verdict is in the bench's table).
"""

from __future__ import annotations

import pytest

from . import decks


@pytest.mark.timeout(300)  # about a minute alone; the machine is shared
@pytest.mark.skipif(not decks.available(decks.WEBCAM), reason=decks.skip_reason(decks.WEBCAM))
def test_webcam_deck_accepts_no_wrong_card() -> None:
    row = decks.deck_row(decks.webcam_deck(step=5), design_step=8)
    s = row.singles
    assert s.total == 198
    assert s.wrong == 0, s.line()  # 56 of 988 before the face was compared
    assert s.right >= 0.65 * s.total, s.line()  # 70.2% measured on every 2nd photo
    assert row.designs.wrong == 0 and row.designs.jokers_accepted == 0


@pytest.mark.timeout(300)
@pytest.mark.skipif(not decks.available(decks.BLACKJACK),
                    reason=decks.skip_reason(decks.BLACKJACK))
def test_blackjack_scenes_accept_no_wrong_card() -> None:
    row = decks.deck_row(decks.blackjack_webcam(), design_step=8)
    assert row.scenes is not None
    assert row.scenes.cards == 45
    assert row.scenes.wrong == 0, row.scenes.line()
    assert row.enrolment.startswith("52/52 right, 0 wrong"), row.enrolment
    assert row.scenes.right >= 18, row.scenes.line()  # 19 measured (12 before crops read whole)
    assert row.designs.jokers_accepted == 0
