"""kill -9 of `harnessdesk serve` during a worktree hand-off (issue 41, items 2 and 6;
docs/decisions.md, "Worktree sessions": the hand-off journal): after the restart nothing is half
done.

- During `worktree.apply` of 60 files: the checkout holds every change or none, and no staged
  copy is left in it.
- During `session.create {worktree}` (`git worktree add` of 3,000 files): the worktree, its
  branch and its record are all there with the session, or none is — no half-checked-out folder,
  no registration in `git worktree list`, no branch left behind.

Real git, the real sandbox (bubblewrap dies with the host, and git with it), repositories under
/var/tmp (the sandbox hides /tmp)."""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
from pathlib import Path
from typing import Any

import pytest

from contract.methods import SESSION_CREATE, SESSION_LIST, SESSION_RENAME, WORKSPACE_CREATE, WORKTREE_APPLY
from host.engine.sandbox.probe import FORCE_ENV, probe_bwrap
from tests.faults.test_kill9 import Client, Zygote
from tests.support.git_repos import branches, commit_all, git, make_repo, place, worktree_paths

__all__ = ["place"]

SEED = int(os.environ.get("HARNESSDESK_FAULT_SEED", "4141"))
APPLY_MODES = ["staging", "commit", "random", "staging", "commit", "answered"]
ADD_MODES = ["adding", "random", "random", "adding", "answered"]
FILES = 60
SIZE = 256 * 1024

pytestmark = pytest.mark.skipif(not probe_bwrap().available, reason="no bubblewrap on this machine")


@pytest.fixture
def sandboxed(monkeypatch: pytest.MonkeyPatch) -> None:
    """The served hosts run git in the sandbox, as on a person's machine (tests/conftest.py turns
    it off for the rest of the suite)."""
    monkeypatch.delenv(FORCE_ENV, raising=False)


def states(folder: Path) -> list[str]:
    """The states of the journals in `folder` now."""
    found = []
    for path in folder.glob("*.json") if folder.is_dir() else []:
        try:
            found.append(str(json.loads(path.read_bytes())["state"]))
        except (OSError, ValueError, KeyError):
            continue
    return found


def below(folder: Path, name: str) -> list[Path]:
    return list(folder.rglob(name)) if folder.is_dir() else []


async def journal_shows(folder: Path, wanted: str, call: asyncio.Task[Any]) -> None:
    """Until a journal in `folder` is in state `wanted` (or the call is over)."""
    while not call.done():
        if wanted in states(folder):
            return
        await asyncio.sleep(0.001)


async def kill_at(rng: random.Random, mode: str, folder: Path, call: asyncio.Task[Any]) -> None:
    if mode == "answered":
        await call
    elif mode == "random":
        await asyncio.sleep(rng.uniform(0.0, 0.8))
    else:
        await journal_shows(folder, mode, call)


async def restart(
    zygote: Zygote, served: Any, client: Client, call: asyncio.Task[Any], flags: list[str]
) -> Any:
    os.kill(served.pid, signal.SIGKILL)
    assert await zygote.wait(served.pid) == -signal.SIGKILL
    await asyncio.gather(call, return_exceptions=True)
    await client.http.aclose()
    return await zygote.serve(*flags)  # the start finishes or rolls back


def apply_state(repo: Path, wanted: dict[str, bytes]) -> str:
    """`before` (no change arrived), `after` (every one did), or what is mixed."""
    now = {name: (repo / name).read_bytes() for name in wanted if (repo / name).exists()}
    arrived = sum(1 for name, data in wanted.items() if now.get(name) == data)
    if arrived == len(wanted):
        return "after"
    if arrived == 0 and all((repo / n).read_bytes() == b"base\n" for n in wanted if (repo / n).exists()):
        return "before"
    return f"mixed: {arrived} of {len(wanted)} arrived"


