"""`host.focus` (docs/decisions/performance-under-load.md): an `events.mux` stream names itself
first (`stream/opened`); once its page says which sessions it shows, the stream carries streamed
chunks of those sessions only, and every other frame of every session as before."""

from __future__ import annotations

import asyncio
from typing import Any

from contract.methods import HOST_FOCUS
from tests.api.conftest import Host
from tests.api.support import err, event, events_of, ok, run_turn
from tests.support.scripted_llm import Reply, ScriptedLlmServer

ANSWER = "streamed in many small deltas to every reader that shows it"


def chunks(frames: list[Any], sid: str) -> list[Any]:
    return [e for e in events_of(frames, sid) if e.type == "assistant/chunk"]


async def test_a_focused_stream_carries_only_the_shown_sessions_chunks(
    host: Host, llm: ScriptedLlmServer
) -> None:
    client = host.client()
    shown, hidden = await host.create(), await host.create()
    focused, whole = await host.mux(client), await host.mux(host.client())
    name = await focused.named()
    assert name.startswith("mux-") and name != await whole.named()
    answer = await ok(client, HOST_FOCUS, {"streamId": name, "sessionIds": [shown]})
    assert answer.open is True

    llm.enqueue(Reply(text=ANSWER))
    await run_turn(client, focused, hidden, "off screen")
    await whole.next(event("turn/end", hidden))
    assert len(chunks(whole.frames, hidden)) > 1  # the turn did stream, to the unfocused reader
    assert chunks(focused.frames, hidden) == []
    kept = [e.type for e in events_of(focused.frames, hidden)]
    assert {"user/message", "assistant/message", "turn/end"} <= set(kept)  # the rest still comes
    message = next(e for e in events_of(focused.frames, hidden) if e.type == "assistant/message")
    assert ANSWER in str(message.data)

    llm.enqueue(Reply(text=ANSWER))
    await run_turn(client, focused, shown, "on screen")
    await whole.next(event("turn/end", shown))
    assert [c.seq for c in chunks(focused.frames, shown)] == [c.seq for c in chunks(whole.frames, shown)]
    assert chunks(focused.frames, shown)

    # showing nothing: no session's chunks; switching back: that session's again
    await ok(client, HOST_FOCUS, {"streamId": name, "sessionIds": []})
    start = len(focused.items)
    llm.enqueue(Reply(text=ANSWER))
    await run_turn(client, focused, shown, "nothing shown")
    assert chunks(focused.since(start), shown) == []


async def test_focus_of_a_stream_that_is_not_open(host: Host) -> None:
    client = host.client()
    mux = await host.mux(client)
    stream_id = await mux.named()
    assert (await ok(client, HOST_FOCUS, {"streamId": stream_id, "sessionIds": []})).open is True
    answer = await ok(client, HOST_FOCUS, {"streamId": "mux-gone", "sessionIds": []})
    assert answer.open is False
    await mux.close()
    for _ in range(100):  # the stream's end reaches the host a moment after the client closes
        if not (await ok(client, HOST_FOCUS, {"streamId": stream_id, "sessionIds": []})).open:
            break
        await asyncio.sleep(0.05)
    else:
        raise AssertionError("a closed stream still takes a focus")


async def test_bad_focus_is_refused(host: Host) -> None:
    client = host.client()
    await err(client, HOST_FOCUS, {"streamId": "", "sessionIds": []}, "bad-request")
    await err(client, HOST_FOCUS, {"streamId": "m", "sessionIds": ["s"] * 65}, "bad-request")
    await err(client, HOST_FOCUS, {"streamId": "m"}, "bad-request")
