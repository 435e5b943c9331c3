"""Progress of long work (exporting many hands, replaying a folder, enrolling a deck): a rich
progress bar on a terminal, plain lines otherwise (a log, a pipe, a systemd journal).

Progress goes to stderr, so what a command prints on stdout (its results, ``--json``) stays
clean. Plain lines come at most every ``every`` seconds and at the end, so a log of a long run
is a handful of lines, not one per item.

>>> import io
>>> out = io.StringIO()
>>> with progress("exporting", total=3, stream=out, every=0) as step:
...     for _ in range(3):
...         step()
>>> print(out.getvalue().strip())
exporting: 1/3
exporting: 2/3
exporting: 3/3
exporting: 3/3 done
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from typing import TextIO, TypeVar

_T = TypeVar("_T")

Step = Callable[..., None]
"""``step(n=1, note="")``: ``n`` more items done; ``note`` names the one in hand."""


@contextlib.contextmanager
def progress(label: str, *, total: int | None, stream: TextIO | None = None,
             every: float = 2.0) -> Iterator[Step]:
    """Show the progress of ``total`` items (None: unknown) while the block runs.

    Args:
        label: what is being done (``exporting hands``).
        total: how many items, if known.
        stream: where to (default stderr); a terminal gets a bar, anything else lines.
        every: seconds between plain lines.
    """
    out = sys.stderr if stream is None else stream
    if out.isatty():
        with _bar(label, total, out) as step:
            yield step
        return
    done = 0
    last = time.monotonic()

    def line(suffix: str = "") -> str:
        return f"{label}: {done}" + (f"/{total}" if total is not None else "") + suffix

    def plain(n: int = 1, note: str = "") -> None:
        nonlocal done, last
        done += n
        now = time.monotonic()
        if now - last >= every:
            last = now
            print(line(f" ({note})" if note else ""), file=out, flush=True)

    yield plain
    print(line(" done"), file=out, flush=True)


@contextlib.contextmanager
def _bar(label: str, total: int | None, out: TextIO) -> Iterator[Step]:
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    columns = [SpinnerColumn(), TextColumn("{task.description}"), BarColumn(),
               MofNCompleteColumn(), TimeElapsedColumn(), TimeRemainingColumn(),
               TextColumn("{task.fields[note]}", style="dim")]
    with Progress(*columns, console=Console(file=out), transient=False) as bar:
        task = bar.add_task(label, total=total, note="")

        def step(n: int = 1, note: str = "") -> None:
            bar.update(task, advance=n, note=note)

        yield step


def tracked(items: Iterable[_T], label: str, *, total: int | None = None,
            stream: TextIO | None = None, every: float = 2.0) -> Iterator[_T]:
    """``items``, one at a time, with :func:`progress` counting them.

    >>> import io
    >>> list(tracked(iter("ab"), "reading", stream=io.StringIO()))
    ['a', 'b']
    """
    with progress(label, total=total, stream=stream, every=every) as step:
        for item in items:
            yield item
            step()


__all__ = ["Step", "progress", "tracked"]
