"""Streams keep up: 50 SSE readers over real HTTP at 500 deltas/s all get every character, in
order, while one stalled reader is cut off (and only it) without slowing them. (Deltas that arrive
while a commit runs travel as one chunk event, so readers compare text, not event counts.)"""

from __future__ import annotations

import asyncio
import json
import sys
import textwrap
from pathlib import Path
from typing import Any

from host.fetch import InProcessApiClient
from tests.api.conftest import open_test_host
from tests.api.support import ROOT, event, prompt
from tests.support.scripted_llm import Reply

READERS = 50
CHUNKS = 1500
RATE = 500.0
TEXT_LINE = 1 << 24
"""The readers print what they read (every reader's text) as one line."""

READER_SCRIPT = textwrap.dedent(
    """
    import asyncio, json, re, sys
    import httpx

    base, token, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    SEQ = re.compile(rb'"event":\\s*\\{"type":\\s*"([^"]+)",\\s*"seq":\\s*(\\d+)')

    async def read(client, ready, results):
        found = {"text": [], "last": -1, "ordered": True, "ended": False, "errors": 0}
        headers = {"Authorization": "Bearer " + token}
        async with client.stream("GET", base + "/api/events.mux", headers=headers) as response:
            ready.append(1)
            async for line in response.aiter_lines():
                if not line.startswith("data: "):
                    continue
                raw = line[6:].encode()
                if b'"stream/error"' in raw:
                    found["errors"] += 1
                    break
                match = SEQ.search(raw)
                if match is None:
                    continue
                etype, seq = match.group(1).decode(), int(match.group(2))
                if found["last"] >= 0 and seq != found["last"] + 1:
                    found["ordered"] = False
                found["last"] = seq
                if etype == "assistant/chunk" and b'"text-delta"' in raw:
                    found["text"].append(json.loads(raw)["payload"]["event"]["data"]["chunk"]["text"])
                elif etype == "turn/end":
                    found["ended"] = True
                    break
        found["text"] = "".join(found["text"])
        results.append(found)

    async def main():
        ready, results = [], []
        limits = httpx.Limits(max_connections=count + 5)
        async with httpx.AsyncClient(timeout=httpx.Timeout(120.0), limits=limits) as client:
            tasks = [asyncio.create_task(read(client, ready, results)) for _ in range(count)]
            while len(ready) < count:
                await asyncio.sleep(0.05)
            print("READY", flush=True)
            await asyncio.wait(tasks, timeout=180)
        print(json.dumps(results), flush=True)

    asyncio.run(main())
    """
)


async def test_fifty_readers_at_500_chunks_per_second_and_one_stalled(
    tmp_path: Path, scripted_llm: Any
) -> None:
    host = await open_test_host("http", tmp_path, scripted_llm.base_url)
    try:
        host.engine.parts.bus.stall_after = 3.0  # a short stall bound so the test sees the cut
        sid = await host.create()
        stalled_client = InProcessApiClient(host.apps["default"])
        stalled = stalled_client.stream("events.mux")
        await stalled.open()  # subscribed, then never read until the end

        readers = await asyncio.create_subprocess_exec(
            sys.executable,
            "-c",
            READER_SCRIPT,
            str(host.base_url),
            str(host.token),
            str(READERS),
            stdout=asyncio.subprocess.PIPE,
            cwd=ROOT,
            limit=TEXT_LINE,
        )
        assert readers.stdout is not None
        assert (await asyncio.wait_for(readers.stdout.readline(), 60)).strip() == b"READY"

        sent = "abcdefgh" * CHUNKS
        scripted_llm.enqueue(Reply(text=sent, chunk_size=8, delay=1 / RATE))
        watcher = await host.mux()
        await prompt(host.client(), sid, "stream a lot")
        await watcher.next(event("turn/end", sid), within=120)

        out = await asyncio.wait_for(readers.stdout.readline(), 180)
        await asyncio.wait_for(readers.wait(), 30)
        results = json.loads(out)
        assert len(results) == READERS
        for found in results:  # every reader got the whole turn, in order, without being cut
            assert found == {
                "text": sent,
                "last": found["last"],
                "ordered": True,
                "ended": True,
                "errors": 0,
            }

        leftover = [frame async for _, frame in stalled]
        assert leftover[-1].type == "stream/error" and "behind" in leftover[-1].error.message
        chunks = [
            f.event.data["chunk"]
            for f in leftover
            if f.type == "session/event" and f.event.type == "assistant/chunk"
        ]
        got = "".join(c["text"] for c in chunks if c["type"] == "text-delta")
        assert len(got) < len(sent)  # it was cut off, not fed the whole stream
        await stalled_client.aclose()
    finally:
        await host.close()


async def test_a_burst_of_5000_chunks_reaches_a_reader_that_keeps_reading(
    tmp_path: Path, scripted_llm: Any
) -> None:
    """A burst as fast as loopback allows: the reader is never cut off for its size."""
    host = await open_test_host("http", tmp_path, scripted_llm.base_url)
    try:
        sid = await host.create()
        reader = await asyncio.create_subprocess_exec(
            sys.executable, "-c", READER_SCRIPT, str(host.base_url), str(host.token), "1",
            stdout=asyncio.subprocess.PIPE, cwd=ROOT, limit=TEXT_LINE,
        )  # fmt: skip
        assert reader.stdout is not None
        assert (await asyncio.wait_for(reader.stdout.readline(), 60)).strip() == b"READY"
        scripted_llm.enqueue(Reply(text="burst!" * 5000, chunk_size=6))  # 5,000 deltas
        await prompt(host.client(), sid, "burst")
        [found] = json.loads(await asyncio.wait_for(reader.stdout.readline(), 180))
        await asyncio.wait_for(reader.wait(), 30)
        assert found["text"] == "burst!" * 5000  # every character, in order (the events may be fewer)
        assert (found["ordered"], found["ended"], found["errors"]) == (True, True, 0)
    finally:
        await host.close()
