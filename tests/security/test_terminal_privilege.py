"""The person's shell is privileged (docs/decisions.md, "Terminal and files"; docs/threat-model.md,
"The fence"): a browser that reached the host through a `--trusted-host` name is refused every
`terminal.*` method at the fence (403), and its mux stream never carries a terminal's output,
while the window (the in-process client, privileged) opens, types into and reads the same
terminal on the same engine. Real parts: uvicorn on loopback with the real fence and token, a
real PTY and shell."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import secrets
from collections.abc import AsyncIterator, Mapping
from pathlib import Path

import httpx
import pytest

from contract.methods import FILES_TREE, TERMINAL_ATTACH, TERMINAL_INPUT, TERMINAL_OPEN
from desktop.paths import webui_dir
from host.fetch import HttpApiClient
from host.fetch.fetch_response import FetchResponse
from host.server import build_site
from host.server.binding import bind_socket
from host.server.run import LoopbackServer
from tests.api.conftest import Host
from tests.api.support import WAIT, Frames, ftype, ok

TRUSTED = "trusted.example"


class TrustedHostClient(HttpApiClient):
    """A browser that reached the server through the trusted name (the Host it sends)."""

    def __init__(self, base_url: str, token: str, port: int) -> None:
        super().__init__(base_url, token)
        self.host_header = f"{TRUSTED}:{port}"

    async def do_fetch(
        self, method: str, path: str, headers: Mapping[str, str], body: bytes | None
    ) -> FetchResponse:
        return await super().do_fetch(method, path, {**headers, "host": self.host_header}, body)


@pytest.fixture(autouse=True)
def shell_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The shells start in a home of their own: this machine's ~/.bashrc is not what is tested,
    and a shell ended while it starts must not leave that file's state behind (a pyenv rehash
    killed midway left its lock, and every later login shell waited a minute)."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    monkeypatch.setenv("HOME", str(home))
    return home


@contextlib.asynccontextmanager
async def served(host: Host, trusted: tuple[str, ...]) -> AsyncIterator[tuple[str, str, int]]:
    """The real site (fence, token) on a loopback port for `host`'s app."""
    token = secrets.token_urlsafe(32)
    site = build_site(
        host.runtime.app, webui_dir(), token=token, peers=host.runtime.peers, trusted_hosts=trusted
    )
    server = LoopbackServer(site, bind_socket("127.0.0.1", 0))
    ready = asyncio.Event()
    task = asyncio.create_task(server.serve(on_ready=ready.set))
    await asyncio.wait_for(ready.wait(), 10)
    try:
        yield f"http://127.0.0.1:{server.port}", token, server.port
    finally:
        server.stop()
        await asyncio.wait_for(task, 10)


@pytest.fixture
async def trusted_site(host: Host) -> AsyncIterator[tuple[str, str, int]]:
    async with served(host, (TRUSTED,)) as site:
        yield site


async def test_a_trusted_host_browser_may_not_open_type_into_or_read_a_terminal(
    host: Host, trusted_site: tuple[str, str, int], tmp_path: Path
) -> None:
    base_url, token, port = trusted_site
    window = host.client()  # the desktop window's path: no fence, privileged
    folder = tmp_path / "project"
    folder.mkdir()
    sid = await host.create(folder)

    async with httpx.AsyncClient(base_url=base_url, timeout=WAIT) as raw:
        headers = {
            "host": f"{TRUSTED}:{port}",
            "authorization": f"Bearer {token}",
            "content-type": "application/json",
        }
        for method, payload in {
            "terminal.open": {"sessionId": sid, "cols": 80, "rows": 24},
            "terminal.list": {"sessionId": sid},
        }.items():
            body = json.dumps({"type": "client-request", "rpcId": "r", "method": method, "payload": payload})
            refused = await raw.post(f"/api/{method}", content=body, headers=headers)
            assert refused.status_code == 403, method
    assert host.engine.terminals._terminals == {}  # nothing was started

    browser = TrustedHostClient(base_url, token, port)
    try:
        assert (await ok(browser, FILES_TREE, {"sessionId": sid})).entries == []  # the API still answers
        async with (
            Frames(browser.stream("events.mux")) as seen_by_browser,
            Frames(window.stream("events.mux")) as seen_by_window,
        ):
            tid = (await ok(window, TERMINAL_OPEN, {"sessionId": sid, "cols": 80, "rows": 24})).terminal_id
            for handle in (TERMINAL_INPUT, TERMINAL_ATTACH):
                payload = (
                    {"terminalId": tid, "data": "id\n"} if handle is TERMINAL_INPUT else {"terminalId": tid}
                )
                body = json.dumps(
                    {"type": "client-request", "rpcId": "r", "method": handle.key, "payload": payload}
                )
                async with httpx.AsyncClient(base_url=base_url, timeout=WAIT) as raw:
                    answer = await raw.post(
                        f"/api/{handle.key}",
                        content=body,
                        headers={
                            "host": f"{TRUSTED}:{port}",
                            "authorization": f"Bearer {token}",
                            "content-type": "application/json",
                        },
                    )
                assert answer.status_code == 403, handle.key
            await ok(window, TERMINAL_INPUT, {"terminalId": tid, "data": "echo secret-$((6*7))\n"})
            printed = b""
            while b"secret-42" not in printed:
                _, frame = await seen_by_window.next(ftype("terminal/output"))
                printed += base64.b64decode(frame.data)
            # a frame both streams carry, published after the output: the browser's stream got
            # that far, and left out every terminal frame before it
            await ok(window, FILES_TREE, {"sessionId": sid})  # starts the folder's watch
            (folder / "after.txt").write_text("x")
            await seen_by_browser.next(ftype("files/changed", sid))
            assert not [f for _, f in seen_by_browser.items if getattr(f, "type", "") == "terminal/output"]
    finally:
        await browser.aclose()


async def test_no_terminal_without_the_token(host: Host, tmp_path: Path) -> None:
    """Over HTTP a terminal needs the launch's token, even from this machine with a loopback
    Host (the carriers without one are the window's bridge and the ACP relay, both this user's
    own processes: docs/threat-model.md, "The person's terminal"); with it, the same request
    opens one."""
    folder = tmp_path / "project"
    folder.mkdir()
    sid = await host.create(folder)
    body = json.dumps(
        {
            "type": "client-request",
            "rpcId": "r",
            "method": "terminal.open",
            "payload": {"sessionId": sid, "cols": 80, "rows": 24},
        }
    )
    async with (
        served(host, ()) as (base_url, token, port),
        httpx.AsyncClient(base_url=base_url, timeout=WAIT) as raw,
    ):
        headers = {"host": f"127.0.0.1:{port}", "content-type": "application/json"}
        for auth in ({}, {"authorization": f"Bearer {token[:-2]}xx"}):
            refused = await raw.post("/api/terminal.open", content=body, headers={**headers, **auth})
            assert refused.status_code == 401, auth
        mux = await raw.get("/api/events.mux", headers={"host": f"127.0.0.1:{port}"})
        assert mux.status_code == 401
        assert host.engine.terminals._terminals == {}
        opened = await raw.post(
            "/api/terminal.open", content=body, headers={**headers, "authorization": f"Bearer {token}"}
        )
        assert opened.status_code == 200 and opened.json()["result"]["ok"] is True
        assert len(host.engine.terminals._terminals) == 1
