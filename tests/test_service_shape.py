"""The services declare their dependencies (docs/architecture.md, "The engine"): read from the
syntax tree of host/engine/services/*.py and host/engine/engine.py, no service reaches through
another object's private attributes, no shared bag (`Core`) comes back, and `Engine.open` builds
in dependency order: no closure naming a part built later, no placeholder filled in afterwards,
no attribute set on a part it built (a part built later registers with an earlier one instead).

Each check also runs on a synthetic snippet that breaks it, so it is known to be able to fail.
"""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SERVICES = sorted((ROOT / "host" / "engine" / "services").glob("*.py"))
ENGINE = ROOT / "host" / "engine" / "engine.py"
OWN = {"self", "cls"}
BAGS = {"Core", "Parts"}
"""Names of a shared bag a service could be handed (`Parts` is the engine's own, for its tests)."""


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def reach_throughs(source: str) -> list[str]:
    """`self._a._b` (another object's private state, reached through a part) and `other._x`
    (a private attribute of anything but the object itself)."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Attribute) or not _private(node.attr):
            continue
        owner = node.value
        if isinstance(owner, ast.Name) and owner.id in OWN:
            continue  # the object's own state
        found.append(f"{node.lineno}: {ast.unparse(node)}")
    return found


def bags(source: str) -> list[str]:
    """A class named like the shared bag, or a parameter typed with it."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ClassDef) and node.name == "Core":
            found.append(f"{node.lineno}: class {node.name}")
        elif isinstance(node, ast.arg) and node.annotation is not None:
            names = {n.id for n in ast.walk(node.annotation) if isinstance(n, ast.Name)}
            names |= {n.attr for n in ast.walk(node.annotation) if isinstance(n, ast.Attribute)}
            if names & BAGS:
                found.append(f"{node.lineno}: {node.arg}: {ast.unparse(node.annotation)}")
        elif isinstance(node, (ast.ImportFrom)) and any(a.name == "Core" for a in node.names):
            found.append(f"{node.lineno}: imports Core")
    return found


def assigned_from_outside(source: str) -> list[str]:
    """`part.y = ...` where `part` names a part an `open` (`Engine.open`, a service's own
    `open`) built (`x = Part(...)`, `x = await Part.open(...)`) or took as a parameter, anywhere
    in the module (nested functions close over the parts: `pool.route = tracker.route`); and
    `self._part.y = ...` (another part's attribute, set through the reference a service holds)."""
    tree = ast.parse(source)
    parts: set[str] = set()
    for func in ast.walk(tree):
        if isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if func.name == "open":  # a composition: what it takes and what it builds are parts
                parts |= {a.arg for a in func.args.args + func.args.kwonlyargs} - OWN
                parts |= {
                    t.id
                    for node in ast.walk(func)
                    if _built(node)
                    for t in _targets(node)
                    if isinstance(t, ast.Name)
                }
    found: list[str] = []
    for node in ast.walk(tree):
        for target in _targets(node):
            if not isinstance(target, ast.Attribute):
                continue
            root = _root(target)
            if root in parts or (root in OWN and not isinstance(target.value, ast.Name)):
                found.append(f"{target.lineno}: {ast.unparse(target)} = ...")
    return sorted(found, key=lambda line: int(line.split(":")[0]))


def _targets(node: ast.AST) -> list[ast.expr]:
    if isinstance(node, ast.Assign):
        return list(node.targets)
    if isinstance(node, (ast.AugAssign, ast.AnnAssign)):
        return [node.target]
    return []


def _root(expr: ast.expr) -> str | None:
    while isinstance(expr, (ast.Attribute, ast.Subscript)):
        expr = expr.value
    return expr.id if isinstance(expr, ast.Name) else None


def _built(node: ast.AST) -> bool:
    """`name = Part(...)` / `await Part.open(...)`: a part, never to be assigned to afterwards."""
    if not isinstance(node, (ast.Assign, ast.AnnAssign)):
        return False
    value = node.value
    if isinstance(value, ast.Await):
        value = value.value
    if not isinstance(value, ast.Call):
        return False
    func = value.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
    return name[:1].isupper() or name in {"open", "in_dir"}


