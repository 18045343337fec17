"""A real language server (pylsp, installed by the test set-up) started inside the sandbox reports
the error an edit introduced in the tool's result, and answers the `lsp` tool; no server for a
language changes nothing (docs/decisions.md, "Language servers")."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from host.engine.integrations.lsp.manager import LanguageServers
from host.engine.sandbox import Confinement, reset_support
from host.engine.sandbox.probe import FORCE_ENV, probe_bwrap
from host.engine.tools.base import ToolContext
from host.engine.tools.files import EditFileTool, WriteFileTool
from host.engine.tools.lsp import LspTool


@pytest.fixture
def folder(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A project the sandbox can see (it hides /tmp), with pylsp on PATH and the sandbox on."""
    if not probe_bwrap().available:
        pytest.skip("no bubblewrap here")
    pylsp = Path(sys.executable).parent / "pylsp"
    if not pylsp.exists():
        pytest.skip("pylsp is not installed (./scripts/install.sh --dev installs it)")
    monkeypatch.setenv("PATH", f"{pylsp.parent}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.delenv(FORCE_ENV, raising=False)
    reset_support()
    work = Path(tempfile.mkdtemp(prefix="hd-lsp-", dir="/var/tmp"))
    yield work
    shutil.rmtree(work, ignore_errors=True)
    monkeypatch.undo()
    reset_support()


def ctx(cwd: Path) -> ToolContext:
    async def nothing(*_: Any) -> Any:
        raise AssertionError("not used")

    return ToolContext(session_id="s1", cwd=cwd, ask_user=nothing, emit=nothing)


async def test_an_edit_that_breaks_the_code_gets_its_error_in_the_result(
    folder: Path, tmp_path: Path
) -> None:
    servers = LanguageServers(Confinement(tmp_path / "data"), lambda: ["pyright"])  # pylsp, not pyright
    try:
        write, edit = WriteFileTool(servers), EditFileTool(servers)
        source = "def greet(name):\n    return 'hello ' + name\n\n\nprint(greet('x'))\n"
        clean = await write.run({"path": "app.py", "content": source}, ctx(folder))
        assert not clean.is_error and "new errors" not in clean.content, clean.content
        broken = await edit.run(
            {
                "path": "app.py",
                "old_string": "return 'hello ' + name",
                "new_string": "return 'hello ' + nmae",
            },
            ctx(folder),
        )
        assert not broken.is_error
        assert "The language server (pylsp) reports new errors in app.py:" in broken.content, broken.content
        assert "app.py:2:" in broken.content and "undefined name 'nmae'" in broken.content
        status = {row["id"]: row for row in servers.status()}
        assert status["pylsp"]["folders"] == [str(folder)] and not status["pyright"]["enabled"]

        symbols = await LspTool(servers).run({"operation": "document_symbols", "path": "app.py"}, ctx(folder))
        assert "greet (function) app.py:1" in symbols.content, symbols.content
        found = await LspTool(servers).run(
            {"operation": "definition", "path": "app.py", "line": 5, "column": 7}, ctx(folder)
        )
        assert found.content.strip() == "app.py:1:5", found.content

        (folder / "notes.txt").write_text("x")  # no server for this language: nothing changes
        plain = await write.run({"path": "notes.txt", "content": "plain\n"}, ctx(folder))
        assert plain.content == "Overwrote notes.txt (6 bytes)."
    finally:
        await servers.close()
    assert servers.status()[1]["folders"] == []
