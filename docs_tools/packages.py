"""The engine's package map, read from the code: each domain package of `host/engine/`, what its
`__init__.py` says it holds, and which sibling packages its modules import (lazy imports and
`TYPE_CHECKING` ones included: a tie hidden in a function is still a tie).

docs/architecture.md opens with the table this renders; tests/test_layering.py holds the graph to
no cycle between packages (docs/architecture.md, "The engine's packages")."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

# the import reader and the cycle finder tests/test_import_cycles.py holds every module to
from tests.test_import_cycles import cycles, imports_of, our_modules

__all__ = ["Package", "cycles", "flat_modules", "layers", "packages", "render_packages"]

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
    modules = our_modules()
    for name, path in sorted(modules.items()):
        mine = _top(name)
        if mine is None or mine not in found:
            continue
        for dotted in imports_of(name, path, modules):
            other = _top(dotted)
            if other is not None and other != mine and other in found:
                found[mine].uses.setdefault(other, set()).add(name)
    return found


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
