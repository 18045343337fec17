"""Permission presets and scoped "Allow always" rules, enforced in the engine (real tools, real
SQLite, the scripted model asking for the calls)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from contract.rpc import ClientResponse, RpcOk
from contract.sessions import TextInput
from host.engine.tools.permissions.scope import Shape, bash_shape, covers, label, scope_for
from tests.engine.conftest import events_of, frames_until, is_event
from tests.support.scripted_llm import Reply

Factory = Any


def bash(call_id: str, command: str) -> Reply:
    return Reply(tool_calls=[(call_id, "bash", f'{{"command": "{command}"}}')])


def write(call_id: str, path: str) -> Reply:
    return Reply(tool_calls=[(call_id, "write_file", f'{{"path": "{path}", "content": "x"}}')])


async def answer(engine: Any, mux: Any, sid: str, outcome: str) -> Any:
    """Wait for the next approval of `sid`, answer it; returns its frame."""
    while True:
        item = await asyncio.wait_for(mux.get(), 15)
        assert item is not None
        rpc_id, frame = item
        if frame.type == "approval/requested" and frame.session_id == sid:
            value = {"sessionId": sid, "approvalId": frame.approval_id, "outcome": outcome}
            engine.host.respond(ClientResponse(rpc_id=rpc_id, result=RpcOk[Any](value=value)))
            return frame


async def turn(engine: Any, mux: Any, sid: str, text: str = "go") -> list[Any]:
    """The turn's events (the inbox's splices, which queue and claim the prompt, left out)."""
    await engine.agents.prompt(sid, "queue", [TextInput(text=text)], "r")
    events = events_of(await frames_until(mux, is_event("turn/end")))
    return [e for e in events if e.type != "agent/inbox/spliced"]


def tool_results(events: list[Any]) -> list[Any]:
    return [e.data for e in events if e.type == "tool/result"]


# ---- scopes ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "shape"),
    [
        ("npm test", (("npm", "test"), ())),
        ("npm test -- --watch", (("npm", "test"), ("--",))),
        ("git status", (("git", "status"), ())),
        ("git --no-pager log -1", (("git", "--no-pager", "log"), ("-1",))),
        ("ls -la src", (("ls",), ("-la",))),
        ("python script.py", (("python", "script.py"), ())),
        ("python -m pytest -q", (("python", "-m", "pytest"), ("-q",))),
        ("python -c 'import os'", None),
        ("python", None),
        ("npm test && rm -rf x", None),
        ("npm test; rm -rf x", None),
        ("npm test | tee log", None),
        ("npm test > out.txt", None),
        ('npm test "$(rm -rf x)"', None),
        ("npm test `rm -rf x`", None),
        ("npm test $HOME", None),
        ("sudo npm test", None),
        ("bash -c 'npm test'", None),
        ("FOO=1 npm test", None),
        ("npm test\nrm -rf x", None),
        ("echo 'unterminated", None),
        ("npm --prefix x test", None),
    ],
)
def test_bash_shapes(command: str, shape: tuple[tuple[str, ...], tuple[str, ...]] | None) -> None:
    assert bash_shape(command) == (Shape(*shape) if shape is not None else None)


def test_rules_cover_only_their_scope(tmp_path: Path) -> None:
    npm = scope_for("bash", {"command": "npm test"}, tmp_path, False)
    assert npm == 'shape:{"prefix":["npm","test"],"options":[]}' and label("bash", npm) == "bash: npm test …"

    def bash_ok(command: str) -> bool:
        return covers(npm, "bash", {"command": command}, tmp_path, False)

    assert bash_ok("npm test") and bash_ok("npm test unit")
    others = ("rm -rf x", "npm install", "npm test-all", "npm test && rm -rf x", "npm", "sudo npm test")
    for other in (*others, "npm test --watch"):  # another option is another shape
        assert not bash_ok(other), other
    assert not covers("words:npm test", "bash", {"command": "npm test"}, tmp_path, False)  # an old rule
    exact = scope_for("bash", {"command": "cd sub && make"}, tmp_path, False)
    assert exact == "exact:cd sub && make" and label("bash", exact) == "bash: exactly `cd sub && make`"
    assert covers(exact, "bash", {"command": " cd sub && make "}, tmp_path, False)
    assert not covers(exact, "bash", {"command": "cd sub && make clean"}, tmp_path, False)
    files = scope_for("write_file", {"path": "a.txt"}, tmp_path, True)
    assert files == f"workspace:{tmp_path.resolve()}"
    assert covers(files, "write_file", {"path": "deep/b.txt"}, tmp_path, True)
    assert not covers(files, "write_file", {"path": "../outside.txt"}, tmp_path, True)
    assert not covers(files, "write_file", {"path": "a.txt"}, tmp_path / "other", True)


# ---- presets --------------------------------------------------------------------------------------


async def test_read_only_refuses_writes_and_commands_without_asking(
    engine_factory: Factory, scripted_llm: Any, tmp_path: Path
) -> None:
    engine = await engine_factory()
    await engine.config.update_settings("permission", {"defaultPreset": "read-only"}, None)
    sid = await engine.sessions.create_session(str(tmp_path))
    await engine.config.update_settings(
        "permission", {"defaultPreset": "workspace-write"}, None
    )  # pinned already
    edit = Reply(tool_calls=[("e1", "edit_file", '{"path": "a.txt", "old_string": "a", "new_string": "b"}')])
    read = Reply(tool_calls=[("r1", "list_dir", "{}")])
    scripted_llm.enqueue(write("w1", "a.txt"), edit, bash("b1", "touch pwned"), read, Reply(text="done"))
    mux = engine.host.subscribe_mux()
    events = await turn(engine, mux, sid)
    assert [e.data for e in events[:3]] == [
        {"preset": "read-only"},
        {"mode": "read-only", "mechanism": "none", "network": False},
        {"policy": "ask"},
    ]
    results = tool_results(events)
    assert [r.get("error", {}).get("code") for r in results] == [
        "PERMISSION_DENIED",
        "PERMISSION_DENIED",
        "PERMISSION_DENIED",
        None,
    ]
    refusal = results[0]["message"]["content"][0]["content"]
    assert "read-only" in refusal and "write_file" in refusal
    assert not any(e.type == "approval/asked" for e in events)
    assert not (tmp_path / "a.txt").exists() and not (tmp_path / "pwned").exists()
    projection = await engine.parts.permissions.projection(sid)
    assert projection.current_value == "read-only"
    # no sandbox in the suite (tests/conftest.py): Auto is not offered
    assert [o.value for o in projection.options] == ["read-only", "workspace-write", "danger-full-access"]


async def test_full_access_never_asks(engine_factory: Factory, scripted_llm: Any, tmp_path: Path) -> None:
    engine = await engine_factory()
    await engine.config.update_settings("permission", {"defaultPreset": "danger-full-access"}, None)
    sid = await engine.sessions.create_session(str(tmp_path))
    scripted_llm.enqueue(bash("b1", "echo ran > ran.txt"), write("w1", "w.txt"), Reply(text="done"))
    mux = engine.host.subscribe_mux()
    events = await turn(engine, mux, sid)
    assert [e.data for e in events[:3]][2] == {"policy": "never"}
    assert not any(e.type == "approval/asked" for e in events)
    assert (tmp_path / "ran.txt").read_text().strip() == "ran" and (tmp_path / "w.txt").exists()


# ---- scoped "Allow always" ------------------------------------------------------------------------


async def test_allow_always_npm_test_does_not_cover_rm_and_revoking_asks_again(
    engine_factory: Factory, scripted_llm: Any, tmp_path: Path
) -> None:
    engine = await engine_factory()
    sid = await engine.sessions.create_session(str(tmp_path))
    mux = engine.host.subscribe_mux()
    scripted_llm.enqueue(bash("b1", "npm test"), Reply(text="ok"))
    asker = asyncio.create_task(answer(engine, engine.host.subscribe_mux(), sid, "allowed-always"))
    events = await turn(engine, mux, sid)
    frame = await asker
    assert frame.reason == "bash needs your approval."
    assert frame.always.text == "Always allow `npm test …` in this session" and not frame.always.exact
    npm = 'shape:{"prefix":["npm","test"],"options":[]}'
    projection = await engine.parts.permissions.projection(sid)
    assert [(r.tool, r.scope, r.label) for r in projection.rules] == [("bash", npm, "bash: npm test …")]

    scripted_llm.enqueue(bash("b2", "npm test unit"), Reply(text="ok"))
    events = await turn(engine, mux, sid)
    assert not any(e.type == "approval/asked" for e in events)  # covered by the rule

    scripted_llm.enqueue(bash("b3", "rm -rf x"), Reply(text="ok"))
    asker = asyncio.create_task(answer(engine, engine.host.subscribe_mux(), sid, "rejected"))
    events = await turn(engine, mux, sid)
    assert (await asker).arguments == {"command": "rm -rf x"}  # not covered: asked
    assert tool_results(events)[0]["error"]["code"] == "REJECTED"

    assert await engine.config.revoke_permission(sid, "bash", npm) is True
    assert await engine.config.revoke_permission(sid, "bash", npm) is False
    assert (await engine.parts.permissions.projection(sid)).rules == []
    scripted_llm.enqueue(bash("b4", "npm test"), Reply(text="ok"))
    asker = asyncio.create_task(answer(engine, engine.host.subscribe_mux(), sid, "rejected"))
    await turn(engine, mux, sid)
    assert (await asker).arguments == {"command": "npm test"}  # asked again after the revoke


async def test_rules_are_projected_survive_a_restart_and_stay_out_of_forks(
    engine_factory: Factory, scripted_llm: Any, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    work = tmp_path / "work"
    work.mkdir()
    engine = await engine_factory(data)
    sid = await engine.sessions.create_session(str(work))
    mux = engine.host.subscribe_mux()
    scripted_llm.enqueue(write("w1", "a.txt"), Reply(text="ok"))
    asker = asyncio.create_task(answer(engine, engine.host.subscribe_mux(), sid, "allowed-always"))
    await engine.agents.prompt(sid, "queue", [TextInput(text="go")], "r")
    frames = await frames_until(mux, is_event("turn/end"))
    await asker
    pushed = [f for f in frames if f.type == "session/projection" and f.key == "permissions"]
    assert [r["scope"] for r in pushed[-1].value["rules"]] == [f"workspace:{work.resolve()}"]
    assert pushed[-1].value["currentValue"] == "workspace-write"
    _, _, projections = await engine.sessions.history(sid)
    assert (
        projections.values["permissions"]["rules"][0]["label"] == f"write_file: anywhere in {work.resolve()}"
    )
    child = await engine.sessions.fork(sid)
    await engine.close()

    reopened = await engine_factory(data)
    assert [r.tool for r in (await reopened.parts.permissions.projection(sid)).rules] == ["write_file"]
    assert (await reopened.parts.permissions.projection(child)).rules == []  # a fork asks again
    assert (await reopened.parts.permissions.projection(child)).current_value == "workspace-write"
    mux = reopened.host.subscribe_mux()
    scripted_llm.enqueue(write("w2", "sub/b.txt"), Reply(text="ok"))
    events = await turn(reopened, mux, sid)
    assert not any(e.type == "approval/asked" for e in events) and (work / "sub" / "b.txt").exists()
    # revoking a rule of a session that is not loaded works too, and is pushed
    other = await reopened.sessions.fork(sid)
    assert await reopened.config.revoke_permission(sid, "write_file", f"workspace:{work.resolve()}")
    assert (await reopened.parts.permissions.projection(sid)).rules == []
    assert other != sid


async def test_a_session_from_before_presets_is_pinned_without_rewriting_its_log(
    engine_factory: Factory, scripted_llm: Any, tmp_path: Path
) -> None:
    from tests.engine.test_agent_engine import cold_session_with_open_turn

    data = tmp_path / "data"
    await cold_session_with_open_turn(data)
    engine = await engine_factory(data, tools={})
    mux = engine.host.subscribe_mux()
    await engine.agents.attach("cold")
    frames = await frames_until(mux, is_event("turn/end"))
    assert not any(
        e.type.startswith(("permission/", "sandbox/", "approval/policy")) for e in events_of(frames)
    )
    assert (await engine.parts.permissions.projection("cold")).current_value == "workspace-write"


async def test_an_agent_preset_can_only_make_a_session_stricter(
    engine_factory: Factory, scripted_llm: Any, tmp_path: Path
) -> None:
    engine = await engine_factory()
    await engine.config.update_settings("permission", {"defaultPreset": "danger-full-access"}, None)
    strict = await engine.sessions.create_session(
        str(tmp_path), agent_preset="read-only"
    )  # sandbox read-only
    assert (await engine.parts.permissions.projection(strict)).current_value == "read-only"
    loose = await engine.sessions.create_session(str(tmp_path))  # standard names no sandbox: the default
    assert (await engine.parts.permissions.projection(loose)).current_value == "danger-full-access"
    scripted_llm.enqueue(Reply(text="looked"))
    events = await turn(engine, engine.host.subscribe_mux(), strict)
    assert [e.data for e in events[:3]] == [
        {"preset": "read-only"},
        {"mode": "read-only", "mechanism": "none", "network": False},
        {"policy": "ask"},
    ]
    await engine.config.update_settings("permission", {"defaultPreset": "read-only"}, None)
    blank = await engine.sessions.create_session(str(tmp_path))
    await engine.presets.select_preset(blank, "chat")
    assert (await engine.parts.permissions.projection(blank)).current_value == "read-only"  # never looser
