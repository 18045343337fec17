"""Red-team finding (issue 24): a NUL byte in a path answered HTTP 500 (`ValueError: embedded null
byte` deep in the handler) for `session.create {cwd}`, `host.listDirectory` and
`host.createDirectory`. Every request field that names a host path is now one contract type
(`contract/paths.py`): a NUL, a lone surrogate or the U+FFFD the carrier puts in its place is a
`bad-request` whose issues name the field, and nothing is created. A raw invalid UTF-8 byte in a
body is not JSON (carrier rule 4: HTTP 400), never a 500. Over a real uvicorn and in-process.
The model's side (issue 40): a NUL in a file tool's path argument is that call's BAD_ARGUMENTS
result, in every mode, and the turn goes on."""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from contract.methods import (
    HOST_CREATE_DIRECTORY,
    HOST_LIST_DIRECTORY,
    HOST_OPEN_PATH,
    PERMISSION_SET,
    SESSION_CREATE,
    SESSION_LIST,
    WORKSPACE_CREATE,
    AnyMethod,
)
from tests.api.conftest import Host, open_test_host
from tests.api.support import event, events_of, ok, prompt, raw
from tests.support.scripted_llm import Reply, ScriptedLlmServer

BAD = {
    "nul": "\\u0000",
    "lone-surrogate": "\\udce9",
    "replacement": "\\ufffd",
}
"""JSON escapes as a client sends them inside a path (the text after `\\` is JSON, not Python)."""


def requests(work: Path, bad: str) -> list[tuple[AnyMethod, str, dict[str, str]]]:
    """(method, field, payload as JSON source text) for every path field of the contract."""
    parent = json.dumps(str(work))[1:-1]
    spot = f"{parent}/sub{bad}dir"
    return [
        (SESSION_CREATE, "cwd", {"cwd": spot}),
        (HOST_LIST_DIRECTORY, "path", {"path": spot}),
        (HOST_CREATE_DIRECTORY, "path", {"path": spot, "name": "new"}),
        (HOST_CREATE_DIRECTORY, "name", {"path": parent, "name": f"new{bad}"}),
        (HOST_OPEN_PATH, "path", {"path": spot}),
        (WORKSPACE_CREATE, "path", {"path": spot}),
    ]


def body(method: AnyMethod, payload: dict[str, str], errors: str = "strict") -> bytes:
    """A client-request whose payload strings keep their JSON escapes verbatim (`errors`:
    how a Python surrogate in them becomes bytes)."""
    fields = ", ".join(f'"{k}": "{v}"' for k, v in payload.items())
    head = f'"type": "client-request", "rpcId": "{uuid.uuid4()}", "method": "{method.key}"'
    text = f'{{{head}, "payload": {{{fields}}}}}'
    return text.encode("utf-8", errors)


@pytest.fixture(params=["inprocess", "http"])
async def any_host(
    request: pytest.FixtureRequest, tmp_path: Path, llm: ScriptedLlmServer
) -> AsyncIterator[Host]:
    h = await open_test_host(str(request.param), tmp_path, llm.base_url)
    try:
        yield h
    finally:
        await h.close()


@pytest.mark.parametrize("kind", list(BAD))
async def test_a_bad_character_in_any_path_field_is_a_bad_request(any_host: Host, kind: str) -> None:
    client = any_host.client()
    work = any_host.workdir
    before = sorted(p.name for p in work.iterdir())
    for method, field, payload in requests(work, BAD[kind]):
        reply = await raw(
            client, "POST", f"/api/{method.key}", {"content-type": "application/json"}, body(method, payload)
        )
        assert reply.status == 200, (method, field, reply.status, reply.body[:200])
        result: dict[str, Any] = json.loads(reply.body)["result"]
        assert result["ok"] is False, (method, field, result)
        error = result["error"]
        assert error["code"] == "bad-request", (method, field, error)
        issues = error["details"]["issues"]
        assert any(field in [str(part) for part in issue["loc"]] for issue in issues), (method, field, issues)
        assert any("path cannot hold" in issue["msg"] for issue in issues), (method, field, issues)
    assert sorted(p.name for p in work.iterdir()) == before  # nothing was created
    listed = json.loads(
        (
            await raw(
                client,
                "POST",
                "/api/session.list",
                {"content-type": "application/json"},
                body(SESSION_LIST, {}),
            )
        ).body
    )
    assert listed["result"]["value"]["items"] == []


