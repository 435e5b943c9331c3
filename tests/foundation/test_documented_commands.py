"""Every command the README and docs/ show works as written, after the quick start.

The docs write commands as they are typed in a shell where the checkout's ``.venv`` is active
(``tablectl ...``, ``python -m hardware_sim ...``); the README's quick start says how to get
there. These tests check that set-up (in a fresh shell, outside the checkout), that every doc
that shows a command points to it, and that each command shown resolves: its subcommands and
options exist in the command's own argument parser, and a script it runs exists.
"""

from __future__ import annotations

import argparse
import functools
import os
import re
import shlex
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

import firmware_bridge.__main__ as bridge_cli
import hardware_sim.__main__ as sim_cli
from tablectl.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SETUP_POINTER = 'README, "Quick start"'
"""What every doc that shows a command says, to point to the shell set-up its commands need."""

_PARSERS = {"tablectl": functools.cache(build_parser),
            "hardware_sim": functools.cache(sim_cli.build_parser),
            "firmware_bridge": functools.cache(bridge_cli.build_parser)}
_STARTS = re.compile(r"^(?:\$ |# )?(?:sudo (?:-u \S+ )?)?(?:cd \S+ && )?"
                     r"(?P<cmd>(?:\S*/)?tablectl(?: .*)?|(?:\S*/)?python3? .+)$")


@dataclass(frozen=True)
class Shown:
    """A command shown in a doc: where, and its words."""

    doc: str
    line: int
    words: tuple[str, ...]

    def __str__(self) -> str:
        return f"{self.doc}:{self.line}: {' '.join(self.words)}"


def _words(text: str) -> list[str] | None:
    text = text.split(" # ", 1)[0].split("  #", 1)[0]
    for sep in (" | ", " && ", " < ", " > ", " &"):
        text = text.split(sep, 1)[0]
    try:
        return shlex.split(text)
    except ValueError:
        return text.split()


def _invocation(text: str) -> list[str] | None:
    """The words of a command line if it runs tablectl or python, else None."""
    match = _STARTS.match(text.strip())
    if match is None:
        return None
    words = _words(match.group("cmd"))
    if not words:
        return None
    if words[0].endswith("tablectl"):
        if len(words) > 1 and words[1].endswith(":"):
            return None                      # a line of output: "tablectl floor: ..."
        return ["tablectl", *words[1:]]
    if words[0].split("/")[-1] in ("python", "python3"):
        return ["python", *words[1:]]
    return None


def shown_commands() -> Iterator[Shown]:
    """Every command line of a fenced block and every inline code span that is one."""
    for doc in DOCS:
        name = str(doc.relative_to(ROOT))
        fenced = False
        pending = ""
        for number, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), 1):
            if line.lstrip().startswith("```"):
                fenced, pending = not fenced, ""
                continue
            if fenced:
                full = pending + line.strip()
                if full.endswith("\\"):
                    pending = full[:-1] + " "
                    continue
                pending = ""
                words = _invocation(full)
                if words is not None:
                    yield Shown(name, number, tuple(words))
                continue
            for span in re.findall(r"`([^`]+)`", line):
                words = _invocation(span)
                if words is not None and len(words) > 1:
                    yield Shown(name, number, tuple(words))


def _clean(word: str) -> str:
    return word.strip("[](){},;").split("=", 1)[0]


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def resolve(words: tuple[str, ...]) -> str | None:
    """Why the command ``words`` would not run as shown (None: its subcommands and options
    exist). Placeholders (``FILE``, ``..``, ``[--table T]``) are taken as values."""
    if words[0] == "python":
        rest = list(words[1:])
        if rest[:1] == ["-m"] and len(rest) > 1:
            module, args = rest[1], rest[2:]
            if module not in _PARSERS:
                return f"python -m {module}: not one of {sorted(_PARSERS)}"
            parser = _PARSERS[module]()
        elif rest and rest[0].endswith(".py"):
            return None if (ROOT / rest[0]).is_file() else f"{rest[0]} does not exist"
        else:
            return None                       # python itself, as prose uses it
    else:
        parser, args = _PARSERS["tablectl"](), list(words[1:])
    i = 0
    while i < len(args):
        word = _clean(args[i])
        i += 1
        if not word or word in ("...", "..", "…", "|") or not word.isprintable():
            continue
        if word.startswith("--"):
            action = parser._option_string_actions.get(word)
            if action is None:
                return f"{parser.prog}: no option {word}"
            if action.nargs != 0 and not args[i - 1].count("="):
                i += 1                        # its value
            continue
        if word.startswith("-") or word.isupper():       # a short option; ARGS, FILE
            continue
        choices = _subparsers(parser)
        if choices:
            if not all(part in choices for part in word.split("/")):    # "encode/decode"
                return f"{parser.prog}: no command {word!r} (has {', '.join(choices)})"
            parser = choices[word.split("/")[0]]
    return None


def test_the_docs_show_commands() -> None:
    """The extraction finds what the docs show (a parse that found nothing checks nothing)."""
    shown = {" ".join(s.words[:3]) for s in shown_commands()}
    assert {"tablectl config check", "tablectl floor run", "python -m hardware_sim",
            "python -m firmware_bridge", "tablectl deck verify"} <= shown, sorted(shown)


def test_every_command_the_docs_show_resolves() -> None:
    broken = [f"{s}  ->  {why}" for s in shown_commands() if (why := resolve(s.words))]
    assert not broken, "\n".join(broken)


def test_a_command_that_does_not_exist_is_caught() -> None:
    assert resolve(("tablectl", "floor", "runn")) is not None
    assert resolve(("tablectl", "watch", "--tabel", "t1")) is not None
    assert resolve(("python", "-m", "hardware_sim", "serve", "shoe", "--ptyy", "x")) is not None
    assert resolve(("python", "bench/nothing.py")) is not None
    assert resolve(("tablectl", "--log-format", "json", "run", "--config", "FILE")) is None


def test_every_doc_that_shows_a_command_says_how_to_run_it() -> None:
    docs = {s.doc for s in shown_commands()}
    missing = [doc for doc in sorted(docs)
               if SETUP_POINTER not in " ".join((ROOT / doc).read_text(encoding="utf-8").split())
               and doc != "README.md"]
    assert not missing, missing
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert ". .venv/bin/activate" in readme.split("## What is in the box")[0]


def test_the_documented_shell_set_up_finds_each_command(tmp_path: Path) -> None:
    """In a new shell, outside the checkout (where ``python -m`` could not find the packages
    by the current folder), as the quick start says: activate ``.venv``."""
    activate = ROOT / ".venv" / "bin" / "activate"
    if not activate.is_file():
        pytest.skip("no .venv in this checkout (.ci/tablectl or .ci/test makes it)")
    script = (f". {shlex.quote(str(activate))} && command -v tablectl && "
              "python -m hardware_sim --help >/dev/null && "
              "python -m firmware_bridge --help >/dev/null")
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    # a PATH without the checkout's .venv/bin, as in a new login shell
    bare = {**env, "PATH": "/usr/local/bin:/usr/bin:/bin"}
    done = subprocess.run(["bash", "-c", script], cwd=tmp_path, env=bare, capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == str(ROOT / ".venv" / "bin" / "tablectl")
    wrapper = subprocess.run([str(ROOT / ".ci" / "tablectl"), "--version"], cwd=tmp_path,
                             env=env, capture_output=True, text=True, timeout=600, check=False)
    assert wrapper.returncode == 0 and wrapper.stdout.startswith("tablectl "), wrapper.stderr