def forward_references(source: str, builder: str = "open") -> list[str]:
    """In the function `builder` (the composition root): a name bound twice (a placeholder such
    as `pool = None` filled in later), and a nested function or lambda that uses a name the
    builder binds only after the nested function is defined (it refers forward)."""
    found: list[str] = []
    for func in ast.walk(ast.parse(source)):
        if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)) or func.name != builder:
            continue
        bound: dict[str, int] = {}
        for node in _own(func):
            names = [t.id for t in _targets(node) if isinstance(t, ast.Name)]
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node is not func:
                names = [node.name]
            for name in names:
                line = getattr(node, "lineno", 0)
                if name in bound:
                    found.append(f"{line}: {name} bound again (first at {bound[name]})")
                else:
                    bound[name] = line
        for nested in ast.walk(func):
            if nested is func or not isinstance(nested, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                continue
            for used in ast.walk(nested):
                if isinstance(used, ast.Name) and isinstance(used.ctx, ast.Load):
                    line = bound.get(used.id)
                    if line is not None and line > nested.lineno:
                        found.append(f"{used.lineno}: {used.id} is used before it is built (at {line})")
    return found


def _own(func: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.AST]:
    """The function's statements and the functions defined in it, not what those contain."""
    nodes: list[ast.AST] = []
    todo: list[ast.AST] = list(func.body)
    while todo:
        node = todo.pop(0)
        nodes.append(node)
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            todo.extend(c for c in ast.iter_child_nodes(node) if isinstance(c, ast.stmt))
    return nodes


def test_engine_open_builds_in_dependency_order() -> None:
    """No closure in `Engine.open` names a part built after it, and no part is a placeholder
    filled in later (docs/architecture.md, "The engine")."""
    assert forward_references(ENGINE.read_text()) == []


@pytest.mark.parametrize("path", [*SERVICES, ENGINE], ids=lambda p: p.name)
def test_no_service_reaches_through_another_objects_private_state(path: Path) -> None:
    assert reach_throughs(path.read_text()) == []


@pytest.mark.parametrize("path", [*SERVICES, ENGINE], ids=lambda p: p.name)
def test_no_shared_bag_comes_back(path: Path) -> None:
    assert bags(path.read_text()) == []
    assert not (ROOT / "host" / "engine" / "services" / "core.py").exists()


@pytest.mark.parametrize("path", [*SERVICES, ENGINE], ids=lambda p: p.name)
def test_no_attribute_is_set_on_a_part_from_outside_it(path: Path) -> None:
    assert assigned_from_outside(path.read_text()) == []


def test_each_service_constructor_names_what_it_uses() -> None:
    """Every service class takes its dependencies by name (no `*args`/`**kwargs` bag), and each
    one it takes is kept or used (a parameter nothing reads is a dependency that lies)."""
    import importlib

    from tests.test_layering import service_classes

    for module, names in service_classes().items():
        loaded = importlib.import_module(module)
        for name in names:
            init = getattr(loaded, name).__init__
            if init is object.__init__:
                continue
            signature = inspect.signature(init)
            kinds = {p.kind for p in signature.parameters.values()}
            assert inspect.Parameter.VAR_POSITIONAL not in kinds, f"{module}.{name}"
            assert inspect.Parameter.VAR_KEYWORD not in kinds, f"{module}.{name}"
            body = inspect.getsource(init)
            tree = ast.parse(inspect.cleandoc("\n" + body) if body.startswith(" ") else body)
            used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
            unused = [p for p in signature.parameters if p != "self" and p not in used]
            assert unused == [], f"{module}.{name} takes {unused} and never uses them"


BROKEN = """
class Core:
    pass


class Door:
    def __init__(self, core: Core, parts: Parts) -> None:
        self._core = core

    def peek(self, other):
        return self._core._pool, other._secret, self.__class__

    def wire(self, f):
        self._pool.idle = f
        self._own = f


async def open():
    sessions = None
    history = lambda sid: sessions.history(sid)
    pool = AgentPool(store, lambda sid: automations.wake(sid))
    tracker = Tracker()
    pool.route = tracker.route
    pool.turn_ended.listeners = []
    value = make_value()
    value.note = "a data object it made is its own to fill"

    def later():
        tracker.deliver = print

    sessions = Sessions(pool)
    automations = Automations(sessions)
"""


def test_the_checks_can_fail() -> None:
    """A service handed a bag, reaching through it, parts wired by assignment and a closure that
    refers forward (through a placeholder or not) are all caught."""
    assert reach_throughs(BROKEN) == ["11: self._core._pool", "11: other._secret"]
    assert bags(BROKEN) == ["2: class Core", "7: core: Core", "7: parts: Parts"]
    assert assigned_from_outside(BROKEN) == [
        "14: self._pool.idle = ...",
        "23: pool.route = ...",
        "24: pool.turn_ended.listeners = ...",
        "29: tracker.deliver = ...",
    ]
    assert forward_references(BROKEN) == [
        "31: sessions bound again (first at 19)",
        "21: automations is used before it is built (at 32)",
    ]
