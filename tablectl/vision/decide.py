"""Decisions over frames (sans-IO, no OpenCV): the vote, the deck guard, the shoe trigger.

* :class:`CardVote` collects the per-frame verdicts while one card is visible and decides once:
  accepted only if at least ``min_frames`` frames were individually accepted for the same
  card, no frame accepted a different card, and the winner holds ``min_share`` of the frames
  that saw a face. Anything else goes to the dealer.
* :class:`DeckGuard` watches whether the cards look like the enrolled deck's print. Each
  decided card whose glyphs were clear adds evidence (``+1`` for a match, ``-penalty`` for a
  mismatch); auto-accept is allowed only while the evidence is at least ``warmup``. A deck
  that was never enrolled keeps failing the print checks, so it never earns auto-accept,
  even when some of its cards happen to look like the enrolled ones; a dirty lens or a
  deck swap shows up as the score dropping.
* :class:`PresenceTrigger` says when a card is in the shoe's index window, from the mean
  change against the empty-slot reference, with hysteresis.

>>> vote = CardVote()
>>> vote.decide().read.status
<FaceStatus.NO_CARD: 'no_card'>
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final, Protocol

import numpy as np
import numpy.typing as npt

from tablectl.domain.cards import Card
from tablectl.vision.model import FaceRead, FaceStatus, Quad


class FrameVerdict(Protocol):
    """What the vote needs from a per-frame read (``IndexRead`` provides it)."""

    @property
    def card(self) -> Card | None: ...
    @property
    def status(self) -> FaceStatus: ...
    @property
    def confidence(self) -> float: ...
    @property
    def deck_match(self) -> bool | None: ...


@dataclass(frozen=True, slots=True)
class VotePolicy:
    """How many frames make a decision.

    Attributes:
        min_frames: accepted frames (same card) needed to accept; at least 1.
        min_share: the winner's share of the frames that saw a card face.
        max_frames: decide once this many frames were collected (the card may stay).
    """

    min_frames: int = 3
    min_share: float = 0.75
    max_frames: int = 6

    def __post_init__(self) -> None:
        if self.min_frames < 1 or self.max_frames < self.min_frames:
            raise ValueError("need 1 <= min_frames <= max_frames")
        if not 0.5 < self.min_share <= 1.0:
            raise ValueError("min_share must be in (0.5, 1]")


@dataclass(frozen=True, slots=True)
class Decision:
    """A decided card and whether its print matched the enrolled deck (``None``: unknown)."""

    read: FaceRead
    deck_match: bool | None


class CardVote:
    """Per-frame verdicts for one visible card, decided once."""

    def __init__(self, policy: VotePolicy | None = None) -> None:
        self.policy = policy or VotePolicy()
        self._frames: list[FrameVerdict] = []
        self._last_time = 0.0
        self._quad: Quad | None = None

    def __len__(self) -> int:
        return len(self._frames)

    @property
    def full(self) -> bool:
        """``max_frames`` collected: time to decide even if the card stays."""
        return len(self._frames) >= self.policy.max_frames

    def add(self, verdict: FrameVerdict, frame_time: float, quad: Quad | None = None) -> None:
        """Add one frame's verdict."""
        self._frames.append(verdict)
        self._last_time = frame_time
        if quad is not None:
            self._quad = quad

    def accepted_card(self) -> Card | None:
        """The card most frames so far accepted, or ``None``."""
        counts: dict[Card, int] = {}
        for v in self._frames:
            if v.status is FaceStatus.ACCEPTED and v.card is not None:
                counts[v.card] = counts.get(v.card, 0) + 1
        return max(counts, key=lambda c: counts[c]) if counts else None

    def decide(self) -> Decision:
        """The decision over the frames so far (``NO_CARD`` if none saw a card face)."""
        p = self.policy
        faces = [v for v in self._frames if v.card is not None]
        n = len(self._frames)
        if not faces or len(faces) * 2 < n:
            return Decision(FaceRead(None, 0.0, FaceStatus.NO_CARD, self._quad,
                                     self._last_time, n), None)
        weights: dict[Card, float] = {}
        for v in faces:
            assert v.card is not None
            weights[v.card] = weights.get(v.card, 0.0) + max(v.confidence, 0.01)
        winner = max(weights, key=lambda c: weights[c])
        mine = [v for v in faces if v.card == winner]
        accepted_mine = sum(v.status is FaceStatus.ACCEPTED for v in mine)
        accepted_other = sum(v.status is FaceStatus.ACCEPTED for v in faces
                             if v.card != winner)
        ok = (accepted_mine >= p.min_frames and accepted_other == 0
              and len(mine) >= p.min_share * len(faces))
        conf = float(np.mean([v.confidence for v in mine]))
        if not ok:
            conf = min(conf, 0.99)
        matches = [v.deck_match for v in mine if v.deck_match is not None]
        deck = None if not matches else sum(matches) * 2 > len(matches)
        status = FaceStatus.ACCEPTED if ok else FaceStatus.NEEDS_CONFIRMATION
        return Decision(FaceRead(winner, conf, status, self._quad, self._last_time, n), deck)


