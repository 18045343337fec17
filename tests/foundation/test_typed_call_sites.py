"""Every Python call names its method by the method map's typed handle, never by its key string
(docs/architecture.md, "Method map"): `ok(client, SESSION_LIST)` is typed end to end, while
`ok(client, "session.list")` would hand back `Any` and survive a renamed method until it runs."""

from __future__ import annotations

import ast
from collections.abc import Collection
from pathlib import Path

from contract.methods import METHODS

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = ("contract", "host", "desktop", "docs_tools", "tests", "bench", "scripts")
ROWS = {"Method", "_privileged_change"}
"""The map's own rows (contract/methods.py) and a test's stray handle take the key itself."""
NAMED_IN_ERRORS = {"PrivilegeRequired"}
"""The engine names a refused method in a typed error's details; it never calls a method."""


def callee(node: ast.Call) -> str:
    f = node.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""


def string_keyed_calls(source: str, keys: Collection[str]) -> list[tuple[int, str]]:
    """(line, key) of every call that passes a method's key as a string literal argument."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and callee(node) not in ROWS | NAMED_IN_ERRORS:
            for arg in [*node.args, *(k.value for k in node.keywords)]:
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and arg.value in keys:
                    found.append((arg.lineno, arg.value))
    return sorted(found)


def test_no_call_names_a_method_by_its_key_string() -> None:
    files = [p for folder in FOLDERS for p in sorted((ROOT / folder).rglob("*.py")) if ".venv" not in p.parts]
    assert len(files) > 500
    offenders = [
        f"{path.relative_to(ROOT)}:{line}: {key!r} (use {METHODS[key].constant} from contract.methods)"
        for path in files
        for line, key in string_keyed_calls(path.read_text(encoding="utf-8"), METHODS)
    ]
    assert offenders == [], "\n".join(offenders)


def test_the_scan_finds_a_string_keyed_call_and_passes_a_handle() -> None:
    sample = (
        'await client.call("session.list", {})\n'
        "await ok(client, SESSION_LIST)\n"
        'await err(client, payload={}, method="session.rename", code="x")\n'
        'ROW = Method("session.list", ListRequest, ListValue)\n'
        'log.info("session.list")  # any call: a key string is never a call argument\n'
        'await client.call(METHODS[key], {"note": "session.list"})\n'
    )
    assert string_keyed_calls(sample, METHODS) == [
        (1, "session.list"),
        (3, "session.rename"),
        (5, "session.list"),
    ]
