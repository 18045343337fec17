"""Revert never writes through a session folder that became a symlink (issue 24: an outside file
was overwritten). The folder, or a folder above it, is swapped after the turn for a symlink to an
outside place holding exactly what the turn left; `files.revertTurn` answers `revert-conflict`
(reason `changed`, naming the folder) and the outside files stay as they are
(docs/threat-model.md; docs/architecture.md, "Checkpoints and undo")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from contract.methods import FILES_REVERT_TURN
from tests.api.conftest import Host
from tests.api.file_turns import turn_writing, write
from tests.api.support import err, ok
from tests.support.scripted_llm import ScriptedLlmServer


def bash(call_id: str, command: str) -> tuple[str, str, str]:
    return (call_id, "bash", json.dumps({"command": command}))


def outside_copy(real: Path, outside: Path) -> None:
    """`outside` holds the same files as `real` (what the app last left there)."""
    outside.mkdir(parents=True)
    for p in real.rglob("*"):
        if p.is_file():
            (outside / p.relative_to(real)).parent.mkdir(parents=True, exist_ok=True)
            (outside / p.relative_to(real)).write_bytes(p.read_bytes())


@pytest.mark.parametrize("swap", ["folder", "parent"])
@pytest.mark.parametrize("tool", ["write_file", "bash"])
async def test_revert_refuses_a_folder_that_became_a_symlink(
    host: Host, llm: ScriptedLlmServer, tmp_path: Path, swap: str, tool: str
) -> None:
    parent = tmp_path / "projects"
    work = parent / "app"
    work.mkdir(parents=True)
    (work / "a.txt").write_text("before\n")
    client = host.client()
    mux = await host.mux(client)
    sid = await host.create(cwd=work)
    if tool == "write_file":
        turn = await turn_writing(host, llm, client, mux, sid, write("w1", "a.txt", "after\n"))
    else:
        turn = await turn_writing(host, llm, client, mux, sid, bash("b1", "echo after > a.txt"))
    assert (work / "a.txt").read_text() == "after\n"

    outside = tmp_path / "outside"
    if swap == "folder":
        work.rename(parent / "app.moved")
        outside_copy(parent / "app.moved", outside)
        work.symlink_to(outside, target_is_directory=True)
    else:
        parent.rename(tmp_path / "projects.moved")
        outside_copy(tmp_path / "projects.moved", outside)
        parent.symlink_to(outside, target_is_directory=True)
    victim = outside / "a.txt" if swap == "folder" else outside / "app" / "a.txt"
    assert victim.read_text() == "after\n"

    error = await err(client, FILES_REVERT_TURN, {"sessionId": sid, "turn": turn}, "revert-conflict")
    assert error.details["conflicts"][0] == {"path": str(work), "reason": "changed"}
    assert victim.read_text() == "after\n"  # the outside file was not written
    assert [p.name for p in victim.parent.iterdir()] == ["a.txt"]  # and nothing staged beside it


async def test_revert_still_works_when_the_folder_is_where_it_was(host: Host, llm: ScriptedLlmServer) -> None:
    (host.workdir / "a.txt").write_text("before\n")
    client = host.client()
    mux = await host.mux(client)
    sid = await host.create()
    turn = await turn_writing(host, llm, client, mux, sid, bash("b1", "echo after > a.txt"))
    await ok(client, FILES_REVERT_TURN, {"sessionId": sid, "turn": turn})
    assert (host.workdir / "a.txt").read_text() == "before\n"