class DeckGuard:
    """Evidence that the cards come from the enrolled deck; gates auto-accept.

    Args:
        warmup: evidence needed before anything is auto-accepted (cards, after a reset).
        penalty: evidence lost for each card whose clear glyphs did not match the print.
        cap: evidence never exceeds this, so a deck swap is noticed within a few cards.

    >>> guard = DeckGuard(warmup=2)
    >>> [guard.observe(True) for _ in range(3)]
    [False, True, True]
    >>> guard.observe(False)
    False
    """

    def __init__(self, warmup: int = 3, penalty: int = 4, cap: int = 12) -> None:
        if warmup < 0 or penalty < 1 or cap < warmup:
            raise ValueError("need warmup >= 0, penalty >= 1, cap >= warmup")
        self.warmup = warmup
        self.penalty = penalty
        self.cap = cap
        self.score = 0

    @property
    def trusted(self) -> bool:
        """Auto-accept is currently allowed."""
        return self.score >= self.warmup

    def observe(self, deck_match: bool | None) -> bool:
        """Record one decided card's print check; returns :attr:`trusted` afterwards."""
        if deck_match is True:
            self.score = min(self.cap, self.score + 1)
        elif deck_match is False:
            self.score -= self.penalty
        return self.trusted

    def reset(self) -> None:
        """Forget the evidence (a new deck was brought in)."""
        self.score = 0


class PresenceTrigger:
    """Card present / absent in the shoe's index window, against the empty-slot picture.

    The reference is the first frame (the slot must be empty when the source starts) and
    follows slow light changes while the slot stays empty.

    Args:
        enter: mean absolute grey change (0..255) that means a card arrived.
        leave: change below which the card has gone (hysteresis; below ``enter``).
    """

    _STEP: Final = 4

    def __init__(self, enter: float = 45.0, leave: float = 35.0) -> None:
        if not 0 < leave < enter:
            raise ValueError("need 0 < leave < enter")
        self.enter = enter
        self.leave = leave
        self.present = False
        self._ref: npt.NDArray[np.float32] | None = None

    def update(self, window: npt.NDArray[np.integer[Any] | np.floating[Any]]) -> bool:
        """Feed the index window of one frame; returns whether a card is present."""
        small = window[:: self._STEP, :: self._STEP].astype(np.float32)
        grey = small.mean(axis=2) if small.ndim == 3 else small
        if self._ref is None or self._ref.shape != grey.shape:
            self._ref = grey
            return self.present
        change = float(np.abs(grey - self._ref).mean())
        self.present = change >= (self.leave if self.present else self.enter)
        if not self.present:
            self._ref = 0.9 * self._ref + 0.1 * grey
        return self.present
