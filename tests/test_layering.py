"""Layering (docs/architecture.md, "Layers"): who may import whom, and the engine's one door.

Imports are read from the syntax tree (relative ones resolved), so a lazy import inside a
function counts as much as one at the top of a module.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import typing
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

OURS = {"contract", "host", "desktop", "webui", "tests", "bench", "packaging", "scripts", "docs_tools"}

FORBIDDEN: dict[str, set[str]] = {
    "contract": OURS - {"contract"},
    "host": {"desktop", "webui", "tests", "bench", "packaging", "scripts", "docs_tools"},
    "host/engine": {"host.fetch", "host.api", "host.server"},
    "host/fetch": {"host.engine", "host.api"},
    "host/relay": {"host.engine", "host.api", "host.server"},
}
"""Folder → module prefixes its files may not import."""

ENGINE_DOOR: dict[str, set[str]] = {
    "host.engine.engine": {"Engine"},
    "host.engine.errors": {"*"},
    "host.engine.llm.overrides": {"RuntimeOverrides"},
    "host.engine.settings.configuration": {"read_llm_settings"},
    "host.engine.store": {"ExportAttachment", "ExportEvent", "ExportHeader", "ExportRow", "SessionHeader"},
    "host.engine.store.base": {
        "ExportAttachment",
        "ExportEvent",
        "ExportHeader",
        "ExportRow",
        "SessionHeader",
    },
    "host.engine.sessions.bus": {"Subscription"},
    "host.engine.workspaces.folders": {"NativePicker"},
    "host.engine.llm.local": {"find_model_file"},
    "host.engine.store.maintenance": {
        "MaintenanceError",
        "database_status",
        "repair_database",
        "restore_backup",
    },
}
"""What `host/api/` and `desktop/` may import from the engine: `Engine` itself, its typed errors,
the CLI's overrides and the read-only settings view for `doctor`, the archive's row types, the
stream type, the embedded model's location and `doctor`'s database maintenance (on a data dir
whose host is not running). Nothing that holds engine state."""

DOOR_USERS = ("host/api", "desktop")

LIFECYCLE = {"open", "close"}
"""The `Engine` members that are not services."""

PRIVATE_FIELDS = {"parts"}
"""`Engine` fields that only the engine itself (and its tests) may touch."""


def service_interfaces() -> dict[str, set[str]]:
    """Each service attribute of `Engine` → the public names of its class (docs/architecture.md,
    "The engine"): what `engine.<service>.<name>` may name from `host/api` and `desktop/`."""
    from host.engine.engine import Engine

    hints = typing.get_type_hints(Engine)
    return {
        f.name: {n for n in dir(hints[f.name]) if not n.startswith("_")}
        for f in dataclasses.fields(Engine)
        if f.name not in PRIVATE_FIELDS
    }


def service_classes() -> dict[str, set[str]]:
    """module → {class}: each service's public class, importable for type hints."""
    from host.engine.engine import Engine

    hints = typing.get_type_hints(Engine)
    found: dict[str, set[str]] = {}
    for f in dataclasses.fields(Engine):
        if f.name not in PRIVATE_FIELDS:
            cls = hints[f.name]
            found.setdefault(cls.__module__, set()).add(cls.__name__)
    return found


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


