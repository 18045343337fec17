"""Layering: `contract/` imports nothing of ours; `host/` never imports the desktop shell.

Imports are read from the syntax tree (relative ones resolved), so a lazy import inside a
function counts as much as one at the top of a module.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

FORBIDDEN = {
    "contract": {"host", "desktop", "webui", "tests"},
    "host": {"desktop", "webui", "tests"},
}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_in(source: str, module: str, is_package: bool = False) -> list[tuple[int, str]]:
    """`(line, absolute module)` for every import statement, nested ones included."""
    package = module.split(".") if is_package else module.split(".")[:-1]
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            found.append((node.lineno, target))
    return found


def imported_modules(path: Path) -> list[tuple[int, str]]:
    return imports_in(path.read_text(encoding="utf-8"), module_name(path), path.name == "__init__.py")


def violations(layer: str) -> list[str]:
    bad: list[str] = []
    for path in sorted((ROOT / layer).rglob("*.py")):
        for line, target in imported_modules(path):
            if target.split(".")[0] in FORBIDDEN[layer]:
                bad.append(f"{path.relative_to(ROOT)}:{line} imports {target}")
    return bad


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_layer_imports_stay_inside_their_bounds(layer: str) -> None:
    assert list((ROOT / layer).rglob("*.py")), f"no Python files under {layer}/"
    assert violations(layer) == []


def test_the_checker_sees_relative_and_nested_imports() -> None:
    assert imports_in("def f():\n    from host.fetch import client\n", "contract.x") == [(2, "host.fetch")]
    assert imports_in("import desktop.app as d, json\n", "host.x") == [(1, "desktop.app"), (1, "json")]
    assert imports_in("from ..engine import x\n", "host.fetch.probe") == [(1, "host.engine")]
    assert imports_in("from . import y\n", "host.fetch", is_package=True) == [(1, "host.fetch")]
    assert imports_in("from .sse import z\n", "host.fetch.client") == [(1, "host.fetch.sse")]
