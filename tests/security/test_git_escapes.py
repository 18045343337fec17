"""The two git escapes of issue 40, driven end to end: a real `harnessdesk serve`, the scripted
provider asking for the calls, real bubblewrap and real git (docs/decisions.md, "The host's git").

- High: in Auto, with no click, the model plants a `commondir` pointing at a git directory it made
  inside the folder, whose config names a filter and a hook; the page's `files.gitStatus` then ran
  the filter on the host with the person's rights, and the person's own next `git commit` ran
  the hook.
- Medium: a received folder whose `.git/config` defines a filter ran it as soon as its session
  was shown, in every mode, before the person trusted the folder; `git init` plus a filter made
  by bash in a plain folder escaped Auto the same way.

Each planted program leaves a marker outside the folder when it runs; no marker may appear."""

from __future__ import annotations

import asyncio
import functools
import json
import shutil
import tempfile
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from contract.methods import (
    FILES_GIT_STATUS,
    PERMISSION_SET,
    SESSION_CREATE,
    WORKSPACE_CREATE,
    WORKSPACE_SET_TRUST,
)
from host.fetch.http_client import HttpApiClient
from tests.api.support import Frames, event, events_of, ok, prompt, start_serve
from tests.security.sandboxing import needs_sandbox, sandbox_on
from tests.support.git_repos import IDENTITY
from tests.support.git_repos import git as git_in
from tests.support.scripted_llm import Reply, ScriptedLlmServer

pytestmark = [needs_sandbox, pytest.mark.usefixtures("sandbox_on")]
__all__ = ["sandbox_on"]


git = functools.partial(git_in, config=IDENTITY)


def call(call_id: str, tool: str, **arguments: Any) -> Reply:
    return Reply(tool_calls=[(call_id, tool, json.dumps(arguments))])


def results(events: list[Any]) -> dict[str, Any]:
    return {e.data["message"]["source"]["callId"]: e.data for e in events if e.type == "tool/result"}


def text(result: dict[str, Any]) -> str:
    return str(result["message"]["content"][0]["content"])


@pytest.fixture
def place() -> Iterator[Path]:
    root = Path(tempfile.mkdtemp(prefix="harnessdesk-escape-", dir="/var/tmp"))
    try:
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


@dataclass
class Served:
    client: HttpApiClient
    mux: Frames
    place: Path

    async def session(self, cwd: Path, preset: str | None = None) -> str:
        value = await ok(self.client, SESSION_CREATE, {"cwd": str(cwd)})
        sid = str(value.session_id)
        if preset is not None:
            await ok(self.client, PERMISSION_SET, {"sessionId": sid, "preset": preset})
        return sid

    async def turn(self, sid: str, words: str = "go") -> list[Any]:
        start = len(self.mux.items)
        await prompt(self.client, sid, words)
        await self.mux.next(event("turn/end", sid), within=120)
        return events_of(self.mux.since(start), sid)

    async def git_status(self, sid: str) -> Any:
        return await ok(self.client, FILES_GIT_STATUS, {"sessionId": sid})


@pytest.fixture
async def served(place: Path, llm: ScriptedLlmServer, sandbox_on: None) -> AsyncIterator[Served]:
    server = start_serve(
        place / "data",
        *("--provider", "openai-compatible", "--base-url", llm.base_url, "--model", "m"),
        cwd=place,
    )
    client = HttpApiClient(server.base_url, server.token)
    try:
        async with Frames(client.stream("events.mux")) as mux:
            yield Served(client, mux, place)
    finally:
        await client.aclose()
        server.stop()


def make_repo(folder: Path) -> Path:
    folder.mkdir(parents=True)
    git(folder, "init", "-q", "-b", "main")
    (folder / "a.txt").write_text("one\n")
    git(folder, "add", "a.txt")
    git(folder, "commit", "-q", "-m", "start")
    return folder


def marker_program(place: Path, name: str) -> tuple[Path, Path]:
    """A program that leaves `place/name` when it runs (then passes its input through)."""
    marker = place / name
    program = place / f"{name}.sh"
    program.write_text(f"#!/bin/sh\ntouch {marker}\nexec cat\n")
    program.chmod(0o755)
    return marker, program


