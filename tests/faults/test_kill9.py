"""kill -9 of `harnessdesk serve` at random points of a scripted multi-turn run: every event a
client was shown, and every prompt `session.prompt` accepted, is still there after the restart
(durable before visible); input still queued at the kill runs when the host starts again.

Each serve is a fresh process forked from tests/support/warm_cli.py (the app imported once), so 20
kills and restarts fit the fault suite's time budget."""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from contract.methods import SESSION_CREATE, SESSION_HISTORY, SESSION_LIST, SESSION_PROMPT, AnyMethod
from tests.api.support import LISTENING, cli_env
from tests.support.scripted_llm import Reply
from tests.support.warm_cli import Forked, WarmCli

KILLS = 20
SEED = int(os.environ.get("HARNESSDESK_FAULT_SEED", "1515"))


class Zygote:
    """`harnessdesk serve` forked from the warm interpreter (tests/support/warm_cli.py), for an
    asyncio test: `serve()` starts a fresh one in `cwd`, `wait()` reaps it."""

    def __init__(self, warm: WarmCli, cwd: Path, logs: Path) -> None:
        self.warm = warm
        self.cwd = cwd
        self.logs = logs
        self.runs = 0
        self.live: dict[int, Forked] = {}
        """Serve children not yet reaped (killed at close, should the test fail mid-run)."""

    @classmethod
    async def start(cls, cwd: Path, logs: Path) -> Zygote:
        return cls(WarmCli(cli_env()), cwd, logs)

    async def serve(self, *args: str) -> Served:
        self.runs += 1
        out = self.logs / f"serve-{self.runs}.log"  # stdout and stderr in one log
        child = await asyncio.to_thread(self.warm.start, ["serve", *args], self.cwd, cli_env(), out, out)
        self.live[child.pid] = child
        for _ in range(3000):  # a file read per poll: cheap, so poll often (within 30 s)
            text = out.read_text() if out.exists() else ""
            first = text.split("\n", 1)[0] if "\n" in text else ""  # a whole line, never half a token
            match = LISTENING.match(first)
            if match:
                return Served(child.pid, out, match.group(1), match.group(3))
            await asyncio.sleep(0.01)
        raise AssertionError(f"serve did not start: {out.read_text() if out.exists() else ''}")

    async def wait(self, pid: int) -> int:
        return await asyncio.to_thread(self.live.pop(pid).wait, 60)

    async def close(self) -> None:
        for child in list(self.live.values()):  # a failed run leaves no server behind
            child.kill()
            await self.wait(child.pid)
        await asyncio.to_thread(self.warm.close)


@dataclass
class Served:
    pid: int
    log: Path
    base_url: str
    token: str


class Client:
    """Plain HTTP against the served host: calls, and the mux read as raw JSON (cheap)."""

    def __init__(self, served: Served) -> None:
        self.base = served.base_url
        self.http = httpx.AsyncClient(
            timeout=httpx.Timeout(30.0), headers={"Authorization": f"Bearer {served.token}"}
        )
        self.calls = 0

    async def call(self, method: AnyMethod, payload: dict[str, Any]) -> Any:
        self.calls += 1
        body = {"type": "client-request", "rpcId": f"r{self.calls}", "method": method.key, "payload": payload}
        response = await self.http.post(f"{self.base}/api/{method.key}", json=body)
        response.raise_for_status()
        result = response.json()["result"]
        assert result["ok"], result
        return result["value"]

    async def history(self, sid: str) -> list[dict[str, Any]]:
        page = await self.call(SESSION_HISTORY, {"sessionId": sid, "maxMessages": 10_000})
        assert not page["hasMore"]
        return [entry["event"] for entry in page["events"]]


def fingerprint(event: dict[str, Any]) -> str:
    """What must survive exactly: type, time, data and the seqs it names."""
    kept = {k: event.get(k) for k in ("type", "time", "data", "sourceEventSeqs", "surfaceOp")}
    return json.dumps(kept, sort_keys=True)


async def watch(client: Client, seen: dict[str, dict[int, str]], started: asyncio.Event) -> None:
    """Record every session/event the mux shows until the connection dies."""
    try:
        async with client.http.stream("GET", f"{client.base}/api/events.mux", timeout=None) as response:
            started.set()
            async for line in response.aiter_lines():
                if not line.startswith("data: "):
                    continue
                frame = json.loads(line[6:])["payload"]
                if frame.get("type") == "session/event":
                    event = frame["event"]
                    seen.setdefault(frame["sessionId"], {})[event["seq"]] = fingerprint(event)
    except (httpx.HTTPError, json.JSONDecodeError):
        return  # the server was killed mid-frame


