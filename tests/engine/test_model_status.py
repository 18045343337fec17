"""The built-in model loads on the first local turn, announced on `events.host` (the UI's
"loading model" banner), and a subscriber that connects mid-load hears `loading` first."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from contract.frames import HostModelStatus
from contract.methods import SESSION_CREATE, SESSION_PROMPT
from host.api import open_host
from host.engine.llm import local
from host.engine.llm.overrides import RuntimeOverrides
from host.fetch.inprocess import InProcessApiClient
from tests.api.support import ok

pytestmark = pytest.mark.model


async def next_status(frames: Any) -> HostModelStatus:
    async with asyncio.timeout(120):
        async for _, frame in frames:
            if isinstance(frame, HostModelStatus):
                return frame
    raise AssertionError("the host stream ended")


async def test_first_local_turn_announces_loading_then_ready(tmp_path: Path) -> None:
    local._shared.shutdown()  # this process may have loaded the model in an earlier test
    assert local.model_state() != "ready"
    runtime = await open_host(tmp_path / "data", RuntimeOverrides(provider="local"))
    client = InProcessApiClient(runtime.app)
    try:
        async with client.stream("events.host") as early:
            sid = (await ok(client, SESSION_CREATE, {"cwd": str(tmp_path)})).session_id
            # hold the loader on its lock so the load is observably in progress
            local._shared._lock.acquire()
            try:
                content = [{"type": "text", "text": "Say hi."}]
                prompt = {"sessionId": sid, "mode": "queue", "content": content}
                assert (await client.call(SESSION_PROMPT, prompt)).result.ok
                first = await next_status(early)
                assert (first.model, first.state) == (local.MODEL_ID, "loading")
                assert local.model_state() == "loading"
                async with client.stream("events.host") as late:  # a page opened mid-load
                    assert (await next_status(late)).state == "loading"
                    local._shared._lock.release()
                    assert (await next_status(late)).state == "ready"
            finally:
                if local._shared._lock.locked():
                    local._shared._lock.release()
            assert (await next_status(early)).state == "ready"
            assert local.model_state() == "ready"
        async with client.stream("events.host") as after:  # loaded: nothing to replay
            sid2 = (await ok(client, SESSION_CREATE, {"cwd": str(tmp_path)})).session_id
            async with asyncio.timeout(30):
                async for _, frame in after:
                    assert not isinstance(frame, HostModelStatus)
                    if getattr(frame, "session_id", None) == sid2:
                        break
    finally:
        await runtime.close()


def test_opening_the_host_imports_neither_the_model_runtime_nor_a_gui_toolkit(tmp_path: Path) -> None:
    """`serve` and the window's host start without llama.cpp or Qt (docs/decisions.md,
    "Performance and packaging"): the model runtime is imported on the first local turn."""
    import subprocess
    import sys

    probe = (
        "import asyncio, sys; from pathlib import Path; from host.api import open_host\n"
        "from host.engine.llm.overrides import RuntimeOverrides\n"
        "async def main():\n"
        f"    rt = await open_host(Path({str(tmp_path)!r}), RuntimeOverrides(provider='local'))\n"
        "    await rt.engine.sessions.list_sessions(); await rt.close()\n"
        "asyncio.run(main())\n"
        "heavy = {'xllamacpp', 'llama_cpp', 'gi', 'webview'}\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & heavy))"
    )
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, "-c", probe], cwd=root, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "[]"