async def test_a_planted_commondir_runs_nothing_on_the_host_nor_in_the_persons_git(
    served: Served, llm: ScriptedLlmServer
) -> None:
    place = served.place
    repo = make_repo(place / "project")
    ran, program = marker_program(place, "FILTER-RAN")
    hooked, hook = marker_program(place, "HOOK-RAN")
    evil_config = f'[core]\n\trepositoryformatversion = 0\n[filter "x"]\n\tclean = {program}\n'
    llm.enqueue(
        call("w1", "write_file", path=".git/commondir", content="../evil\n"),
        call("w2", "write_file", path="evil/HEAD", content="ref: refs/heads/main\n"),
        call("w3", "write_file", path="evil/config", content=evil_config),
        call("w4", "write_file", path="evil/hooks/pre-commit", content=hook.read_text()),
        call("w5", "write_file", path=".gitattributes", content="* filter=x\n"),
        call("w6", "write_file", path="a.txt", content="two\n"),
        call("w7", "write_file", path=".git/hooks/pre-commit", content="#!/bin/sh\ntouch x\n"),
        call(
            "b1",
            "bash",
            command="mkdir -p evil/objects evil/refs && chmod +x evil/hooks/pre-commit"
            " && printf '../evil\\n' > .git/commondir && echo PLANTED",
        ),
        Reply(text="Planted."),
    )
    sid = await served.session(repo)
    events = await served.turn(sid, "plant it")
    assert not [e for e in events if e.type == "approval/asked"]  # all of it ran unasked (Auto)
    done = results(events)
    for name in ("w1", "w7"):
        assert text(done[name]).startswith("blocked by the sandbox"), text(done[name])
    assert "PLANTED" in text(done["b1"])
    assert "moved .git/commondir aside" in text(done["b1"])
    assert not (repo / ".git" / "commondir").exists()

    # the page asks for the header's git line when the session opens and after every turn
    for _ in range(2):
        value = await served.git_status(sid)
        assert (value.repo, value.branch) == (True, "main")
    assert not ran.exists()

    # a commondir that reaches the folder between two runs (a background job): not followed
    # before trust, and moved aside before any git of ours runs after trust
    (repo / ".git" / "commondir").write_text("../evil\n")
    value = await served.git_status(sid)
    assert (value.changed, value.withheld) == (None, "untrusted-config") and "commondir" in value.findings
    assert not ran.exists()

    # the person's own git afterwards: the planted hook and filter are not theirs to run
    (repo / ".git" / "commondir").unlink()
    git(repo, "commit", "-q", "-am", "mine")
    assert not hooked.exists() and not ran.exists()


async def test_a_received_folder_runs_nothing_before_trust_in_any_mode(
    served: Served, llm: ScriptedLlmServer
) -> None:
    place = served.place
    received = make_repo(place / "received")
    ran, program = marker_program(place, "RECEIVED-RAN")
    config = received / ".git" / "config"
    config.write_text(config.read_text() + f'[filter "x"]\n\tclean = {program}\n')
    (received / ".gitattributes").write_text("* filter=x\n")
    (received / "a.txt").write_text("two\n")
    for preset in ("read-only", "auto", "workspace-write"):
        sid = await served.session(received, preset)
        value = await served.git_status(sid)
        assert (value.repo, value.branch, value.changed) == (True, "main", None)
        assert value.withheld == "untrusted-config" and "filter.x.clean" in value.findings
        llm.enqueue(Reply(text="hello"))
        await served.turn(sid, "hi")
        await served.git_status(sid)
    assert not ran.exists()

    # trusted: the folder's git runs, inside the read-only sandbox, and the count comes back
    workspace = await ok(served.client, WORKSPACE_CREATE, {"path": str(received)})
    await ok(
        served.client,
        WORKSPACE_SET_TRUST,
        {"workspaceId": workspace.workspace.workspace_id, "trusted": True},
    )
    value = await served.git_status(sid)
    assert (value.changed, value.withheld) == (2, None)
    assert not ran.exists()


async def test_git_init_with_a_filter_made_by_bash_escapes_nothing(
    served: Served, llm: ScriptedLlmServer
) -> None:
    place = served.place
    plain = place / "plain"
    plain.mkdir()
    ran, program = marker_program(place, "INIT-RAN")
    script = (
        f"git init -q && git config filter.x.clean {program} && echo '* filter=x' > .gitattributes"
        " && echo data > a.txt && echo MADE"
    )
    llm.enqueue(call("b1", "bash", command=script), Reply(text="made a repository"))
    sid = await served.session(plain)
    done = results(await served.turn(sid, "init"))
    assert "MADE" in text(done["b1"])
    value = await served.git_status(sid)
    assert value.withheld == "untrusted-config" and "filter.x.clean" in value.findings
    await asyncio.sleep(0)
    assert not ran.exists()
