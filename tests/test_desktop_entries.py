"""Each `harnessdesk` command is read top-down from one entry (desktop/commands/<command>.py):
an entry never imports another command's entry, and no shared leaf of desktop/ imports an entry
or the dispatcher, so following one command never leads back up or into another command
(docs/architecture.md, "Desktop, command line and data").

The graph is read from the syntax tree (tests/test_import_cycles.py), lazy imports included.
"""

from __future__ import annotations

import importlib
from pathlib import Path

from tests.test_import_cycles import ROOT, imports_of, our_modules

ENTRIES = "desktop.commands."
ROOTS = frozenset({"desktop.cli", "desktop.__main__"})
"""The dispatcher: it alone imports the entries."""


def violations(graph: dict[str, set[str]]) -> list[str]:
    """`importer -> imported` for every import that breaks the rule."""
    entries = {name for name in graph if name.startswith(ENTRIES)}
    out: list[str] = []
    for name, imported in sorted(graph.items()):
        if name in ROOTS or not name.startswith("desktop"):
            continue
        forbidden = entries - {name} if name in entries else entries | ROOTS
        out += [f"{name} -> {target}" for target in sorted(imported & forbidden)]
    return out


def desktop_graph() -> dict[str, set[str]]:
    modules = our_modules()
    return {
        name: imports_of(name, path, modules) for name, path in modules.items() if name.startswith("desktop")
    }


def test_every_command_has_its_entry() -> None:
    """desktop/commands/ holds the entries and nothing else: the dispatch table names each one."""
    from desktop.cli import COMMANDS
    from desktop.commands import window

    stems = sorted(p.stem for p in (ROOT / "desktop/commands").glob("*.py") if p.stem != "__init__")
    modules = {importlib.import_module(f"desktop.commands.{stem}") for stem in stems}
    assert {*COMMANDS.values(), window} == modules


def test_entries_call_down_only() -> None:
    graph = desktop_graph()
    assert "desktop.commands.serve" in graph and "desktop.hostopen" in graph["desktop.commands.prompt"]
    assert violations(graph) == []


def test_the_rule_catches_an_entry_calling_another_and_a_leaf_calling_up(tmp_path: Path) -> None:
    entry = tmp_path / "desktop/commands/serve.py"
    leaf = tmp_path / "desktop/hostopen.py"
    other = tmp_path / "desktop/commands/prompt.py"
    for path, text in (
        (entry, "def run():\n    from desktop.commands.prompt import run\n"),  # lazy: still counted
        (leaf, "from desktop.commands import serve\nimport desktop.cli\n"),
        (other, "from desktop import hostopen\n"),
    ):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    modules = {
        "desktop.cli": ROOT / "desktop/cli.py",
        "desktop.commands.serve": entry,
        "desktop.commands.prompt": other,
        "desktop.hostopen": leaf,
    }
    graph = {name: imports_of(name, path, modules) for name, path in modules.items()}
    assert violations(graph) == [
        "desktop.commands.serve -> desktop.commands.prompt",
        "desktop.hostopen -> desktop.cli",
        "desktop.hostopen -> desktop.commands.serve",
    ]
