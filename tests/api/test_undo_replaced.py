"""Undo of a shell command that put something else in a file's place, and of a step whose
snapshots could not be taken (issue 40, item 6; docs/decisions.md, "Snapshots: a stale lock, a
failed snapshot, a file replaced by a link"), over both carriers.

- A file replaced by a symlink (to a file outside the folder), or by a folder with files in it,
  is listed with its earlier content and Revert puts the regular file back, removing the link
  (never writing through it) or the folder the turn made; a folder that also holds a file the
  person put there, or a link pointed elsewhere since, is a conflict and nothing is written.
- A real `git update-index` holding the snapshot repository's `index.lock`: the step runs
  without snapshots, its result says why and Revert says why instead of "changed no files";
  once that git is killed (-9, the lock left behind), the next step clears the lock and its ten
  changed files revert.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from contract.methods import FILES_REVERT_TURN
from tests.api.conftest import Host
from tests.api.file_turns import history, open_session, sha, shell_turn
from tests.api.support import err, ok
from tests.support.scripted_llm import ScriptedLlmServer


def seed(work: Path) -> None:
    (work / "notes.txt").write_text("colour\ncolour again\n")
    (work / "old.txt").write_text("keep me\n")


async def changes_of(client: Any, sid: str, turn: int) -> dict[str, dict[str, Any]]:
    results = [e for e in await history(client, sid) if e.type == "tool/result" and e.data["turn"] == turn]
    return {c["path"]: c for r in results for c in r.data.get("changes") or []}


def leftovers(work: Path) -> list[str]:
    return [p.name for p in work.rglob("*") if ".hd-revert-" in p.name or p.name.endswith(".tmp")]


async def test_a_file_replaced_by_a_symlink_is_listed_and_put_back_without_following_it(
    host: Host, llm: ScriptedLlmServer, tmp_path: Path
) -> None:
    work = host.workdir
    seed(work)
    victim = tmp_path / "outside.txt"
    victim.write_text("outside, not the agent's\n")
    client, mux, sid = await open_session(host)
    turn = await shell_turn(host, llm, client, mux, sid, f"ln -sf {victim} notes.txt && rm old.txt")
    assert (work / "notes.txt").is_symlink() and not (work / "old.txt").exists()

    changes = await changes_of(client, sid, turn)
    assert sorted(changes) == ["notes.txt", "old.txt"]
    linked = changes["notes.txt"]
    assert linked["before"]["sha256"] == sha("colour\ncolour again\n") and linked.get("after") is None
    assert linked["afterKind"] == "symlink" and linked["afterLink"] == str(victim)
    assert linked["diffNote"] == f"replaced by a symlink to {victim}"
    assert "-colour again" in linked["diff"]  # the earlier content is shown, as for a deletion

    value = await ok(client, FILES_REVERT_TURN, {"sessionId": sid, "turn": turn})
    assert {f.path: f.action for f in value.files} == {"notes.txt": "restored", "old.txt": "restored"}
    assert not (work / "notes.txt").is_symlink()
    assert (work / "notes.txt").read_text() == "colour\ncolour again\n"
    assert (work / "old.txt").read_text() == "keep me\n"
    assert victim.read_text() == "outside, not the agent's\n"  # never written through the link
    assert leftovers(work) == [] and leftovers(tmp_path) == []
    assert oct((work / "notes.txt").stat().st_mode & 0o777) != oct(0o777)  # not the link's mode


async def test_a_link_pointed_elsewhere_since_is_a_conflict(host: Host, llm: ScriptedLlmServer) -> None:
    work = host.workdir
    seed(work)
    client, mux, sid = await open_session(host)
    turn = await shell_turn(host, llm, client, mux, sid, "ln -sf old.txt notes.txt")
    (work / "notes.txt").unlink()
    (work / "notes.txt").symlink_to("elsewhere.txt")  # the person's own link now
    error = await err(client, FILES_REVERT_TURN, {"sessionId": sid, "turn": turn}, "revert-conflict")
    assert [(c["path"], c["reason"]) for c in error.details["conflicts"]] == [("notes.txt", "changed")]
    assert os.readlink(work / "notes.txt") == "elsewhere.txt"


async def test_a_file_replaced_by_a_folder_is_put_back_and_the_folder_goes(
    host: Host, llm: ScriptedLlmServer
) -> None:
    work = host.workdir
    seed(work)
    client, mux, sid = await open_session(host)
    command = (
        "rm notes.txt && mkdir -p notes.txt/deeper/empty"
        " && echo x > notes.txt/in.txt && echo y > notes.txt/deeper/z.txt"
    )
    turn = await shell_turn(host, llm, client, mux, sid, command)
    assert (work / "notes.txt").is_dir()
    changes = await changes_of(client, sid, turn)
    assert sorted(changes) == ["notes.txt", "notes.txt/deeper/z.txt", "notes.txt/in.txt"]
    assert changes["notes.txt"]["afterKind"] == "directory"
    assert changes["notes.txt"]["diffNote"] == "replaced by a folder"

    value = await ok(client, FILES_REVERT_TURN, {"sessionId": sid, "turn": turn})
    assert {f.path: f.action for f in value.files} == {
        "notes.txt": "restored",
        "notes.txt/deeper/z.txt": "removed",
        "notes.txt/in.txt": "removed",
    }
    assert (work / "notes.txt").is_file() and (work / "notes.txt").read_text() == "colour\ncolour again\n"
    assert leftovers(work) == []


async def test_a_folder_holding_the_persons_file_is_never_removed(host: Host, llm: ScriptedLlmServer) -> None:
    work = host.workdir
    seed(work)
    client, mux, sid = await open_session(host)
    turn = await shell_turn(
        host, llm, client, mux, sid, "rm notes.txt && mkdir notes.txt && echo x > notes.txt/in.txt"
    )
    (work / "notes.txt" / "mine.txt").write_text("the person's\n")
    error = await err(client, FILES_REVERT_TURN, {"sessionId": sid, "turn": turn}, "revert-conflict")
    assert [(c["path"], c["reason"]) for c in error.details["conflicts"]] == [("notes.txt", "changed")]
    assert (work / "notes.txt" / "mine.txt").read_text() == "the person's\n"
    assert (work / "notes.txt" / "in.txt").read_text() == "x\n"  # nothing at all was written
    assert leftovers(work) == []


def shadow_git(data_dir: Path, work: Path) -> Path:
    key = hashlib.sha256(os.fsencode(os.path.realpath(work))).hexdigest()[:24]
    return data_dir / "snapshots" / key / "git"


@pytest.fixture
def holders() -> Iterator[list[subprocess.Popen[bytes]]]:
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for proc in started:
        if proc.poll() is None:
            proc.kill()
        proc.wait(10)


async def test_a_lock_a_live_git_holds_is_said_and_a_killed_gits_lock_is_cleared(
    host: Host, llm: ScriptedLlmServer, holders: list[subprocess.Popen[bytes]]
) -> None:
    work = host.workdir
    seed(work)
    client, mux, sid = await open_session(host)
    await shell_turn(host, llm, client, mux, sid, "echo first > first.txt")  # the repository exists
    git_dir = shadow_git(host.data_dir, work)
    lock = git_dir / "index.lock"
    env = {
        "PATH": os.environ["PATH"],
        "GIT_DIR": str(git_dir),
        "GIT_WORK_TREE": str(work),
        "HOME": str(git_dir),
    }
    # a real git of that repository, mid-write: `update-index --stdin` takes the lock, then waits
    # for paths on its stdin
    argv = ["git", "update-index", "-z", "--add", "--stdin"]
    git = subprocess.Popen(argv, stdin=subprocess.PIPE, env=env)  # noqa: ASYNC220 (it never exits alone)
    holders.append(git)
    for _ in range(500):
        if lock.exists():
            break
        await asyncio.sleep(0.02)
    assert lock.exists()

    make_ten = "for i in $(seq 1 10); do echo changed $i > f$i.txt; done"
    blind = await shell_turn(host, llm, client, mux, sid, make_ten)
    [result] = [e for e in await history(client, sid) if e.type == "tool/result" and e.data["turn"] == blind]
    why = result.data["snapshotError"]
    assert why.startswith(f"another git (pid {git.pid}) is still writing the snapshot repository"), why
    assert not result.data.get("changes") and lock.exists()  # never pulled from under a live git
    refused = await err(client, FILES_REVERT_TURN, {"sessionId": sid, "turn": blind}, "revert-unavailable")
    assert refused.details["unrecorded"] == why
    assert refused.details["reason"] == f"what its shell commands changed was not recorded: {why}"

    os.kill(git.pid, signal.SIGKILL)  # killed mid-write: its lock stays behind
    git.wait(10)
    assert lock.exists()
    again = "for i in $(seq 1 10); do echo again $i > f$i.txt; done"
    seen = await shell_turn(host, llm, client, mux, sid, again)
    assert not lock.exists()
    changes = await changes_of(client, sid, seen)
    assert sorted(changes) == sorted(f"f{i}.txt" for i in range(1, 11))
    value = await ok(client, FILES_REVERT_TURN, {"sessionId": sid, "turn": seen})
    assert len([f for f in value.files if f.action == "restored"]) == 10
    assert all((work / f"f{i}.txt").read_text() == f"changed {i}\n" for i in range(1, 11))