def door_violations(
    source: str,
    module: str,
    is_package: bool = False,
    services: dict[str, set[str]] | None = None,
) -> list[str]:
    """Engine imports outside the door (`ENGINE_DOOR` and the services' public classes),
    `<…>engine.<x>` where x is neither a service nor `open`/`close`, and
    `<…>engine.<service>.<y>` where y is not public in that service's class."""
    services = service_interfaces() if services is None else services
    door = {**ENGINE_DOOR, **service_classes()}
    bad: list[str] = []
    for line, target, names in named_imports_in(source, module, is_package):
        if not is_under(target, "host.engine"):
            continue
        for name in names or ["<module>"]:
            submodule = f"{target}.{name}"
            if submodule in door:  # `from host.engine import errors`
                target, name = submodule, "*"
            allowed = door.get(target, set())
            if "*" not in allowed and name not in allowed:
                bad.append(f"{line}: {target}.{name} is not part of the engine's door")
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Attribute):
            continue
        if _names_engine(node.value) and node.attr not in services and node.attr not in LIFECYCLE:
            bad.append(f"{node.lineno}: reaches into engine.{node.attr}")
        elif (
            isinstance(node.value, ast.Attribute)
            and _names_engine(node.value.value)
            and node.value.attr in services
            and node.attr not in services[node.value.attr]
        ):
            service = node.value.attr
            bad.append(
                f"{node.lineno}: engine.{service}.{node.attr} is not in the {service} service's interface"
            )
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
    for module, names in {**ENGINE_DOOR, **service_classes()}.items():
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
    assert door_violations("from host.engine.llm.overrides import Config\n", "desktop.x") == [
        "1: host.engine.llm.overrides.Config is not part of the engine's door"
    ]
    assert door_violations("import host.engine.store\n", "desktop.x") == [
        "1: host.engine.store.<module> is not part of the engine's door"
    ]
    assert door_violations("def f():\n    from host.engine.sessions.bus import Bus\n", "host.api.x") == [
        "2: host.engine.sessions.bus.Bus is not part of the engine's door"
    ]
    reach = "async def f(runtime):\n    await runtime.engine.parts.store.header('s')\n"
    assert door_violations(reach, "desktop.x") == ["2: reaches into engine.parts"]
    assert door_violations("def f(self):\n    self.engine.bus.publish('host', x)\n", "host.api.x") == [
        "2: reaches into engine.bus"
    ]
    assert door_violations("def f(engine):\n    return engine.has_session('s')\n", "host.api.x") == [
        "2: reaches into engine.has_session"
    ]


def test_the_door_checker_fences_each_service() -> None:
    ok = "def f(engine):\n    return engine.sessions.has_session('s')\n"
    assert door_violations(ok, "host.api.x") == []
    assert door_violations("async def f(rt):\n    await rt.engine.close()\n", "desktop.x") == []
    private = "def f(engine):\n    return engine.sessions._fork('s', None)\n"
    assert door_violations(private, "host.api.x") == [
        "2: engine.sessions._fork is not in the sessions service's interface"
    ]
    other = "def f(engine):\n    return engine.files.fork('s')\n"  # a method of another service
    assert door_violations(other, "host.api.x") == [
        "2: engine.files.fork is not in the files service's interface"
    ]
    inner = "def f(engine):\n    return engine.files.snapshots.usage()\n"  # a part, not the interface
    assert door_violations(inner, "host.api.x") == [
        "2: engine.files.snapshots is not in the files service's interface"
    ]
    typed = "from host.engine.services.sessions import Sessions\n"
    assert door_violations(typed, "host.api.x") == []
    assert door_violations("from host.engine.agent.pool import AgentPool\n", "host.api.x") == [
        "1: host.engine.agent.pool.AgentPool is not part of the engine's door"
    ]
    assert door_violations("from host.engine.services.forks import Forks\n", "desktop.x") == [
        "1: host.engine.services.forks.Forks is not part of the engine's door"
    ]


def test_every_service_is_a_class_of_its_own_module_built_whole() -> None:
    """One service per module under host/engine/services/, none of them a mixin of `Engine`."""
    from host.engine.engine import Engine

    assert Engine.__bases__ == (object,)
    classes = service_classes()
    shared = {m: c for m, c in classes.items() if len(c) > 1}
    assert shared == {}, "two services in one module"
    assert set(service_interfaces()) >= {
        "sessions",
        "agents",
        "config",
        "workspaces",
        "files",
        "subagents",
        "jobs",
        "goals",
        "mcp",
        "health",
    }
    public = {n for n in vars(Engine) if not n.startswith("_")} - set(service_interfaces()) - PRIVATE_FIELDS
    assert public <= LIFECYCLE, f"Engine members beyond its lifecycle and services: {public - LIFECYCLE}"
    for module in classes:
        importlib.import_module(module)


def test_the_engine_is_domain_packages_with_no_circle_between_them() -> None:
    """docs/architecture.md, "The engine's packages": no module flat beside the packages but the
    composition root, and no two packages (nor a longer ring of them) importing each other."""
    from docs_tools import packages

    assert packages.flat_modules() == []
    found = packages.packages()
    assert {"agent", "sessions", "store", "sandbox", "settings", "tools"} <= set(found)
    assert packages.cycles({name: set(p.uses) for name, p in found.items()}) == []


def test_a_circle_between_packages_is_found() -> None:
    """The check above can fail: a ring of three and a two-way tie are both reported."""
    from docs_tools.packages import cycles

    ring = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"e"}, "e": {"d"}, "f": set()}
    assert sorted(cycles(ring)) == [["a", "b", "c"], ["d", "e"]]
