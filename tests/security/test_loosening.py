"""Loosening is privileged (issue 24, item 5; docs/decisions.md, "Loosening is privileged").

Red-team finding: `command.execute {"line": "/permission danger-full-access"}` was not privileged,
so a caller refused every privileged method (a browser on a `--trusted-host` name) switched a
session to full access and the model's next `bash` ran unasked. Here, over real HTTP against real
`harnessdesk serve` processes: the trusted-host caller is refused every change that lets more run
unasked, whatever method carries it, and nothing changes; it may still tighten; a privileged
caller (loopback, no trusted name) is served at once, with no confirmation held on the host.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator, Mapping
from pathlib import Path

import pytest

from contract.methods import AGENT_PRESET_SELECT, COMMAND_EXECUTE, SESSION_CREATE, SESSION_HISTORY
from host.engine.tools.permissions.looseness import looseness, loosens
from host.fetch import AbstractApiClient, HttpApiClient
from host.fetch.fetch_response import FetchResponse
from tests.api.support import Frames, Served, err, event, ftype, ok, prompt, start_serve
from tests.support.scripted_llm import Reply, ScriptedLlmServer

TRUSTED = "trusted.example"


class TrustedHostClient(HttpApiClient):
    """A browser that reached the server through the trusted name (the Host it sends)."""

    def __init__(self, served: Served) -> None:
        super().__init__(served.base_url, served.token)
        self.host_header = f"{TRUSTED}:{served.port}"

    async def do_fetch(
        self, method: str, path: str, headers: Mapping[str, str], body: bytes | None
    ) -> FetchResponse:
        return await super().do_fetch(method, path, {**headers, "host": self.host_header}, body)


def serve(root: Path, llm: ScriptedLlmServer, *extra: str) -> Served:
    provider = ["--provider", "openai-compatible", "--base-url", llm.base_url, "--model", "m"]
    return start_serve(root / "data", *extra, *provider, cwd=root)


@pytest.fixture(scope="module")
def trusted_server(
    tmp_path_factory: pytest.TempPathFactory, llm_server: ScriptedLlmServer
) -> Iterator[Served]:
    server = serve(tmp_path_factory.mktemp("trusted"), llm_server, "--trusted-host", TRUSTED)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def local_server(tmp_path_factory: pytest.TempPathFactory, llm_server: ScriptedLlmServer) -> Iterator[Served]:
    server = serve(tmp_path_factory.mktemp("local"), llm_server)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
async def browser(trusted_server: Served) -> AsyncIterator[AbstractApiClient]:
    async with TrustedHostClient(trusted_server) as client:
        yield client


def bash_call(call_id: str, command: str) -> Reply:
    return Reply(tool_calls=[(call_id, "bash", json.dumps({"command": command}))])


async def preset_of(client: AbstractApiClient, sid: str) -> str:
    history = await ok(client, SESSION_HISTORY, {"sessionId": sid})
    assert history.projections is not None
    return str(history.projections.values["permissions"]["currentValue"])


async def logged(client: AbstractApiClient, sid: str) -> list[str]:
    history = await ok(client, SESSION_HISTORY, {"sessionId": sid})
    return [e.event.type for e in history.events]


async def test_a_trusted_host_browser_cannot_loosen_a_session_by_any_method(
    browser: HttpApiClient, trusted_server: Served, llm: ScriptedLlmServer, tmp_path: Path
) -> None:
    marker = tmp_path / "M"
    sid = (await ok(browser, SESSION_CREATE, {"cwd": str(tmp_path)})).session_id
    for line in ("/permission danger-full-access", "/permission   danger-full-access  ", "/permission full"):
        refused = await err(browser, COMMAND_EXECUTE, {"sessionId": sid, "line": line}, "privilege-required")
        assert refused.details == {
            "method": "command.execute",
            "change": "switching this session from Ask to Full access",
        }
    assert await preset_of(browser, sid) == "workspace-write"
    assert "command/run" not in await logged(browser, sid)  # refused before anything was logged

    # the model's next bash still asks (the finding: it ran unasked)
    async with Frames(browser.stream("events.mux")) as mux:
        llm.enqueue(bash_call("c1", f"touch {marker}"), Reply(text="asked"))
        await prompt(browser, sid, "touch the marker")
        rpc_id, asked = await mux.next(ftype("approval/requested", sid))
        value = {"sessionId": sid, "approvalId": asked.approval_id, "outcome": "rejected"}
        assert (await browser.respond(rpc_id, {"ok": True, "value": value})).accepted
        await mux.next(event("turn/end", sid))
    assert not marker.exists()

    # tightening is not privileged: read-only, then loosening back to workspace-write is refused
    tightened = await ok(browser, COMMAND_EXECUTE, {"sessionId": sid, "line": "/permission read-only"})
    assert tightened.matched
    assert await preset_of(browser, sid) == "read-only"
    back = await err(
        browser,
        COMMAND_EXECUTE,
        {"sessionId": sid, "line": "/permission workspace-write"},
        "privilege-required",
    )
    assert back.details["change"] == "switching this session from Read-only to Ask"
    shown = await ok(browser, COMMAND_EXECUTE, {"sessionId": sid, "line": "/permission"})  # showing is fine
    assert shown.matched and await preset_of(browser, sid) == "read-only"

    # an agent preset that caps less than the session's is loosening too
    blank = (await ok(browser, SESSION_CREATE, {"cwd": str(tmp_path), "agentPreset": "read-only"})).session_id
    assert await preset_of(browser, blank) == "read-only"
    wider = await err(
        browser, AGENT_PRESET_SELECT, {"sessionId": blank, "agentPreset": "standard"}, "privilege-required"
    )
    assert wider.details["method"] == "agentPreset.select"
    assert await preset_of(browser, blank) == "read-only"
    other = (await ok(browser, SESSION_CREATE, {"cwd": str(tmp_path)})).session_id
    stricter = await ok(browser, AGENT_PRESET_SELECT, {"sessionId": other, "agentPreset": "read-only"})
    assert stricter.agent_preset == "read-only"

    # the default preset lives in settings: every settings write is privileged (403 at the fence)
    body = {
        "type": "client-request",
        "rpcId": "r-1",
        "method": "settings.update",
        "payload": {"ns": "permission", "patch": {"defaultPreset": "danger-full-access"}},
    }
    raw = await browser._http.post(
        f"{trusted_server.base_url}/api/settings.update",
        content=json.dumps(body),
        headers={
            "content-type": "application/json",
            "authorization": f"Bearer {trusted_server.token}",
            "host": f"{TRUSTED}:{trusted_server.port}",
        },
    )
    assert raw.status_code == 403
    assert (
        not (trusted_server.data_dir / "settings.json").exists()
        or "danger" not in (trusted_server.data_dir / "settings.json").read_text()
    )


async def test_a_privileged_caller_is_served_at_once(
    local_server: Served, llm: ScriptedLlmServer, tmp_path: Path
) -> None:
    """Loopback, no trusted name: the switch is carried out by the request itself (no second
    step on the host), and the next bash runs unasked."""
    marker = tmp_path / "M"
    async with HttpApiClient(local_server.base_url, local_server.token) as client:
        sid = (await ok(client, SESSION_CREATE, {"cwd": str(tmp_path)})).session_id
        async with Frames(client.stream("events.mux")) as mux:
            switched = await ok(
                client, COMMAND_EXECUTE, {"sessionId": sid, "line": "/permission danger-full-access"}
            )
            assert switched.matched
            _, done = await mux.next(event("command/done", sid, commandId=switched.command_id))
            assert done.event.data["text"] == "Permission mode Full access"
            assert await preset_of(client, sid) == "danger-full-access"
            llm.enqueue(bash_call("c1", f"touch {marker}"), Reply(text="done"))
            await prompt(client, sid, "touch it")
            await mux.next(event("turn/end", sid))
            assert not [f for f in mux.frames if getattr(f, "type", "") == "approval/requested"]
        assert marker.exists()
        blank = (
            await ok(client, SESSION_CREATE, {"cwd": str(tmp_path), "agentPreset": "read-only"})
        ).session_id
        chosen = await ok(client, AGENT_PRESET_SELECT, {"sessionId": blank, "agentPreset": "standard"})
        assert chosen.agent_preset == "standard"


def test_one_order_of_looseness_with_auto_in_its_place() -> None:
    order = ["read-only", "workspace-write", "auto", "danger-full-access"]
    assert sorted(order, key=looseness) == order
    assert all(loosens((a, "ask"), (b, "ask")) for i, a in enumerate(order) for b in order[i + 1 :])
    assert not any(loosens((b, "ask"), (a, "ask")) for i, a in enumerate(order) for b in order[i:])
    assert loosens(("workspace-write", "ask"), ("workspace-write", "never"))  # never asks: ≥ auto
    assert loosens(("danger-full-access", "never"), ("a-name-we-do-not-know", None)) is False
    assert loosens(("auto", "never"), ("a-name-we-do-not-know", None))  # unknown counts as loosest