async def settled(client: Client, sids: set[str]) -> None:
    """Wait until none of `sids` runs a turn: input queued before the kill runs again at start."""
    for _ in range(600):
        summaries = (await client.call(SESSION_LIST, {}))["items"]
        if not any(s["running"] for s in summaries if s["sessionId"] in sids):
            return
        await asyncio.sleep(0.05)
    raise AssertionError("a resumed session kept running")


async def verify(
    client: Client,
    seen: dict[str, dict[int, str]],
    accepted: dict[str, list[str]],
    only: set[str] | None = None,
) -> int:
    """Every event seen is in the history, identical; every accepted prompt is there; the log is
    contiguous and closed."""
    await settled(client, set(seen) | set(accepted) if only is None else only)
    checked = 0
    for sid in set(seen) | set(accepted):
        if only is not None and sid not in only:
            continue
        events = seen.get(sid, {})
        history = await client.history(sid)
        logged = json.dumps(history)
        lost = [text for text in accepted.get(sid, []) if f'"{text}"' not in logged]
        assert not lost, f"{sid}: accepted prompts lost after kill -9: {lost}"
        assert [e["seq"] for e in history] == list(range(len(history)))
        stored = {e["seq"]: fingerprint(e) for e in history}
        for seq, print_ in events.items():
            assert stored.get(seq) == print_, f"{sid}: seq {seq} changed or lost after kill -9"
            checked += 1
        starts = sum(1 for e in history if e["type"] == "turn/start")
        assert starts == sum(1 for e in history if e["type"] == "turn/end")  # repaired on load
    return checked


def replies(rng: random.Random, workdir: Path) -> list[Reply]:
    out = []
    for _ in range(3):
        words = " ".join(rng.choice(["alpha", "beta", "gamma", "delta"]) for _ in range(rng.randint(40, 160)))
        calls = []
        if rng.random() < 0.4:
            calls = [(f"call-{rng.randrange(10**9)}", "read_file", json.dumps({"path": "notes.txt"}))]
        out.append(Reply(text=words, chunk_size=rng.randint(2, 6), delay=0.002, tool_calls=calls))
        if calls:
            out.append(Reply(text="done reading", delay=0.002))
    return out


async def test_kill_9_at_random_points_loses_no_event_a_client_saw(tmp_path: Path, scripted_llm: Any) -> None:
    rng = random.Random(SEED)
    data = tmp_path / "data"
    workdir = tmp_path / "work"
    workdir.mkdir()
    (workdir / "notes.txt").write_text("the notes\n" * 20)
    flags = ("--data-dir", str(data), "--provider", "openai-compatible", "--base-url", scripted_llm.base_url)
    seen: dict[str, dict[int, str]] = {}
    accepted: dict[str, list[str]] = {}
    """Per session: the text of every prompt whose `session.prompt` was answered."""
    sessions: list[str] = []
    touched: set[str] = set()
    zygote = await Zygote.start(workdir, tmp_path)
    try:
        for kill in range(KILLS):
            served = await zygote.serve(*flags, "--model", "m")
            client = Client(served)
            try:
                await verify(client, seen, accepted, touched)  # a kill can only hurt the session it ran
                scripted_llm.reset()
                scripted_llm.enqueue(*replies(rng, workdir))
                started = asyncio.Event()
                watcher = asyncio.create_task(watch(client, seen, started))
                await asyncio.wait_for(started.wait(), 30)
                durable = [sid for sid in sessions if seen.get(sid)]  # a lazy session may not be written yet
                if not durable or rng.random() < 0.3:
                    sid = (await client.call(SESSION_CREATE, {"cwd": str(workdir)}))["sessionId"]
                    sessions.append(sid)
                else:
                    sid = rng.choice(durable)
                touched = {sid}
                for n in range(rng.randint(1, 3)):
                    content = [{"type": "text", "text": f"prompt {kill}.{n}"}]
                    await client.call(SESSION_PROMPT, {"sessionId": sid, "mode": "queue", "content": content})
                    accepted.setdefault(sid, []).append(f"prompt {kill}.{n}")
                await asyncio.sleep(rng.uniform(0.0, 1.2))
                os.kill(served.pid, signal.SIGKILL)
                assert await zygote.wait(served.pid) == -signal.SIGKILL
                await asyncio.wait_for(watcher, 10)
            finally:
                await client.http.aclose()
        served = await zygote.serve(*flags, "--model", "m")  # the last restart checks the last kill
        client = Client(served)
        try:
            checked = await verify(client, seen, accepted)  # and at the end, everything
        finally:
            await client.http.aclose()
        os.kill(served.pid, signal.SIGTERM)
        assert await zygote.wait(served.pid) == 0
        assert "Traceback" not in served.log.read_text()
    finally:
        await zygote.close()
    assert checked > 200, f"only {checked} events were seen in {KILLS} runs"
