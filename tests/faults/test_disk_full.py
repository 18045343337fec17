"""A really full disk (a small tmpfs) under `harnessdesk serve`: one clear message, the host keeps
answering, SIGTERM still works, and everything carries on once space returns. Needs root (to
mount); skipped with the reason otherwise."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import json
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from contract.methods import (
    FILES_REVERT_TURN,
    PERMISSION_SET,
    SESSION_CREATE,
    SESSION_HISTORY,
    SESSION_LIST,
    SESSION_PROMPT,
    AnyMethod,
)
from tests.api.support import start_serve
from tests.support.scripted_llm import Reply

WAIT = 60.0


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    if os.geteuid() != 0:
        pytest.skip("needs root to mount a small tmpfs (a really full disk); the page-limit case runs")
    if shutil.which("mount") is None:
        pytest.skip("no mount command on this machine")
    where = tmp_path / "small"
    where.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(where)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield where
    finally:
        if subprocess.run(["umount", str(where)], capture_output=True).returncode != 0:
            subprocess.run(["umount", "-l", str(where)], capture_output=True)


def fill_up(where: Path) -> Path:
    """Write a filler file until the disk says no more."""
    filler = where / "filler"
    block = b"\0" * 65536
    used = {str(p.relative_to(where)): p.stat().st_size for p in where.rglob("*") if p.is_file()}
    print(f"before filling: {shutil.disk_usage(where)}; files: {used}")
    # Unbuffered: a buffered file keeps the bytes a full disk refused, and its close() writes them
    # again (ENOSPC from the `with` line, once in a while: when the last write was partial).
    with open(filler, "wb", buffering=0) as fh:
        try:
            while True:
                fh.write(block)
        except OSError as exc:
            assert exc.errno == errno.ENOSPC
    with contextlib.suppress(OSError), open(where / "filler-2", "wb") as fh:
        while True:  # the last few bytes too
            fh.write(b"\0" * 512)
            fh.flush()
    return filler


class Api:
    def __init__(self, base: str, token: str) -> None:
        self.http = httpx.AsyncClient(base_url=base, headers={"Authorization": f"Bearer {token}"}, timeout=30)
        self.n = 0

    async def call(self, method: AnyMethod, payload: dict[str, Any]) -> dict[str, Any]:
        self.n += 1
        body = {"type": "client-request", "rpcId": f"r{self.n}", "method": method.key, "payload": payload}
        response = await self.http.post(f"/api/{method.key}", json=body)
        assert response.status_code == 200, response.text
        return dict(response.json()["result"])

    async def frames(self, key: str, sink: list[dict[str, Any]], subscribed: asyncio.Event) -> None:
        with contextlib.suppress(httpx.HTTPError):
            async with self.http.stream("GET", f"/api/events.{key}", timeout=None) as response:
                subscribed.set()  # the host subscribes before it sends the response head
                async for line in response.aiter_lines():
                    if line.startswith("data: "):
                        sink.append(json.loads(line[6:])["payload"])


async def until(sink: list[dict[str, Any]], pred: Any, start: int = 0) -> dict[str, Any]:
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        for frame in sink[start:]:
            if pred(frame):
                return frame
        await asyncio.sleep(0.05)
    raise AssertionError(f"not seen within {WAIT}s: {[f.get('type') for f in sink[-20:]]}")


def chunk_of(sid: str, turn: int) -> Any:
    def pred(f: dict[str, Any]) -> bool:
        e = f.get("event") or {}
        return f.get("sessionId") == sid and e.get("type") == "assistant/chunk" and e["data"]["turn"] == turn

    return pred


def turn_end(sid: str, turn: int) -> Any:
    def pred(f: dict[str, Any]) -> bool:
        e = f.get("event") or {}
        return f.get("sessionId") == sid and e.get("type") == "turn/end" and e["data"]["turn"] == turn

    return pred


async def test_a_full_disk_under_serve(small_disk: Path, tmp_path: Path, scripted_llm: Any) -> None:
    flags = ("--provider", "openai-compatible", "--base-url", scripted_llm.base_url, "--model", "m")
    served = start_serve(small_disk / "data", *flags)
    api = Api(served.base_url, served.token)
    mux: list[dict[str, Any]] = []
    hosts: list[dict[str, Any]] = []
    subscribed = [asyncio.Event(), asyncio.Event()]
    readers = [
        asyncio.create_task(api.frames("mux", mux, subscribed[0])),
        asyncio.create_task(api.frames("host", hosts, subscribed[1])),
    ]
    try:
        for event in subscribed:  # no frame of the test may go out before the readers listen
            await asyncio.wait_for(event.wait(), WAIT)
        sid = (await api.call(SESSION_CREATE, {"cwd": str(tmp_path)}))["value"]["sessionId"]
        prompt = {"sessionId": sid, "mode": "queue", "content": [{"type": "text", "text": "hello"}]}
        scripted_llm.enqueue(Reply(text="a short first answer"))
        assert (await api.call(SESSION_PROMPT, prompt))["ok"]
        await until(mux, turn_end(sid, 0))

        # The disk fills mid-turn. (Filled before the prompt, whether the prompt itself fits
        # depends on how much room the log file still has allocated: either answer is right.)
        seen_mux, seen_hosts = len(mux), len(hosts)
        scripted_llm.enqueue(Reply(text="z" * 400_000, chunk_size=400, delay=0.01))
        assert (await api.call(SESSION_PROMPT, prompt))["ok"]
        await until(mux, chunk_of(sid, 1), seen_mux)  # streaming, its chunks committed
        filler = fill_up(small_disk)
        error = await until(hosts, lambda f: f["type"] == "host/agent-error", seen_hosts)
        assert error["sessionId"] == sid and error["message"].startswith("the disk is full")
        await until(hosts, lambda f: f["type"] == "host/session-status" and not f["running"], seen_hosts)

        listed = await api.call(SESSION_LIST, {})
        assert listed["ok"] and [s["sessionId"] for s in listed["value"]["items"]] == [sid]
        assert (await api.call(SESSION_HISTORY, {"sessionId": sid}))["ok"]
        refused = await api.call(SESSION_PROMPT, prompt)
        assert not refused["ok"] and refused["error"]["code"] == "storage-error"
        assert refused["error"]["details"] == {"reason": "disk-full"}

        filler.unlink()  # space is back
        (small_disk / "filler-2").unlink(missing_ok=True)
        scripted_llm.enqueue(Reply(text="and on we go"))
        answer = await api.call(SESSION_PROMPT, prompt)
        assert answer["ok"], answer  # at once: the prompt probes the store, no waiting out the backoff
        end = await until(mux, turn_end(sid, 1))
        assert end["event"]["data"]["reason"]["kind"] == "error"
        assert end["event"]["data"]["reason"]["error"]["message"].startswith("the disk is full")
        end = await until(mux, turn_end(sid, 2))
        assert end["event"]["data"]["reason"] == {"kind": "completed"}
    finally:
        code = await asyncio.to_thread(served.stop, 20)
        for reader in readers:
            reader.cancel()
        await asyncio.gather(*readers, return_exceptions=True)
        await api.http.aclose()
    assert code == 0
    assert "Traceback" not in served.later_output


async def test_a_command_that_fills_the_disk_keeps_its_result_and_names_the_disk(
    small_disk: Path, scripted_llm: Any
) -> None:
    """The folder and the data folder share the small disk; a command fills it. The snapshot
    after it fails, and so does saving its result; the host keeps running. Once space is back
    the turn is closed with the result the command really gave, saying that it ran, that it was
    saved late and why, and which disk was full for its snapshot; Revert says why it cannot
    (issue 40, items 6 and 8: it said "The host stopped while this tool was running")."""
    flags = ("--provider", "openai-compatible", "--base-url", scripted_llm.base_url, "--model", "m")
    served = start_serve(small_disk / "data", *flags)
    api = Api(served.base_url, served.token)
    mux: list[dict[str, Any]] = []
    hosts: list[dict[str, Any]] = []
    subscribed = [asyncio.Event(), asyncio.Event()]
    readers = [
        asyncio.create_task(api.frames("mux", mux, subscribed[0])),
        asyncio.create_task(api.frames("host", hosts, subscribed[1])),
    ]
    work = small_disk / "work"
    work.mkdir()
    (work / "a.txt").write_text("hello\n")
    try:
        for event in subscribed:
            await asyncio.wait_for(event.wait(), WAIT)
        sid = (await api.call(SESSION_CREATE, {"cwd": str(work)}))["value"]["sessionId"]
        full = {"sessionId": sid, "preset": "danger-full-access", "confirmFullAccess": True}
        assert (await api.call(PERMISSION_SET, full))["ok"]  # runs unasked (no sandbox in tests)
        command = "cat /dev/zero > big.bin; echo the command went on"
        scripted_llm.enqueue(
            Reply(tool_calls=[("b1", "bash", json.dumps({"command": command}))]), Reply(text="done")
        )
        prompt = {"sessionId": sid, "mode": "queue", "content": [{"type": "text", "text": "fill it"}]}
        assert (await api.call(SESSION_PROMPT, prompt))["ok"]
        error = await until(hosts, lambda f: f["type"] == "host/agent-error")
        assert error["sessionId"] == sid and error["message"].startswith("the disk is full")
        await until(hosts, lambda f: f["type"] == "host/session-status" and not f["running"])
        (work / "big.bin").unlink()  # space is back: the recovery closes the turn
        end = await until(mux, turn_end(sid, 0))
        assert end["event"]["data"]["reason"]["kind"] == "error"

        history = (await api.call(SESSION_HISTORY, {"sessionId": sid}))["value"]["events"]
        [result] = [e["event"]["data"] for e in history if e["event"]["type"] == "tool/result"]
        text = result["message"]["content"][0]["content"]
        snapshots = small_disk / "data" / "snapshots"
        assert "The host stopped" not in text and result.get("error") is None, result
        assert text.startswith("cat: write error: No space left on device\nthe command went on\n"), text
        assert "the host kept running and the tool ran to its end" in text
        assert f"the disk holding {snapshots} (the disk mounted at {small_disk}) is full" in text
        assert result["snapshotError"].startswith(f"the disk holding {snapshots} (the disk mounted at")
        refused = await api.call(FILES_REVERT_TURN, {"sessionId": sid, "turn": 0})
        assert not refused["ok"] and refused["error"]["code"] == "revert-unavailable", refused
        assert refused["error"]["details"]["unrecorded"] == result["snapshotError"]
        assert refused["error"]["message"].startswith("Cannot revert this turn: what its shell commands")
    finally:
        code = await asyncio.to_thread(served.stop, 20)
        for reader in readers:
            reader.cancel()
        await asyncio.gather(*readers, return_exceptions=True)
        await api.http.aclose()
    assert code == 0
    assert "Traceback" not in served.later_output