async def test_a_raw_invalid_byte_is_not_json_never_a_500(any_host: Host) -> None:
    client = any_host.client()
    for method, _field, payload in requests(any_host.workdir, "\udce9"):
        sent = body(method, payload, "surrogateescape")  # the byte 0xE9 itself, not an escape
        assert b"\xe9" in sent
        reply = await raw(client, "POST", f"/api/{method.key}", {"content-type": "application/json"}, sent)
        assert reply.status == 400 and reply.body == b"body is not JSON", (
            method,
            reply.status,
            reply.body[:200],
        )


async def test_ordinary_paths_still_work(any_host: Host) -> None:
    """The type refuses only what no path can hold: spaces, quotes, newlines and non-ASCII pass."""
    client = any_host.client()
    odd = any_host.workdir / 'café "quoted" $(x)\nline'
    odd.mkdir()
    payload = {"path": json.dumps(str(odd))[1:-1]}
    reply = json.loads(
        (
            await raw(
                client,
                "POST",
                "/api/host.listDirectory",
                {"content-type": "application/json"},
                body(HOST_LIST_DIRECTORY, payload),
            )
        ).body
    )
    assert reply["result"]["ok"] is True and reply["result"]["value"]["path"] == str(odd)


NUL_CALLS = [
    ("w", "write_file", {"path": "a\x00b.txt", "content": "x"}),
    ("e", "edit_file", {"path": "notes.txt\x00", "old_string": "x", "new_string": "y"}),
    ("r", "read_file", {"path": "notes.txt\x00.bak"}),
    ("l", "list_dir", {"path": "sub\x00dir"}),
    ("g1", "glob", {"pattern": "*\x00.py"}),
    ("g2", "glob", {"pattern": "*.py", "path": "s\x00"}),
    ("r1", "grep", {"pattern": "x", "path": "notes\x00.txt"}),
    ("r2", "grep", {"pattern": "x", "glob": "*\x00"}),
]
"""A NUL in every path argument of every file tool (issue 40, item 8)."""


@pytest.mark.parametrize("preset", ["default", "auto", "read-only"])
async def test_a_nul_in_any_file_tools_path_is_a_typed_tool_error(
    any_host: Host, llm: ScriptedLlmServer, preset: str
) -> None:
    """Each call gets its own BAD_ARGUMENTS result naming the argument, before any gate or
    approval reads the path; the turn goes on to the model's answer and nothing is written. It
    failed the whole turn (`ValueError: embedded null byte` from the permission gate) before."""
    (any_host.workdir / "notes.txt").write_text("x\n")
    before = sorted(p.name for p in any_host.workdir.iterdir())
    client = any_host.client()
    mux = await any_host.mux(client)
    sid = await any_host.create()
    if preset != "default":
        await ok(client, PERMISSION_SET, {"sessionId": sid, "preset": preset})
    calls = [(cid, name, json.dumps(args)) for cid, name, args in NUL_CALLS]
    llm.enqueue(Reply(tool_calls=calls), Reply(text="I will use plain names."))
    await prompt(client, sid, "touch the odd files")
    _, end = await mux.next(event("turn/end", sid))
    assert end.event.data["reason"] == {"kind": "completed"}, end.event.data
    results = {
        e.data["message"]["content"][0]["toolCallId"]: e.data
        for e in events_of(mux.frames, sid)
        if e.type == "tool/result"
    }
    assert sorted(results) == sorted(cid for cid, _, _ in NUL_CALLS)
    for cid, name, args in NUL_CALLS:
        error, text = results[cid]["error"], results[cid]["message"]["content"][0]["content"]
        assert error == {"name": name, "code": "BAD_ARGUMENTS"}, (cid, results[cid])
        field = next(k for k, v in args.items() if isinstance(v, str) and "\x00" in v)
        assert f"- {field}: a path cannot contain a NUL character" in text, (cid, text)
    assert not [
        e for e in events_of(mux.frames, sid) if e.type == "approval/asked"
    ]  # never put to the person
    sent = [m for m in llm.requests[-1]["messages"] if m["role"] == "tool"]
    assert len(sent) == len(NUL_CALLS) and all("NUL character" in m["content"] for m in sent)
    assert sorted(p.name for p in any_host.workdir.iterdir()) == before
    assert (any_host.workdir / "notes.txt").read_text() == "x\n"