async def test_kill_9_during_apply_leaves_every_change_or_none(place: Path, sandboxed: None) -> None:
    rng = random.Random(SEED)
    repo = make_repo(place / "repo", {f"f{i:03}.bin": "base\n" for i in range(FILES)})
    data = place / "data"
    flags = [
        "--data-dir",
        str(data),
        "--provider",
        "openai-compatible",
        "--base-url",
        "http://127.0.0.1:9/v1",
    ]
    zygote = await Zygote.start(place, place)
    outcomes: list[str] = []
    try:
        served = await zygote.serve(*flags)
        client = Client(served)
        wid = (await client.call(WORKSPACE_CREATE, {"path": str(repo)}))["workspace"]["workspaceId"]
        sid = (await client.call(SESSION_CREATE, {"workspaceId": wid, "worktree": {"branch": "big"}}))[
            "sessionId"
        ]
        await client.call(SESSION_RENAME, {"sessionId": sid, "title": "big change"})  # on disk
        tree = Path(
            next(s["cwd"] for s in (await client.call(SESSION_LIST, {}))["items"] if s["sessionId"] == sid)
        )
        wanted = {}
        for i in range(FILES):
            wanted[f"f{i:03}.bin"] = rng.randbytes(SIZE)
            (tree / f"f{i:03}.bin").write_bytes(wanted[f"f{i:03}.bin"])
            if i == FILES // 2:
                commit_all(tree, "half of it committed")  # the rest stays uncommitted
        journals = data / "worktree-journal" / "undo-journal"
        for kill, mode in enumerate(APPLY_MODES):
            if outcomes and outcomes[-1] == "after":  # back to the base for the next try
                git(repo, "checkout", "--", ".")
            call = asyncio.create_task(client.call(WORKTREE_APPLY, {"sessionId": sid}))
            await kill_at(rng, mode, journals, call)
            served = await restart(zygote, served, client, call, flags)
            client = Client(served)
            outcome = apply_state(repo, wanted)
            outcomes.append(outcome)
            assert outcome in ("before", "after"), f"kill {kill} ({mode}): {outcome}"
            staged = [p.name for p in repo.iterdir() if p.name.startswith(".") and p.name != ".git"]
            assert staged == [], f"kill {kill}: left in the checkout: {staged}"
            assert not list(journals.glob("*.json")), f"kill {kill}: a journal was left"
            assert git(repo, "rev-parse", "HEAD") == git(repo, "rev-parse", "main")
        await client.http.aclose()
    finally:
        await zygote.close()
    print("apply outcomes after each kill:", outcomes)
    assert outcomes[-1] == "after" and "before" in outcomes, outcomes


async def create(client: Client, wid: str, branch: str) -> str:
    """A session in a new worktree on `branch`, written (renamed: a blank session is not)."""
    made = await client.call(SESSION_CREATE, {"workspaceId": wid, "worktree": {"branch": branch}})
    await client.call(SESSION_RENAME, {"sessionId": made["sessionId"], "title": branch})
    return str(made["sessionId"])


async def test_kill_9_during_worktree_add_leaves_the_worktree_whole_or_nothing(
    place: Path, sandboxed: None
) -> None:
    rng = random.Random(SEED + 1)
    repo = make_repo(place / "repo", {f"d{i // 100}/f{i:04}.txt": f"file {i}\n" * 20 for i in range(3000)})
    data = place / "data"
    flags = [
        "--data-dir",
        str(data),
        "--provider",
        "openai-compatible",
        "--base-url",
        "http://127.0.0.1:9/v1",
    ]
    zygote = await Zygote.start(place, place)
    outcomes: list[str] = []
    try:
        served = await zygote.serve(*flags)
        client = Client(served)
        wid = (await client.call(WORKSPACE_CREATE, {"path": str(repo)}))["workspace"]["workspaceId"]
        steps = data / "worktree-journal" / "steps"
        for kill, mode in enumerate(ADD_MODES):
            branch = f"task-{kill}"

            call = asyncio.create_task(create(client, wid, branch))
            await kill_at(rng, mode, steps, call)
            half = (
                [p for p in (data / "worktrees").rglob(branch) if p.is_dir()]
                if (data / "worktrees").is_dir()
                else []
            )
            served = await restart(zygote, served, client, call, flags)
            client = Client(served)
            listed = [s for s in (await client.call(SESSION_LIST, {}))["items"] if s.get("title") == branch]
            registered = [p for p in worktree_paths(repo) if p.endswith(f"/{branch}")]
            folders = below(data / "worktrees", branch)
            assert not list(steps.glob("*.json")), f"kill {kill}: a journal was left"
            if listed:
                outcome = "whole"
                tree = Path(listed[0]["cwd"])
                assert listed[0]["worktree"]["branch"] == branch and registered == [str(tree)]
                assert git(tree, "status", "--porcelain") == "" and len(below(tree, "*.txt")) == 3000
            else:
                outcome = "nothing" + (" (a half-made folder was there at the kill)" if half else "")
                assert registered == [] and folders == [], f"kill {kill}: {registered} {folders}"
                assert branch not in branches(repo), f"kill {kill}: the branch was left"
            outcomes.append(outcome)
        await client.http.aclose()
    finally:
        await zygote.close()
    print("add outcomes after each kill:", outcomes)
    assert outcomes[-1] == "whole" and any(o.startswith("nothing") for o in outcomes), outcomes
