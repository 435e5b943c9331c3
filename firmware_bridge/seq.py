"""Sequence numbers of reliable frames: 1..65535 per sender and session, 65535 wrapping to 1
(0 is never used), compared with serial-number arithmetic."""

from __future__ import annotations

from typing import Final

SEQ_MAX: Final = 0xFFFF
_SEQ_SPACE: Final = SEQ_MAX  # 1..65535


def seq_next(seq: int) -> int:
    """The seq after ``seq`` (65535 wraps to 1; 0 is never used).

    >>> seq_next(65535)
    1
    """
    return seq % SEQ_MAX + 1


def seq_prev(seq: int) -> int:
    """The seq before ``seq``, 0 (nothing) before 1.

    >>> seq_prev(1), seq_prev(2)
    (0, 1)
    """
    return 0 if seq == 1 else (seq - 2) % _SEQ_SPACE + 1


def seq_before(a: int, b: int) -> bool:
    """Serial-number ``a < b`` on the 1..65535 circle.

    >>> seq_before(65534, 2), seq_before(2, 65534)
    (True, False)
    """
    d = (b - a) % _SEQ_SPACE
    return 0 < d < _SEQ_SPACE // 2
