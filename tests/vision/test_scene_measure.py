"""The cluttered scenes' measure (:func:`tests.vision.corpus.read_matches`): a truth box is
the visible part of a card, a read's quad the whole card; each read matches one box at
most, and the match does not care which rank either says (a read of another rank counts
wrong)."""

from __future__ import annotations

from tablectl.vision.model import Quad
from tests.vision import corpus


def _card(x0: float, y0: float, x1: float, y1: float, turned: bool = False) -> Quad:
    """An upright card's quad, clockwise from its top-left (index) corner, or from its
    bottom-right corner where ``turned``."""
    q: Quad = ((x0, y0), (x1, y0), (x1, y1), (x0, y1))
    return (q[2], q[3], q[0], q[1]) if turned else q


def test_a_card_seen_whole_matches_its_box_by_overlap() -> None:
    got = list(corpus.read_matches([_card(0, 0, 100, 140)], [(2, 1, 101, 139)]))
    assert got == [(0, 0, False)]


def test_a_strip_of_a_covered_card_matches_the_whole_card_read() -> None:
    """A card whose right two thirds lie under another: its box is the strip it shows
    (IoU with the whole card 0.33), with its index in it."""
    strip = (0.0, 0.0, 34.0, 140.0)
    top = (34.0, 5.0, 134.0, 145.0)
    assert list(corpus.matches([(0, 0, 100, 140)], [strip])) == []
    got = sorted(corpus.read_matches([_card(0, 0, 100, 140), _card(34, 5, 134, 145)],
                                     [strip, top]))
    assert got == [(0, 0, True), (1, 1, False)]


def test_a_strip_without_the_read_index_is_not_matched() -> None:
    """The card's box lies inside the quad read, but neither of the read's index corners
    lies in it: another card's strip, not this one's."""
    middle = (30.0, 40.0, 70.0, 100.0)
    assert list(corpus.read_matches([_card(0, 0, 100, 140)], [middle])) == []


def test_in_a_fan_each_read_keeps_its_own_strip() -> None:
    """A jack and a queen fanned to the right of an ace, each read whole from its
    bottom-right index (the numbers of the corpus's IMG_2650, shrunk): the queen's read
    covers the jack's strip more than its own, and its far index corner lies under the
    jack. Still each read matches the strip that holds its own index (as many matched as
    can be; the most inside first would give the queen the jack's box), and one read never
    matches two boxes."""
    jack: Quad = ((279, 412), (117, 429), (93, 202), (255, 185))
    queen: Quad = ((355, 398), (199, 425), (162, 207), (317, 181))
    boxes = [(181.0, 203.0, 281.0, 415.0), (265.0, 193.0, 357.0, 410.0)]
    assert corpus.box_inside(boxes[0], queen) > corpus.box_inside(boxes[1], queen)
    got = sorted(corpus.read_matches([jack, queen], boxes))
    assert got == [(0, 0, True), (1, 1, True)]


def test_a_read_matched_to_a_strip_of_another_rank_counts_wrong() -> None:
    """The tally counts by the box's rank, whichever way the box was matched."""
    t = corpus.RankTally(boxes=2, cards=2, right=1, accepted=2, accepted_wrong=1, strips=1,
                         strips_accepted=1, strips_wrong=1)
    assert t.accepted_right == 1
    assert t.accepted_right_iou == 1
    t = corpus.RankTally(boxes=2, cards=2, right=2, accepted=2, accepted_wrong=0, strips=1,
                         strips_accepted=1, strips_wrong=0)
    assert (t.accepted_right, t.accepted_right_iou) == (2, 1)
