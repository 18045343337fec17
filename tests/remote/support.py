"""A local host whose HOME is the loopback sshd's client home, and what the remote tests read on
the remote side (its files, its processes) as the machine itself sees them."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import time
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from contract.errors import RpcError
from contract.methods import AnyMethod, Method, Req, Val
from contract.rpc import RpcErr, RpcOk
from host.api import HostRuntime, open_host
from host.engine.llm.overrides import RuntimeOverrides
from host.engine.workspaces.remotes import bootstrap
from host.engine.workspaces.remotes.wheels import Wheel
from host.fetch import InProcessApiClient
from tests.api.support import Frames, ftype
from tests.support.scripted_llm import ScriptedLlmServer
from tests.support.sshd import Sshd

MODEL = "scripted-small"
CONNECT = 300.0
"""Bound for a first connection: it brings and installs the server (~40 s here, more when loaded)."""
RECONNECT = 60.0


@dataclass
class Local:
    """The laptop's host, reached as the window reaches it (the in-process client)."""

    runtime: HostRuntime
    client: InProcessApiClient
    mux: Frames
    host: Frames
    data_dir: Path
    opened: list[Frames] = field(default_factory=list)

    async def call(self, method: Method[Req, Val], payload: Req | Mapping[str, Any] | None = None) -> Val:
        response = await self.client.call(method, payload or {})
        assert isinstance(response.result, RpcOk), (method.key, response.result)
        return response.result.value

    async def error(self, method: AnyMethod, payload: Mapping[str, Any], code: str) -> RpcError:
        response = await self.client.call(method, payload)
        assert isinstance(response.result, RpcErr), (method.key, response.result)
        assert response.result.error.code == code, response.result.error
        return response.result.error

    async def status(self, host_id: str, state: str, within: float = RECONNECT) -> None:
        """Until the host stream and the mux both said `host/remote-status {state}`."""
        for frames in (self.host, self.mux):
            await frames.next(
                lambda f: ftype("host/remote-status")(f) and f.host_id == host_id and f.state == state, within
            )

    async def close(self) -> None:
        for frames in (self.mux, self.host, *self.opened):
            await frames.close()
        await self.client.aclose()
        await self.runtime.close()


WHEELS: dict[tuple[str, str], Wheel] = {}
"""The repacked dependency wheels of this test process, shared by every local host it opens
(docs/decisions/what-a-test-run-repeats.md): a host keeps them by name and version for its whole run,
as the app does; a test's host is one of many runs of the same installed distributions, so
each would repack the same files again (seconds of CPU per host). The project's own wheel is
still made from its source by every host, and the bundle's key from all of them."""


def share_the_wheels(monkeypatch: pytest.MonkeyPatch) -> None:
    real = bootstrap.build_bundle
    if getattr(real, "shares_wheels", False):
        return

    def build_bundle(source: Path, cache: dict[tuple[str, str], Wheel]) -> bootstrap.Bundle:
        return real(source, WHEELS)

    build_bundle.shares_wheels = True  # type: ignore[attr-defined]
    monkeypatch.setattr(bootstrap, "build_bundle", build_bundle)


@contextlib.asynccontextmanager
async def local_host(
    sshd: Sshd, llm: ScriptedLlmServer, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[Local]:
    monkeypatch.setenv("HOME", str(sshd.client_home))
    share_the_wheels(monkeypatch)
    overrides = RuntimeOverrides(provider="openai-compatible", base_url=llm.base_url, model=MODEL)
    runtime = await open_host(data_dir, overrides)
    client = InProcessApiClient(runtime.app)
    mux = Frames(client.stream("events.mux"))
    host = Frames(client.stream("events.host"))
    await mux.__aenter__()
    await host.__aenter__()
    local = Local(runtime, client, mux, host, data_dir)
    try:
        yield local
    finally:
        await local.close()


def server_dir(sshd: Sshd) -> Path:
    return sshd.home / ".harnessdesk-server"


def server_info(sshd: Sshd) -> dict[str, Any]:
    """`run/serve.json` of the server running there ({} when there is none)."""
    try:
        return dict(json.loads((server_dir(sshd) / "run" / "serve.json").read_text()))
    except (OSError, ValueError):
        return {}


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    with contextlib.suppress(OSError):  # a zombie is gone for our purpose
        if (Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]) == "Z":
            return False
    return True


async def until(check: Any, within: float = RECONNECT, step: float = 0.1) -> None:
    deadline = time.monotonic() + within
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"not true within {within} s: {check}")
        await asyncio.sleep(step)


def master_pid(local: Local, host_id: str) -> int:
    """The local ssh master of `host_id` (the one process that holds the SSH connection)."""
    found = [
        int(entry)
        for entry in os.listdir("/proc")
        if entry.isdigit() and _is_master(int(entry), host_id, local)
    ]
    assert len(found) == 1, found
    return found[0]


def _is_master(pid: int, host_id: str, local: Local) -> bool:
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    return bool(argv) and argv[0].endswith(b"ssh") and b"ControlMaster=yes" in argv and _mine(argv, local)


def _mine(argv: list[bytes], local: Local) -> bool:
    """A master of this test's host: its ControlPath lies in this data dir's control folder."""
    from host.engine.workspaces.remotes.ssh import control_folder

    folder = str(control_folder(local.data_dir)).encode()
    return any(a.startswith(b"ControlPath=" + folder) for a in argv)
