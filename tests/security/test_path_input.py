"""Red-team finding (issue 24): a NUL byte in a path answered HTTP 500 (`ValueError: embedded null
byte` deep in the handler) for `session.create {cwd}`, `host.listDirectory` and
`host.createDirectory`. Every request field that names a host path is now one contract type
(`contract/paths.py`): a NUL, a lone surrogate or the U+FFFD the carrier puts in its place is a
`bad-request` whose issues name the field, and nothing is created. A raw invalid UTF-8 byte in a
body is not JSON (carrier rule 4: HTTP 400), never a 500. Over a real uvicorn and in-process."""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from tests.api.conftest import Host, open_test_host
from tests.api.support import raw
from tests.support.scripted_llm import ScriptedLlmServer

BAD = {
    "nul": "\\u0000",
    "lone-surrogate": "\\udce9",
    "replacement": "\\ufffd",
}
"""JSON escapes as a client sends them inside a path (the text after `\\` is JSON, not Python)."""


def requests(work: Path, bad: str) -> list[tuple[str, str, dict[str, str]]]:
    """(method, field, payload as JSON source text) for every path field of the contract."""
    parent = json.dumps(str(work))[1:-1]
    spot = f"{parent}/sub{bad}dir"
    return [
        ("session.create", "cwd", {"cwd": spot}),
        ("host.listDirectory", "path", {"path": spot}),
        ("host.createDirectory", "path", {"path": spot, "name": "new"}),
        ("host.createDirectory", "name", {"path": parent, "name": f"new{bad}"}),
        ("host.openPath", "path", {"path": spot}),
        ("workspace.create", "path", {"path": spot}),
    ]


def body(method: str, payload: dict[str, str], errors: str = "strict") -> bytes:
    """A client-request whose payload strings keep their JSON escapes verbatim (`errors`:
    how a Python surrogate in them becomes bytes)."""
    fields = ", ".join(f'"{k}": "{v}"' for k, v in payload.items())
    head = f'"type": "client-request", "rpcId": "{uuid.uuid4()}", "method": "{method}"'
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
            client, "POST", f"/api/{method}", {"content-type": "application/json"}, body(method, payload)
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
                body("session.list", {}),
            )
        ).body
    )
    assert listed["result"]["value"]["items"] == []


async def test_a_raw_invalid_byte_is_not_json_never_a_500(any_host: Host) -> None:
    client = any_host.client()
    for method, _field, payload in requests(any_host.workdir, "\udce9"):
        sent = body(method, payload, "surrogateescape")  # the byte 0xE9 itself, not an escape
        assert b"\xe9" in sent
        reply = await raw(client, "POST", f"/api/{method}", {"content-type": "application/json"}, sent)
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
                body("host.listDirectory", payload),
            )
        ).body
    )
    assert reply["result"]["ok"] is True and reply["result"]["value"]["path"] == str(odd)
