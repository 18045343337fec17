"""The lists of docs/architecture.md that mirror the code, generated from it: the layers and what
each may not import, the engine's door (both from tests/test_layering.py, which enforces them),
the engine's services (from `Engine`'s fields and each service class's first docstring line),
which `host/api/` module implements each domain's methods (from the registry) and the built-in
tools (from the tool classes of `host/engine/tools/`)."""

from __future__ import annotations

import dataclasses
import inspect
import typing
from pathlib import Path

from docs_tools.markers import fill
from docs_tools.packages import render_packages

ROOT = Path(__file__).resolve().parents[1]
ARCHITECTURE = ROOT / "docs" / "architecture.md"


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _where(module: str) -> str:
    return module.replace(".", "/") + ".py"


def render_layers() -> str:
    from tests import test_layering as rules

    rows = ["| folder | may not import |", "|---|---|"]
    for folder, banned in sorted(rules.FORBIDDEN.items()):
        rows.append(f"| `{folder}/` | {', '.join(f'`{b}`' for b in sorted(banned))} |")
    users = ", ".join(f"`{u}/`" for u in rules.DOOR_USERS)
    rows.append(
        f"| {users} | an engine module or name outside the door below; an `Engine` member other than"
        " its services and `open`/`close`; a name a service's class does not make public |"
    )
    return "\n".join(rows)


def render_door() -> str:
    from tests import test_layering as rules

    rows = ["| engine module | names `host/api/` and `desktop/` may import |", "|---|---|"]
    for module, names in sorted(rules.ENGINE_DOOR.items()):
        shown = "everything" if "*" in names else ", ".join(f"`{n}`" for n in sorted(names))
        rows.append(f"| `{module}` | {shown} |")
    rows.append("| each service's module | its service class (for type hints) |")
    return "\n".join(rows)


def _summary(cls: type) -> str:
    doc = inspect.getdoc(cls) or ""
    first = doc.split("\n\n")[0]
    if not first.strip():
        raise ValueError(f"{cls.__module__}.{cls.__qualname__} has no docstring to say what it owns")
    return _cell(first)


def render_services() -> str:
    from host.engine.engine import Engine

    hints = typing.get_type_hints(Engine)
    rows = ["| attribute | class (module) | owns |", "|---|---|---|"]
    for field in dataclasses.fields(Engine):
        cls = hints[field.name]
        if field.name == "parts":
            continue
        rows.append(
            f"| `engine.{field.name}` | `{cls.__name__}` (`{_where(cls.__module__)}`) | {_summary(cls)} |"
        )
    return "\n".join(rows)


def render_domains() -> str:
    from contract.methods import METHODS
    from host.api import proxy  # noqa: F401  (importing it registers every domain's methods)
    from host.api.registry import HANDLERS

    found: dict[str, dict[str, list[str]]] = {}
    for key, handler in HANDLERS.items():
        method = METHODS[key]
        found.setdefault(method.domain, {}).setdefault(handler.__module__, []).append(method.attr)
    rows = ["| domain | implemented in | methods |", "|---|---|---|"]
    for domain in sorted(found):
        for module, attrs in sorted(found[domain].items()):
            rows.append(f"| `{domain}` | `{_where(module)}` | {', '.join(f'`{a}`' for a in attrs)} |")
    return "\n".join(rows)


def render_tools() -> str:
    import importlib
    import pkgutil

    import host.engine.tools as package
    from host.engine.tools import BaseTool

    for module in pkgutil.iter_modules(package.__path__):
        importlib.import_module(f"{package.__name__}.{module.name}")

    def below(cls: type[BaseTool]) -> list[type[BaseTool]]:
        return [c for sub in cls.__subclasses__() for c in (sub, *below(sub))]

    built_in = [c for c in below(BaseTool) if c.__module__.startswith(package.__name__ + ".")]
    rows = ["| tool | class (module) | `needs_approval` |", "|---|---|---|"]
    for cls in sorted(built_in, key=lambda c: str(getattr(c, "name", ""))):
        asks = "yes" if getattr(cls, "needs_approval", False) else ""
        rows.append(
            f"| `{getattr(cls, 'name', '?')}` | `{cls.__name__}` (`{_where(cls.__module__)}`) | {asks} |"
        )
    return "\n".join(rows)


BLOCKS = {
    "packages": render_packages,
    "layers": render_layers,
    "door": render_door,
    "services": render_services,
    "domains": render_domains,
    "tools": render_tools,
}


def render(text: str) -> str:
    return fill(text, BLOCKS, "docs/architecture.md")
