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


@contextlib.contextmanager
def counted_lines(label: str, *, total: int, count: Callable[[], int],
                  stream: TextIO | None = None) -> Iterator[Callable[[str], None]]:
    """A dialogue's ``say`` (prompts and answers, one line each) with a progress bar under the
    lines on a terminal, ``count()`` of ``total`` done, moved at each line; elsewhere (a pipe,
    a script driving the command) the lines alone, as they come (the dialogue's own lines
    carry the count: ``12/52 Kd = ...``).

    Args:
        label: what is being done (``registering deck club-3``).
        total: how many items in all.
        count: how many are done now (read at each line).
        stream: where the lines go (default stdout, where prompts belong).
    """
    out = sys.stdout if stream is None else stream
    if not out.isatty():
        def plain(text: str) -> None:
            print(text, file=out, flush=True)

        yield plain
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    # redrawn only when a line is said: the dealer may be typing an answer on the terminal
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  console=Console(file=out), auto_refresh=False) as bar:
        task = bar.add_task(label, total=total, completed=count())

        def say(text: str) -> None:
            bar.console.print(text, markup=False, highlight=False, emoji=False)
            bar.update(task, completed=count())
            bar.refresh()

        yield say


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


__all__ = ["Step", "counted_lines", "progress", "tracked"]
