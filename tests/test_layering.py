"""Layering (docs/architecture.md, "Layers"): who may import whom, and the engine's one door.

Imports are read from the syntax tree (relative ones resolved), so a lazy import inside a
function counts as much as one at the top of a module.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

OURS = {"contract", "host", "desktop", "webui", "tests", "bench", "packaging", "scripts"}

FORBIDDEN: dict[str, set[str]] = {
    "contract": OURS - {"contract"},
    "host": {"desktop", "webui", "tests", "bench", "packaging", "scripts"},
    "host/engine": {"host.fetch", "host.api", "host.server"},
    "host/fetch": {"host.engine", "host.api"},
}
"""Folder → module prefixes its files may not import."""

ENGINE_DOOR: dict[str, set[str]] = {
    "host.engine.engine": {"Engine"},
    "host.engine.errors": {"*"},
    "host.engine.config": {"RuntimeOverrides"},
    "host.engine.settings.plane": {"read_llm_settings"},
    "host.engine.store": {"ExportAttachment", "ExportEvent", "ExportHeader", "ExportRow", "SessionHeader"},
    "host.engine.store.base": {
        "ExportAttachment",
        "ExportEvent",
        "ExportHeader",
        "ExportRow",
        "SessionHeader",
    },
    "host.engine.bus": {"Subscription"},
    "host.engine.directories": {"NativePicker"},
    "host.engine.llm.local": {"find_model_file"},
}
"""What `host/api/` and `desktop/` may import from the engine: `Engine` itself, its typed errors,
the CLI's overrides and the read-only settings view for `doctor`, the archive's row types, the
stream type and the embedded model's location. Nothing that holds engine state."""

DOOR_USERS = ("host/api", "desktop")

ENGINE_INTERNALS = {
    "store",
    "config",
    "bus",
    "pool",
    "pending",
    "registry",
    "selections",
    "tools",
    "workspaces",
    "folders",
}
"""Engine attributes that only the engine itself may touch."""


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_in(source: str, module: str, is_package: bool = False) -> list[tuple[int, str]]:
    """`(line, absolute module)` for every import statement, nested ones included."""
    return [(line, target) for line, target, _ in named_imports_in(source, module, is_package)]


def named_imports_in(source: str, module: str, is_package: bool = False) -> list[tuple[int, str, list[str]]]:
    """`(line, absolute module, imported names)`; names are `[]` for a plain `import x.y`."""
    package = module.split(".") if is_package else module.split(".")[:-1]
    found: list[tuple[int, str, list[str]]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name, []) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            found.append((node.lineno, target, [alias.name for alias in node.names]))
    return found


def python_files(folder: str) -> list[Path]:
    return sorted((ROOT / folder).rglob("*.py"))


def named_imports(path: Path) -> list[tuple[int, str, list[str]]]:
    return named_imports_in(path.read_text(encoding="utf-8"), module_name(path), path.name == "__init__.py")


def is_under(target: str, prefix: str) -> bool:
    return target == prefix or target.startswith(prefix + ".")


def violations(folder: str) -> list[str]:
    bad: list[str] = []
    for path in python_files(folder):
        for line, target, _ in named_imports(path):
            if any(is_under(target, prefix) for prefix in FORBIDDEN[folder]):
                bad.append(f"{path.relative_to(ROOT)}:{line} imports {target}")
    return bad


def door_violations(source: str, module: str, is_package: bool = False) -> list[str]:
    """Engine imports outside `ENGINE_DOOR`, and `<…>engine.<internal>` attribute reads."""
    bad: list[str] = []
    for line, target, names in named_imports_in(source, module, is_package):
        if not is_under(target, "host.engine"):
            continue
        for name in names or ["<module>"]:
            submodule = f"{target}.{name}"
            if submodule in ENGINE_DOOR:  # `from host.engine import errors`
                target, name = submodule, "*"
            allowed = ENGINE_DOOR.get(target, set())
            if "*" not in allowed and name not in allowed:
                bad.append(f"{line}: {target}.{name} is not part of the engine's door")
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr in ENGINE_INTERNALS and _names_engine(node.value):
            bad.append(f"{node.lineno}: reaches into engine.{node.attr}")
    return bad


def _names_engine(node: ast.expr) -> bool:
    if isinstance(node, ast.Name):
        return node.id in ("engine", "_engine")
    return isinstance(node, ast.Attribute) and node.attr in ("engine", "_engine")


@pytest.mark.parametrize("folder", sorted(FORBIDDEN))
def test_layer_imports_stay_inside_their_bounds(folder: str) -> None:
    assert python_files(folder), f"no Python files under {folder}/"
    assert violations(folder) == []


@pytest.mark.parametrize("folder", DOOR_USERS)
def test_the_engine_is_reached_only_through_its_door(folder: str) -> None:
    bad: list[str] = []
    for path in python_files(folder):
        source = path.read_text(encoding="utf-8")
        found = door_violations(source, module_name(path), path.name == "__init__.py")
        bad += [f"{path.relative_to(ROOT)}:{v}" for v in found]
    assert bad == []


def test_the_door_allow_list_names_things_that_exist() -> None:
    import importlib

    for module, names in ENGINE_DOOR.items():
        loaded = importlib.import_module(module)
        missing = [name for name in names - {"*"} if not hasattr(loaded, name)]
        assert missing == [], f"{module} has no {missing}"


def test_the_checker_sees_relative_and_nested_imports() -> None:
    assert imports_in("def f():\n    from host.fetch import client\n", "contract.x") == [(2, "host.fetch")]
    assert imports_in("import desktop.app as d, json\n", "host.x") == [(1, "desktop.app"), (1, "json")]
    assert imports_in("from ..engine import x\n", "host.fetch.probe") == [(1, "host.engine")]
    assert imports_in("from . import y\n", "host.fetch", is_package=True) == [(1, "host.fetch")]
    assert imports_in("from .sse import z\n", "host.fetch.client") == [(1, "host.fetch.sse")]


def test_the_door_checker_catches_what_it_should() -> None:
    assert door_violations("from host.engine.engine import Engine\n", "host.api.x") == []
    assert door_violations("from host.engine import errors\n", "host.api.x") == []
    assert door_violations("from ..engine.errors import AgentBusy\n", "host.api.x") == []
    assert door_violations("from host.engine.config import Config\n", "desktop.x") == [
        "1: host.engine.config.Config is not part of the engine's door"
    ]
    assert door_violations("import host.engine.store\n", "desktop.x") == [
        "1: host.engine.store.<module> is not part of the engine's door"
    ]
    assert door_violations("def f():\n    from host.engine.bus import Bus\n", "host.api.x") == [
        "2: host.engine.bus.Bus is not part of the engine's door"
    ]
    reach = "async def f(runtime):\n    await runtime.engine.store.header('s')\n"
    assert door_violations(reach, "desktop.x") == ["2: reaches into engine.store"]
    assert door_violations("def f(self):\n    self.engine.bus.publish('host', x)\n", "host.api.x") == [
        "2: reaches into engine.bus"
    ]
    assert door_violations("def f(engine):\n    return engine.has_session('s')\n", "host.api.x") == []
