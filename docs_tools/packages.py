"""The engine's package map, read from the code: each domain package of `host/engine/`, what its
`__init__.py` says it holds, and which sibling packages its modules import (lazy imports and
`TYPE_CHECKING` ones included: a tie hidden in a function is still a tie).

docs/architecture.md opens with the table this renders; tests/test_layering.py holds the graph to
no cycle between packages (docs/architecture.md, "The engine's packages")."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENGINE = ROOT / "host" / "engine"
PREFIX = "host.engine."
ROOT_MODULE = "engine"
"""The composition root: the one flat module beside the packages (`host/engine/engine.py`)."""


@dataclass
class Package:
    name: str
    summary: str
    uses: dict[str, set[str]] = field(default_factory=dict)
    """Sibling package → the modules of this package that import it."""


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imported(path: Path) -> set[str]:
    """Dotted names this file imports (relative imports resolved; `from a import b` gives `a.b`)."""
    name = _module_name(path)
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join([*package[: len(package) - node.level + 1], *([base] if base else [])])
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def _top(dotted: str) -> str | None:
    """The engine package (or the root module) a dotted name lies in, if any."""
    if not dotted.startswith(PREFIX):
        return None
    return dotted[len(PREFIX) :].split(".")[0] or None


def _summary(init: Path) -> str:
    doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""
    first = doc.split("\n\n")[0]
    return " ".join(first.split())


def flat_modules() -> list[str]:
    """Modules lying directly in host/engine/ other than the composition root and `__init__`."""
    return sorted(p.stem for p in ENGINE.glob("*.py") if p.stem not in {"__init__", ROOT_MODULE})


def packages() -> dict[str, Package]:
    """Every engine package and the composition root, with the sibling packages each uses."""
    found: dict[str, Package] = {}
    for init in sorted(ENGINE.glob("*/__init__.py")):
        found[init.parent.name] = Package(init.parent.name, _summary(init))
    found[ROOT_MODULE] = Package(
        ROOT_MODULE, "The composition root: builds every service in dependency order."
    )
    for path in sorted(ENGINE.rglob("*.py")):
        mine = _top(_module_name(path))
        if mine is None or mine not in found:
            continue
        for dotted in _imported(path):
            other = _top(dotted)
            if other is not None and other != mine and other in found:
                found[mine].uses.setdefault(other, set()).add(_module_name(path))
    return found


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one package (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component: list[str] = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return out


def layers(found: dict[str, Package]) -> list[list[str]]:
    """Packages by depth: the first row uses no sibling, each later row only rows above it."""
    depth: dict[str, int] = {}

    def of(name: str) -> int:
        if name not in depth:
            depth[name] = 0  # a cycle would recurse forever; cycles() is checked first
            depth[name] = 1 + max((of(u) for u in found[name].uses), default=-1)
        return depth[name]

    for name in found:
        of(name)
    rows: list[list[str]] = [[] for _ in range(max(depth.values(), default=-1) + 1)]
    for name, d in sorted(depth.items()):
        rows[d].append(name)
    return rows


def render_packages() -> str:
    found = packages()
    if loops := cycles({n: set(p.uses) for n, p in found.items()}):
        raise ValueError(f"engine packages import each other in a circle: {loops}")
    rows = ["| package | what it holds | uses |", "|---|---|---|"]
    for row in layers(found):
        for name in row:
            package = found[name]
            where = f"`host/engine/{name}.py`" if name == ROOT_MODULE else f"`host/engine/{name}/`"
            uses = ", ".join(f"`{u}`" for u in sorted(package.uses)) or "—"
            summary = package.summary.replace("|", "\\|")
            rows.append(f"| {where} | {summary} | {uses} |")
    return "\n".join(rows)
