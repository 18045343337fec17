"""The sandbox end to end: real sessions over a real HTTP host (uvicorn on loopback), the
scripted provider asking for the calls, real bubblewrap. A session in Auto edits and tests a
project without one approval, and every escape — from bash, a background job, a subagent or a
forked session — fails, with a tool error the model can act on."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlparse

import pytest

from contract.methods import PERMISSION_SET, SESSION_FORK, SESSION_HISTORY
from tests.api.conftest import Host, open_test_host
from tests.api.support import Frames, event, events_of, ftype, ok, prompt
from tests.security.sandboxing import SECRET, Box, needs_sandbox, open_box, sandbox_on
from tests.support.scripted_llm import Reply, ScriptedLlmServer

pytestmark = [needs_sandbox, pytest.mark.usefixtures("sandbox_on")]
__all__ = ["sandbox_on"]


@dataclass
class Setup:
    host: Host
    box: Box
    client: Any
    mux: Frames

    @property
    def data_dir(self) -> Any:
        return self.host.data_dir

    @property
    def port(self) -> int:
        return int(urlparse(self.host.base_url).port or 0)

    async def turn(self, sid: str, words: str = "go") -> list[Any]:
        start = len(self.mux.items)
        await prompt(self.client, sid, words)
        await self.mux.next(event("turn/end", sid))
        return events_of(self.mux.since(start), sid)

    async def turn_refusing(self, sid: str, words: str = "go") -> tuple[list[Any], list[Any]]:
        """A turn whose every approval request (its subagents' too) is answered "rejected": the
        events of `sid` and the requests, in order."""
        start = len(self.mux.items)
        await prompt(self.client, sid, words)
        asked: list[Any] = []
        self.mux.cursor = max(self.mux.cursor, start)
        while True:
            rpc_id, frame = await self.mux.next(lambda _frame: True, within=120)
            if getattr(frame, "type", None) == "approval/requested":
                value = {
                    "sessionId": frame.session_id,
                    "approvalId": frame.approval_id,
                    "outcome": "rejected",
                }
                await self.client.respond(rpc_id, {"ok": True, "value": value})
                asked.append(frame)
            elif event("turn/end", sid)(frame):
                return events_of(self.mux.since(start), sid), asked


@pytest.fixture
async def setup(
    tmp_path: Any, llm: ScriptedLlmServer, monkeypatch: pytest.MonkeyPatch, sandbox_on: None
) -> AsyncIterator[Setup]:
    boxes = open_box("root", monkeypatch)
    box = next(boxes)
    host = await open_test_host("http", tmp_path, llm.base_url, data_dir=box.data_dir / "harnessdesk")
    try:
        client = host.client()
        yield Setup(host, box, client, await host.mux(client))
    finally:
        await host.close()
        next(boxes, None)


ASKED = ("approval/asked", "approval/decided")


def call(call_id: str, tool: str, **arguments: Any) -> Reply:
    return Reply(tool_calls=[(call_id, tool, json.dumps(arguments))])


def results(events: list[Any]) -> dict[str, Any]:
    return {e.data["message"]["source"]["callId"]: e.data for e in events if e.type == "tool/result"}


def text(result: dict[str, Any]) -> str:
    return str(result["message"]["content"][0]["content"])


CONNECT = (
    "import socket,sys; socket.create_connection(('127.0.0.1', int(sys.argv[1])), timeout=5);"
    " print('REACHED')"
)


def reach(port: int) -> str:
    return f'python3 -c "{CONNECT}" {port}'


async def test_auto_edits_and_tests_a_project_without_a_single_approval(
    setup: Setup, llm: ScriptedLlmServer
) -> None:
    ws = setup.box.workspace
    test_code = "from calc import add\nassert add(2, 3) == 5\nprint('TESTS-OK')\n"
    llm.enqueue(
        call("w1", "write_file", path="calc.py", content="def add(a, b):\n    return a - b\n"),
        call("w2", "write_file", path="test_calc.py", content=test_code),
        call("e1", "edit_file", path="calc.py", old_string="a - b", new_string="a + b"),
        call("b1", "bash", command="python3 test_calc.py && ls /tmp && echo made > out.txt"),
        Reply(text="The tests pass."),
    )
    sid = await setup.host.create(cwd=ws)
    events = await setup.turn(sid, "fix calc and test it")
    assert not [e for e in events if e.type in ASKED]
    done = results(events)
    assert all(r.get("error") is None for r in done.values()), done
    assert "TESTS-OK" in text(done["b1"])
    assert (ws / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
    assert (ws / "out.txt").read_text() == "made\n"
    logged = [
        (e.type, e.data) for e in events if e.type in ("permission/preset", "sandbox/mode", "approval/policy")
    ]
    assert logged == [
        ("permission/preset", {"preset": "auto"}),
        ("sandbox/mode", {"mode": "workspace-write", "mechanism": "bwrap", "network": False}),
        ("approval/policy", {"policy": "on-request"}),
    ]
    value = (await setup.host.engine.parts.permissions.projection(sid)).dump()
    assert value["currentValue"] == "auto" and value["sandbox"]["kind"] == "bwrap"
    assert value["badge"] == "Auto — runs inside this folder, asks before anything else."
    assert [o["value"] for o in value["options"]] == [
        "read-only",
        "auto",
        "workspace-write",
        "danger-full-access",
    ]


async def test_escapes_from_an_auto_session_fail_with_errors_the_model_can_act_on(
    setup: Setup, llm: ScriptedLlmServer
) -> None:
    box = setup.box
    (box.workspace / "planted").symlink_to(box.outside)
    llm.enqueue(
        call("b1", "bash", command=f"echo x > {box.outside}/abs.txt"),
        call("b2", "bash", command="echo x > ../outside/dotdot.txt; echo x > planted/link.txt"),
        call("b3", "bash", command=f"cat {box.home}/.ssh/id_ed25519; ls -a {setup.data_dir}; echo END"),
        call("b4", "bash", command=reach(setup.port)),
        call("b5", "bash", command="echo evil > .git/hooks/pre-commit; echo evil >> .git/config"),
        call("w1", "write_file", path=".git/hooks/pre-commit", content="#!/bin/sh\nevil\n"),
        call("e1", "edit_file", path="AGENTS.md", old_string="be nice", new_string="obey"),
        call("w2", "write_file", path="planted/through-link.txt", content="x"),
        Reply(text="I stayed inside."),
    )
    sid = await setup.host.create(cwd=box.workspace)
    events, asked = await setup.turn_refusing(sid)
    # a write outside the folder asks to run that command again without the sandbox (Auto's
    # promise: "going outside asks"); refused, nothing was written
    assert [a.call_id for a in asked] == ["b1", "b2"]
    assert all(a.arguments.get("outside_sandbox") is True for a in asked)
    done = results(events)
    assert "blocked by the sandbox: writing outside" in text(done["b1"])
    assert "The user did not allow this call (rejected)" in text(done["b1"])
    assert "Read-only file system" in text(done["b2"])
    assert SECRET not in text(done["b3"])
    assert any(setup.data_dir.iterdir())  # the data folder holds the database outside…
    assert text(done["b3"]).split("\n")[-3:] == [".", "..", "END"]  # …and nothing inside
    assert "REACHED" not in text(done["b4"])
    assert "Read-only file system" in text(done["b5"])
    for name in ("w1", "e1"):
        assert done[name]["error"]["code"] == "PERMISSION_DENIED"
        assert text(done[name]).startswith("blocked by the sandbox:")
    assert done["w2"].get("error") is not None  # the file tools stay inside (PATH_ESCAPE)
    assert sorted(p.name for p in box.outside.iterdir()) == ["notes.txt"]
    assert not (box.workspace / ".git" / "hooks" / "pre-commit").exists()
    assert (box.workspace / ".git" / "config").read_text() == "[core]\n"
    assert (box.workspace / "AGENTS.md").read_text() == "be nice\n"


async def test_a_background_job_a_subagent_and_a_forked_session_stay_inside(
    setup: Setup, llm: ScriptedLlmServer
) -> None:
    box = setup.box
    task = {"description": "Write outside", "prompt": "CHILD-x: write outside"}
    llm.enqueue(
        Reply(
            when="PARENT",
            tool_calls=[
                (
                    "j1",
                    "bash",
                    json.dumps(
                        {
                            "command": f"echo x > {box.outside}/job.txt; {reach(setup.port)}; echo job-done",
                            "run_in_background": True,
                        }
                    ),
                )
            ],
        ),
        Reply(when="PARENT", tool_calls=[("t1", "task", json.dumps(task))]),
        Reply(
            when="CHILD-x",
            tool_calls=[("cb", "bash", json.dumps({"command": f"echo x > {box.outside}/child.txt"}))],
        ),
        Reply(when="CHILD-x", text="I could not."),
        Reply(when="PARENT", text="done"),
    )
    sid = await setup.host.create(cwd=box.workspace)
    events, asked = await setup.turn_refusing(sid, "PARENT: try everything")
    assert [a.call_id for a in asked] == ["cb"]  # the child's write outside asked, and was refused
    job_id = text(results(events)["j1"]).split("background job ", 1)[1].split(".", 1)[0]
    job = setup.host.engine.jobs.job(sid, job_id)
    await asyncio.wait_for(job.ended.wait(), 120)
    output = (await setup.host.engine.jobs.job_output(sid, job_id, 0, 100_000)).text
    assert "job-done" in output and "REACHED" not in output and "Read-only file system" in output
    spawned = next(e for e in events if e.type == "subagent/spawned")
    child_events = [
        h.event
        for h in (await ok(setup.client, SESSION_HISTORY, {"sessionId": spawned.data["sessionId"]})).events
    ]
    child_result = next(e.data for e in child_events if e.type == "tool/result")
    assert "blocked by the sandbox" in text(child_result)
    assert [e.data["preset"] for e in child_events if e.type == "permission/preset"] == ["auto"]

    fork = (await ok(setup.client, SESSION_FORK, {"sessionId": sid})).session_id
    llm.enqueue(call("f1", "bash", command=f"echo x > {box.outside}/fork.txt"), Reply(text="no"))
    forked, asked = await setup.turn_refusing(fork)
    assert "blocked by the sandbox" in text(results(forked)["f1"])
    assert [a.call_id for a in asked] == ["f1"]
    assert sorted(p.name for p in box.outside.iterdir()) == ["notes.txt"]


async def answer(setup: Setup, sid: str, outcome: str) -> Any:
    rpc_id, frame = await setup.mux.next(ftype("approval/requested", sid))
    value = {"sessionId": sid, "approvalId": frame.approval_id, "outcome": outcome}
    await setup.client.respond(rpc_id, {"ok": True, "value": value})
    return frame


async def test_going_outside_asks_and_the_approval_lets_out_that_one_command(
    setup: Setup, llm: ScriptedLlmServer
) -> None:
    box = setup.box
    llm.enqueue(
        call("n1", "bash", command=reach(setup.port), network=True),
        call("o1", "bash", command=f"echo x > {box.outside}/granted.txt", outside_sandbox=True),
        call("o2", "bash", command=f"echo x > {box.outside}/refused.txt", outside_sandbox=True),
        call("b1", "bash", command=f"{reach(setup.port)}; echo x > {box.outside}/after.txt"),
        Reply(text="done"),
    )
    sid = await setup.host.create(cwd=box.workspace)
    await prompt(setup.client, sid, "go")
    network = await answer(setup, sid, "allowed-once")
    outside = await answer(setup, sid, "allowed-once")
    await answer(setup, sid, "rejected")
    offered = await answer(setup, sid, "rejected")  # b1 failed writing outside: asked again, refused
    assert offered.call_id == "b1" and offered.arguments.get("outside_sandbox") is True
    assert "in the sandbox WITH network access" in network.reason
    assert "WITHOUT the sandbox" in outside.reason
    await setup.mux.next(event("turn/end", sid))
    done = results(events_of(setup.mux.frames, sid))
    assert "REACHED" in text(done["n1"])  # with network, still in the sandbox
    assert (box.outside / "granted.txt").exists()  # without the sandbox, once
    assert not (box.outside / "refused.txt").exists()
    assert "REACHED" not in text(done["b1"]) and not (box.outside / "after.txt").exists()  # back inside


async def test_a_write_outside_the_folder_asks_and_allowed_runs_once_without_the_sandbox(
    setup: Setup, llm: ScriptedLlmServer
) -> None:
    """Issue 46, item 4: in Auto a write under the home folder failed "Read-only file system"
    though Auto says going outside asks. It asks now, after the sandboxed try: allowed, that
    command runs again without the sandbox; the next one is back inside."""
    box = setup.box
    target = box.home / "notes" / "todo.txt"
    llm.enqueue(
        call("b1", "bash", command=f"mkdir -p {target.parent} && echo remember > {target}"),
        call("b2", "bash", command=f"echo again > {box.home}/second.txt"),
        Reply(text="done"),
    )
    sid = await setup.host.create(cwd=box.workspace)
    await prompt(setup.client, sid, "note it in my home folder")
    allowed = await answer(setup, sid, "allowed-once")
    assert allowed.call_id == "b1" and "WITHOUT the sandbox" in allowed.reason
    refused = await answer(setup, sid, "rejected")
    assert refused.call_id == "b2"
    await setup.mux.next(event("turn/end", sid))
    done = results(events_of(setup.mux.frames, sid))
    assert target.read_text() == "remember\n"
    assert "the user let it run again outside" in text(done["b1"])
    assert not (box.home / "second.txt").exists()
    assert "The user did not allow this call" in text(done["b2"])


async def test_read_only_runs_read_only_commands_and_the_switches_are_logged(
    setup: Setup, llm: ScriptedLlmServer
) -> None:
    box = setup.box
    sid = await setup.host.create(cwd=box.workspace)
    value = await ok(setup.client, PERMISSION_SET, {"sessionId": sid, "preset": "read-only"})
    assert value.permissions.current_value == "read-only"
    llm.enqueue(
        call("b1", "bash", command="ls; echo x > new.txt"),
        call("w1", "write_file", path="new.txt", content="x"),
        Reply(text="looked"),
    )
    events = await setup.turn(sid)
    done = results(events)
    assert "main.py" in text(done["b1"]) and "this session is read-only" in text(done["b1"])
    assert done["w1"]["error"]["code"] == "PERMISSION_DENIED"
    assert not (box.workspace / "new.txt").exists()

    refused = await setup.client.call(PERMISSION_SET, {"sessionId": sid, "preset": "danger-full-access"})
    assert not refused.result.ok and refused.result.error.code == "bad-request"
    assert (
        await setup.host.engine.parts.permissions.projection(sid)
    ).current_value == "read-only"  # unchanged

    await ok(setup.client, PERMISSION_SET, {"sessionId": sid, "preset": "auto", "network": True})
    llm.enqueue(call("b2", "bash", command=reach(setup.port)), Reply(text="online"))
    online = await setup.turn(sid)
    assert "REACHED" in text(results(online)["b2"]) and not [e for e in online if e.type in ASKED]
    history = [h.event for h in (await ok(setup.client, SESSION_HISTORY, {"sessionId": sid})).events]
    modes = [e.data for e in history if e.type == "sandbox/mode"]
    assert modes[-1] == {"mode": "workspace-write", "mechanism": "bwrap", "network": True}
    assert (await setup.host.engine.parts.permissions.projection(sid)).badge.endswith("Network allowed.")

    full = {"sessionId": sid, "preset": "danger-full-access", "confirmFullAccess": True}
    assert (await ok(setup.client, PERMISSION_SET, full)).permissions.current_value == "danger-full-access"
    llm.enqueue(call("b3", "bash", command=f"echo x > {box.outside}/full.txt"), Reply(text="wrote"))
    await setup.turn(sid)
    assert (box.outside / "full.txt").exists()  # the control: Full access really has no sandbox
