"""Finding 5 (and the lone-surrogate search of 8): one lone surrogate poisoned a session.

A non-UTF-8 file name listed by `list_dir`, a model's `"\\ud800"` escape or a prompt's made the
store write fail, ended every open event stream and lost everything after it at the next
restart. Text is now normalised where it enters (file names, adapter output, request bodies),
and the store and the JSON/SSE encoder never fail on an unencodable character.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from contract.events import SessionEvent
from contract.methods import SESSION_FORK, SESSION_HISTORY, SESSION_SEARCH
from host.engine.store import SessionHeader, SqliteStore
from host.fetch.inbound import json_bytes, parse_json
from host.textsafe import clean_json, clean_text
from tests.api.conftest import open_test_host
from tests.api.support import event, ok, page_events, prompt, raw
from tests.support.scripted_llm import Reply, ScriptedLlmServer


def test_clean_json_copies_only_what_it_changes() -> None:
    sound = {"messages": [{"role": "user", "content": [{"type": "text", "text": "héllo"}]}], "n": 1}
    assert clean_json(sound) is sound  # a whole model request: no second copy
    poisoned = {"a": [1, "ok", "x\udce9"], "b": {"k\ud800": "v"}, "c": sound}
    cleaned = clean_json(poisoned)
    assert cleaned == {"a": [1, "ok", "x\ufffd"], "b": {"k\ufffd": "v"}, "c": sound}
    assert cleaned["c"] is sound and list(cleaned) == ["a", "b", "c"]
    assert poisoned["a"][2] == "x\udce9"  # the input is left as it was


def test_clean_text_replaces_lone_surrogates_and_joins_pairs() -> None:
    assert clean_text("caf\udce9") == "caf\ufffd"
    assert clean_text("\ud83d\ude00") == "😀"  # a pair spelt as two code points
    plain = "plain ünïcode"
    assert clean_text(plain) is plain
    assert json_bytes({"a": "x\ud800y"}) == '{"a":"x\ufffdy"}'.encode()
    assert parse_json(b'{"q":"\\ud800"}') == {"q": "\ufffd"}


async def test_the_store_never_fails_on_a_lone_surrogate(tmp_path: Path) -> None:
    store = SqliteStore.in_dir(tmp_path)
    await store.open()
    store.register(SessionHeader(id="s-1", created_at=1, cwd=str(tmp_path)))
    poisoned = SessionEvent(type="note", seq=0, time=1, data={"text": "bad \udce9 name"})
    store.append("s-1", [poisoned])
    store.append("s-1", [SessionEvent(type="note", seq=1, time=2, data={"text": "after"})])
    await store.flush()
    await store.close()
    reopened = SqliteStore.in_dir(tmp_path)
    await reopened.open()
    try:
        events = await reopened.events("s-1")
        assert [e.data["text"] for e in events] == ["bad \ufffd name", "after"]  # nothing lost after it
    finally:
        await reopened.close()


async def test_a_non_utf8_name_a_model_escape_and_a_prompt_leave_the_session_whole(
    tmp_path: Path, llm: ScriptedLlmServer
) -> None:
    host = await open_test_host("inprocess", tmp_path, llm.base_url)
    sid = ""
    try:
        os.close(os.open(os.path.join(os.fsencode(host.workdir), b"caf\xe9.txt"), os.O_CREAT | os.O_WRONLY))
        client = host.client()
        mux = await host.mux(client)
        other = await host.host_stream(client)
        sid = await host.create()
        llm.enqueue(
            Reply(tool_calls=[("c1", "list_dir", json.dumps({}))]),
            Reply(text="model says \ud800 here"),
        )
        # a prompt whose JSON escapes spell a lone surrogate, sent as raw bytes
        body = json.dumps(
            {
                "type": "client-request",
                "rpcId": "r-raw",
                "method": "session.prompt",
                "payload": {
                    "sessionId": sid,
                    "mode": "queue",
                    "content": [{"type": "text", "text": "hi \udce9"}],
                },
            }
        ).encode()
        answer = await raw(client, "POST", "/api/session.prompt", {"content-type": "application/json"}, body)
        assert answer.status == 200 and json.loads(answer.body)["result"]["ok"] is True
        _, listed = await mux.next(event("tool/result", sid))
        assert "caf\ufffd.txt" in json.dumps(listed.event.data, ensure_ascii=False)
        _, end = await mux.next(event("turn/end", sid))
        assert end.event.data["reason"] == {"kind": "completed"}
        llm.enqueue(Reply(text="second turn fine"))
        await prompt(client, sid, "again")  # the poisoned history still goes to the model
        _, end = await mux.next(event("turn/end", sid))
        assert end.event.data["reason"] == {"kind": "completed"}
        assert not mux.ended and not other.ended  # no stream was killed on the way
        hits = await client.call(SESSION_SEARCH, {"query": "\udce9 here"})
        assert hits.result.ok  # a lone surrogate in a search: an answer, not a 500
    finally:
        await host.close()

    again = await open_test_host("inprocess", tmp_path, llm.base_url, data_dir=host.data_dir)
    try:
        history = await ok(again.client(), SESSION_HISTORY, {"sessionId": sid})
        texts = json.dumps([e.dump() for e in page_events(history)], ensure_ascii=False)
        assert "hi \ufffd" in texts and "model says \ufffd here" in texts and "second turn fine" in texts
        assert [e.type for e in page_events(history)].count("turn/end") == 2  # nothing lost at restart
    finally:
        await again.close()


async def test_a_huge_before_seq_or_fork_anchor_is_a_bad_request(
    tmp_path: Path, llm: ScriptedLlmServer
) -> None:
    host = await open_test_host("inprocess", tmp_path, llm.base_url)
    try:
        client = host.client()
        sid = await host.create()
        for method, payload in (
            (SESSION_HISTORY, {"sessionId": sid, "beforeSeq": 2**63}),
            (SESSION_HISTORY, {"sessionId": sid, "beforeSeq": 10**30}),
            (SESSION_FORK, {"sessionId": sid, "atSeq": 2**64}),
        ):
            response = await client.call(method, payload)
            assert not response.result.ok and response.result.error.code == "bad-request", method
        assert (await client.call(SESSION_HISTORY, {"sessionId": sid, "beforeSeq": 2**63 - 1})).result.ok
    finally:
        await host.close()
