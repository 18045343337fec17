"""Hooks with real processes (own tiny scripts), driven by the scripted provider
(docs/decisions.md, "Hooks"): PreToolUse deny by exit code and by JSON (and the event-name
guard), ask forcing an approval past "Allow always", deny beating ask, PostToolUse block,
UserPromptSubmit blocking a prompt, a timeout, and project hooks inert before trust
and before the person approved the file's exact content (again after a change)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from contract.methods import (
    HOOKS_APPROVE,
    MCP_LIST,
    SESSION_CREATE,
    SESSION_HISTORY,
    WORKSPACE_CREATE,
    WORKSPACE_SET_TRUST,
)
from tests.api.conftest import Host
from tests.api.support import event, ftype, ok, prompt
from tests.support.scripted_llm import Reply, ScriptedLlmServer

WAIT = 60.0
PY = sys.executable


def hooks_file(path: Path, hooks: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"hooks": hooks}), encoding="utf-8")


def group(command: str, matcher: str | None = None, **extra: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {"hooks": [{"type": "command", "command": command, **extra}]}
    if matcher is not None:
        entry["matcher"] = matcher
    return entry


def deny_json(event_name: str, reason: str) -> str:
    out = {
        "hookSpecificOutput": {
            "hookEventName": event_name,
            "permissionDecision": "deny",
            "permissionDecisionReason": reason,
        }
    }
    return f"echo '{json.dumps(out)}'"


def ask_json(reason: str) -> str:
    out = {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "ask",
            "permissionDecisionReason": reason,
        }
    }
    return f"echo '{json.dumps(out)}'"


RM_GUARD = (
    f'{PY} -c "import sys,json;d=json.load(sys.stdin);'
    "sys.exit(2) if 'rm ' in d['tool_input'].get('command','') else 0\"; "
    "s=$?; [ $s -eq 2 ] && echo no rm please >&2; exit $s"
)


def bash(call_id: str, command: str) -> Reply:
    return Reply(tool_calls=[(call_id, "bash", json.dumps({"command": command}))])


async def answer(client: Any, mux: Any, sid: str, outcome: str = "allowed-once") -> Any:
    rpc_id, asked = await mux.next(ftype("approval/requested", sid), within=WAIT)
    value = {"sessionId": sid, "approvalId": asked.approval_id, "outcome": outcome}
    await client.respond(rpc_id, {"ok": True, "value": value})
    return asked


async def test_pre_tool_use_exit_2_blocks_rm_and_lets_ls_through(host: Host, llm: ScriptedLlmServer) -> None:
    hooks_file(host.data_dir / "hooks.json", {"PreToolUse": [group(RM_GUARD, "Bash")]})
    client = host.client()
    mux = await host.mux(client)
    sid = await host.create()
    llm.enqueue(bash("c1", "rm x"), bash("c2", "ls"), Reply(text="done"))
    await prompt(client, sid, "clean up")
    _, first = await mux.next(event("tool/result", sid), within=WAIT)
    assert first.event.data["error"]["code"] == "HOOK_DENIED"
    assert "no rm please" in first.event.data["message"]["content"][0]["content"]
    await answer(client, mux, sid)  # ls passes the hook, then asks as bash always does
    _, second = await mux.next(event("tool/result", sid), within=WAIT)
    assert second.event.data.get("error") is None
    _, end = await mux.next(event("turn/end", sid), within=WAIT)
    assert end.event.data["reason"] == {"kind": "completed"}
    history = await ok(client, SESSION_HISTORY, {"sessionId": sid, "maxMessages": 50})
    results = [e.data for e in (h.event for h in history.events) if e.type == "hook/result"]
    assert [(r["decision"], r.get("exitCode")) for r in results] == [("block", 2), ("pass", 0)]
    invoked = [e.data for e in (h.event for h in history.events) if e.type == "hook/invoked"]
    assert invoked[0]["handlerId"] == "claude:PreToolUse:1" and invoked[0]["matcher"] == "Bash"


async def test_json_deny_the_event_guard_and_deny_beats_ask(
    host: Host, llm: ScriptedLlmServer, carrier: str
) -> None:
    if carrier != "inprocess":
        pytest.skip("one carrier is enough")
    hooks_file(
        host.data_dir / "hooks.json",
        {
            "PreToolUse": [
                group(deny_json("Stop", "wrong event"), "list_dir"),  # must have no effect
                group(deny_json("PreToolUse", "nope"), "Grep"),
                group(ask_json("look first"), "Grep"),
            ]
        },
    )
    client = host.client()
    mux = await host.mux(client)
    sid = await host.create()
    grep = Reply(tool_calls=[("c2", "grep", json.dumps({"pattern": "x"}))])
    llm.enqueue(Reply(tool_calls=[("c1", "list_dir", "{}")]), grep, Reply(text="done"))
    await prompt(client, sid, "look")
    _, listed = await mux.next(event("tool/result", sid), within=WAIT)
    assert listed.event.data.get("error") is None  # the Stop-named JSON was ignored
    _, grepped = await mux.next(event("tool/result", sid), within=WAIT)
    assert grepped.event.data["error"]["code"] == "HOOK_DENIED"
    assert grepped.event.data["message"]["content"][0]["content"] == "nope"
    await mux.next(event("turn/end", sid), within=WAIT)


async def test_ask_forces_an_approval_past_allow_always(
    host: Host, llm: ScriptedLlmServer, carrier: str
) -> None:
    if carrier != "inprocess":
        pytest.skip("one carrier is enough")
    client = host.client()
    mux = await host.mux(client)
    sid = await host.create()
    llm.enqueue(bash("c1", "echo hi"), Reply(text="one"))
    await prompt(client, sid, "first")
    await answer(client, mux, sid, "allowed-always")
    await mux.next(event("turn/end", sid), within=WAIT)
    hooks_file(host.data_dir / "hooks.json", {"PreToolUse": [group(ask_json("are you sure"), "Bash")]})
    llm.enqueue(bash("c2", "echo hi"), Reply(text="two"))
    await prompt(client, sid, "second")
    asked = await answer(client, mux, sid)
    assert "A hook asks: are you sure" in (asked.reason or "")
    await mux.next(event("turn/end", sid), within=WAIT)


async def test_post_tool_use_block_replaces_the_result(
    host: Host, llm: ScriptedLlmServer, carrier: str
) -> None:
    if carrier != "inprocess":
        pytest.skip("one carrier is enough")
    block = 'echo \'{"decision": "block", "reason": "secret output"}\''
    hooks_file(host.data_dir / "hooks.json", {"PostToolUse": [group(block, "LS")]})
    client = host.client()
    mux = await host.mux(client)
    sid = await host.create()
    llm.enqueue(Reply(tool_calls=[("c1", "list_dir", "{}")]), Reply(text="done"))
    await prompt(client, sid, "list")
    _, result = await mux.next(event("tool/result", sid), within=WAIT)
    assert result.event.data["error"]["code"] == "HOOK_BLOCKED"
    assert (
        result.event.data["message"]["content"][0]["content"] == "blocked by PostToolUse hook: secret output"
    )
    await mux.next(event("turn/end", sid), within=WAIT)


async def test_user_prompt_submit_exit_2_blocks_the_prompt(host: Host, llm: ScriptedLlmServer) -> None:
    check = "import sys,json;d=json.load(sys.stdin);print('no secrets', file=sys.stderr)"
    script = f"{PY} -c \"{check};sys.exit(2 if 'password' in d['prompt'] else 0)\""
    hooks_file(host.data_dir / "hooks.json", {"UserPromptSubmit": [group(script)]})
    client = host.client()
    mux = await host.mux(client)
    sid = await host.create()
    await prompt(client, sid, "my password is hunter2")
    _, blocked = await mux.next(event("prompt/blocked", sid), within=WAIT)
    assert blocked.event.data["reason"] == "no secrets"
    _, end = await mux.next(event("turn/end", sid), within=WAIT)
    assert end.event.data["reason"]["kind"] == "blocked"
    assert llm.requests == []  # the model never saw it
    history = await ok(client, SESSION_HISTORY, {"sessionId": sid, "maxMessages": 50})
    assert not [e for e in (h.event for h in history.events) if e.type == "user/message"]
    results = [e.data for e in (h.event for h in history.events) if e.type == "hook/result"]
    assert [(r["point"], r["decision"], r["exitCode"]) for r in results] == [("UserPromptSubmit", "block", 2)]


async def test_a_hook_that_times_out_is_a_non_blocking_error(
    host: Host, llm: ScriptedLlmServer, carrier: str
) -> None:
    if carrier != "inprocess":
        pytest.skip("one carrier is enough")
    hooks_file(host.data_dir / "hooks.json", {"UserPromptSubmit": [group("sleep 30", timeout=1)]})
    client = host.client()
    mux = await host.mux(client)
    sid = await host.create()
    llm.enqueue(Reply(text="answered"))
    await prompt(client, sid, "hello")
    _, end = await mux.next(event("turn/end", sid), within=WAIT)
    assert end.event.data["reason"] == {"kind": "completed"}
    history = await ok(client, SESSION_HISTORY, {"sessionId": sid, "maxMessages": 50})
    (result,) = [e.data for e in (h.event for h in history.events) if e.type == "hook/result"]
    assert result["decision"] == "error" and "timed out after 1 s" in result["stderrSummary"]


async def test_project_hooks_run_only_in_a_trusted_folder_once_their_content_is_approved(
    host: Host, llm: ScriptedLlmServer, tmp_path: Path, carrier: str
) -> None:
    if carrier != "inprocess":
        pytest.skip("one carrier is enough")
    repo = tmp_path / "cloned"
    marker = repo / "HOOK-RAN"
    hooks_file(repo / ".harnessdesk" / "hooks.json", {"UserPromptSubmit": [group(f"touch {marker}")]})
    client = host.client()
    mux = await host.mux(client)
    wid = (await ok(client, WORKSPACE_CREATE, {"path": str(repo)})).workspace.workspace_id
    sid = (await ok(client, SESSION_CREATE, {"workspaceId": wid})).session_id

    async def turn(text: str) -> None:
        llm.enqueue(Reply(text="ok"))
        await prompt(client, sid, text)
        await mux.next(event("turn/end", sid), within=WAIT)

    await turn("untrusted")
    assert not marker.exists()
    (listed,) = (await ok(client, MCP_LIST, {"sessionId": sid})).hook_files  # for the trust prompt
    assert not listed.approved and listed.commands[0].command == f"touch {marker}"
    await ok(client, WORKSPACE_SET_TRUST, {"workspaceId": wid, "trusted": True})
    await turn("trusted, not approved")
    assert not marker.exists()

    (shown,) = (await ok(client, MCP_LIST, {"sessionId": sid})).hook_files
    assert not shown.approved
    assert [(c.event, c.command) for c in shown.commands] == [("UserPromptSubmit", f"touch {marker}")]
    bad = await client.call(HOOKS_APPROVE, {"workspaceId": wid, "digest": "0" * 64})
    assert not bad.result.ok and bad.result.error.code == "mcp-server-changed"
    await turn("a wrong digest approves nothing")
    assert not marker.exists()
    await ok(client, HOOKS_APPROVE, {"workspaceId": wid, "digest": shown.digest})
    assert (await ok(client, MCP_LIST, {"sessionId": sid})).hook_files[0].approved
    await turn("approved")
    assert marker.exists()

    # the file changes: inert until the person approves the new content
    second = repo / "CHANGED-HOOK-RAN"
    hooks_file(repo / ".harnessdesk" / "hooks.json", {"UserPromptSubmit": [group(f"touch {second}")]})
    await turn("changed")
    assert not second.exists()
    (changed,) = (await ok(client, MCP_LIST, {"sessionId": sid})).hook_files
    assert not changed.approved and changed.digest != shown.digest
    stale = await client.call(HOOKS_APPROVE, {"workspaceId": wid, "digest": shown.digest})
    assert not stale.result.ok and stale.result.error.code == "mcp-server-changed"
    await ok(client, HOOKS_APPROVE, {"workspaceId": wid, "digest": changed.digest})
    await turn("approved again")
    assert second.exists()


async def test_a_stop_hook_that_always_blocks_ends_after_3_continuations(
    host: Host, llm: ScriptedLlmServer, carrier: str
) -> None:
    if carrier != "inprocess":
        pytest.skip("one carrier is enough")
    log = host.workdir / "stop-payloads.jsonl"
    block = f"cat >> {log}; echo >> {log}; echo keep going >&2; exit 2"
    hooks_file(host.data_dir / "hooks.json", {"Stop": [group(block)]})
    client = host.client()
    mux = await host.mux(client)
    sid = await host.create()
    llm.enqueue(*(Reply(text=f"answer {n}") for n in range(4)))
    await prompt(client, sid, "work")
    _, end = await mux.next(event("turn/end", sid), within=WAIT)
    assert end.event.data["reason"] == {"kind": "completed"}
    assert len(llm.requests) == 4  # the first answer and 3 forced continuations
    last = llm.requests[-1]["messages"][-1]
    assert "A Stop hook asks you to continue: keep going" in json.dumps(last)
    payloads = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    assert [p["stop_hook_active"] for p in payloads] == [False, True, True, True]


async def test_prompt_and_session_start_context_reach_the_first_request(
    host: Host, llm: ScriptedLlmServer, carrier: str
) -> None:
    if carrier != "inprocess":
        pytest.skip("one carrier is enough")
    start = {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "start-ctx-7"}}
    hooks_file(
        host.data_dir / "hooks.json",
        {
            "UserPromptSubmit": [group("echo ctx-42")],
            "SessionStart": [group(f"echo '{json.dumps(start)}'", "startup")],
        },
    )
    client = host.client()
    mux = await host.mux(client)
    sid = await host.create()
    llm.enqueue(Reply(text="one"), Reply(text="two"))
    await prompt(client, sid, "first")
    await mux.next(event("turn/end", sid), within=WAIT)
    await prompt(client, sid, "second")
    await mux.next(event("turn/end", sid), within=WAIT)

    def texts(request: dict[str, Any]) -> list[str]:
        out = []
        for m in request["messages"]:
            if m["role"] == "user":
                c = m["content"]
                out.append(c if isinstance(c, str) else " ".join(p.get("text", "") for p in c))
        return out

    assert texts(llm.requests[0]) == ["first", "start-ctx-7", "ctx-42"]
    assert texts(llm.requests[1]) == ["first", "start-ctx-7", "ctx-42", "second", "ctx-42"]
