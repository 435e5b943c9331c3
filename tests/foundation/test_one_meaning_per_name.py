"""Each of these type names means one thing: it is defined in one module of the three packages.

The names once stood for two or three different things each (the glossary in
``docs/architecture.md``, "Names"); a second definition of any of them fails here.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("tablectl", "firmware_bridge", "hardware_sim")
NAMES = frozenset({
    "Outcome", "ResyncResult",
    "CardRead", "ReadStatus", "FaceRead", "FaceStatus",
    "Role", "LoginRole", "LinkEnd", "AntennaRole",
    "HandEnded", "HandClosed",
    "TagGone", "TagLeft",
})


def definitions(root: Path, packages: tuple[str, ...]) -> dict[str, set[str]]:
    """Name -> the modules (paths relative to ``root``) that define it as a class, at any
    depth, or bind it at module level (an assignment or a type alias)."""
    where: dict[str, set[str]] = defaultdict(set)
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
            module = path.relative_to(root).as_posix()
            for node in ast.walk(tree):
                if isinstance(node, ast.ClassDef):
                    where[node.name].add(module)
            for node in tree.body:
                targets: list[ast.expr] = []
                if isinstance(node, ast.Assign):
                    targets = list(node.targets)
                elif isinstance(node, ast.AnnAssign):
                    targets = [node.target]
                elif type(node).__name__ == "TypeAlias":  # `type X = ...` (Python 3.12)
                    targets = [node.name]  # type: ignore[attr-defined]
                for target in targets:
                    if isinstance(target, ast.Name):
                        where[target.id].add(module)
    return where


def twice(where: dict[str, set[str]]) -> dict[str, list[str]]:
    return {name: sorted(where[name]) for name in sorted(NAMES) if len(where[name]) > 1}


def test_each_name_is_defined_in_one_module() -> None:
    where = definitions(ROOT, PACKAGES)
    assert twice(where) == {}
    assert all(where[name] for name in NAMES), sorted(n for n in NAMES if not where[n])


def test_a_second_definition_is_found(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b" / "sub").mkdir(parents=True)
    (tmp_path / "a" / "x.py").write_text("class Role:\n    pass\n", encoding="utf-8")
    (tmp_path / "b" / "sub" / "y.py").write_text(
        "def f() -> None:\n    class TagGone:\n        pass\n\nRole = int\n", encoding="utf-8")
    (tmp_path / "b" / "z.py").write_text("class TagGone:\n    pass\n", encoding="utf-8")
    assert twice(definitions(tmp_path, ("a", "b"))) == {
        "Role": ["a/x.py", "b/sub/y.py"], "TagGone": ["b/sub/y.py", "b/z.py"]}
