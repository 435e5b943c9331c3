"""No import cycle in any of the three packages, imports under ``TYPE_CHECKING`` included: a
cycle is where a module stops having one job (docs/architecture.md)."""

from __future__ import annotations

import grimp
import pytest


def cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    adjacency = {m: sorted(graph.find_modules_directly_imported_by(m)) for m in graph.modules}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(adjacency):
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            node, at = work.pop()
            if at == 0:
                index[node] = low[node] = len(index)
                stack.append(node)
                on_stack.add(node)
            for i in range(at, len(adjacency[node])):
                nxt = adjacency[node][i]
                if nxt not in index:
                    work.append((node, i + 1))
                    work.append((nxt, 0))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
    return found


@pytest.mark.parametrize("package", ["tablectl", "firmware_bridge", "hardware_sim"])
def test_no_import_cycle(package: str) -> None:
    graph = grimp.build_graph(package, include_external_packages=False,
                              exclude_type_checking_imports=False)
    assert cycles(graph) == []


def test_a_cycle_is_found() -> None:
    graph = grimp.ImportGraph()
    for module in ("p", "p.a", "p.b", "p.c"):
        graph.add_module(module)
    graph.add_import(importer="p.a", imported="p.b")
    graph.add_import(importer="p.b", imported="p.a")
    graph.add_import(importer="p.b", imported="p.c")
    assert cycles(graph) == [["p.a", "p.b"]]
