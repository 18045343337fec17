"""A subagent's session from the outside (docs/architecture.md, "Subagents"): the mutating
methods answer `agent-busy` while reads work; `subagent.list / history / prompt / interrupt` and
their errors; export with descendants and import; deleting a parent takes its children."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from typing import Any

from contract.methods import (
    JOB_LIST,
    METHODS,
    SESSION_DELETE,
    SESSION_HISTORY,
    SESSION_LIST,
    SESSION_PROMPT,
    SESSION_RENAME,
    SKILL_LIST,
    SUBAGENT_HISTORY,
    SUBAGENT_INTERRUPT,
    SUBAGENT_LIST,
    SUBAGENT_PROMPT,
)
from contract.subagents import DiagnosticChild
from host.fetch import AbstractApiClient
from tests.api.conftest import Host, open_test_host
from tests.api.support import Frames, err, event, events_of, ok, page_events, prompt, raw, run_main, text
from tests.support.scripted_llm import Reply, ScriptedLlmServer


def task(call_id: str, description: str, words: str) -> tuple[str, str, str]:
    return (call_id, "task", json.dumps({"description": description, "prompt": words}))


async def family(
    host: Host, llm: ScriptedLlmServer, client: AbstractApiClient, mux: Frames
) -> tuple[str, str]:
    """A parent whose `task` call ran one child to its answer: (parent, child)."""
    llm.enqueue(
        Reply(when="PARENT", tool_calls=[task("c1", "Look around", "CHILD: look around")]),
        Reply(when="CHILD", text="I looked."),
        Reply(when="PARENT", text="Done."),
    )
    parent = await host.create()
    await prompt(client, parent, "PARENT: delegate")
    await mux.next(event("turn/end", parent))
    await mux.seen(event("session/title", parent))  # the auto title follows the first turn
    spawned = next(e for e in events_of(mux.frames, parent) if e.type == "subagent/spawned")
    return parent, str(spawned.data["sessionId"])


async def exported_family(
    tmp_path: Path, llm_server: ScriptedLlmServer
) -> tuple[str, str, bytes, dict[str, list[dict[str, Any]]], str]:
    """A family run on a host of its own, then exported with descendants: (parent, child, the
    archive, every event of each, the folder it worked in)."""
    llm_server.reset()
    source = await open_test_host("inprocess", tmp_path / "a", llm_server.base_url)
    try:
        client = source.client()
        parent, child = await family(source, llm_server, client, await source.mux(client))
        before = {}
        for sid in (parent, child):
            page = await ok(client, SESSION_HISTORY, {"sessionId": sid, "maxMessages": 1000})
            before[sid] = [e.dump() for e in page_events(page)]
        got = await raw(client, "GET", f"/api/session.export?sessionId={parent}&includeDescendants=true")
        return parent, child, got.body, before, str(source.workdir)
    finally:
        await source.close()


async def test_a_subagent_refuses_direct_input_and_serves_reads(host: Host, llm: ScriptedLlmServer) -> None:
    client = host.client()
    mux = await host.mux(client)
    parent, child = await family(host, llm, client, mux)
    refused: dict[str, dict[str, Any]] = {
        "session.prompt": {"sessionId": child, "mode": "queue", "content": text("hi")},
        "session.cancel": {"sessionId": child},
        "session.rename": {"sessionId": child, "title": "mine"},
        "session.updateQueue": {"sessionId": child, "itemId": "x", "action": {"kind": "remove"}},
        "session.models": {"sessionId": child},
        "session.selectModel": {"sessionId": child, "provider": "local", "model": "x"},
        "session.delete": {"sessionId": child},
        "command.list": {"sessionId": child},
        "command.execute": {"sessionId": child, "line": "/plan"},
        "agentPreset.select": {"sessionId": child, "agentPreset": "read-only"},
        "goal.create": {"sessionId": child, "objective": "x"},
        "goal.edit": {"sessionId": child, "ref": {"id": "goal-x", "revision": 1}, "objective": "y"},
        "goal.pause": {"sessionId": child, "ref": {"id": "goal-x", "revision": 1}},
        "goal.resume": {"sessionId": child, "ref": {"id": "goal-x", "revision": 1}},
        "goal.complete": {"sessionId": child, "ref": {"id": "goal-x", "revision": 1}},
        "worktree.apply": {"sessionId": child},
        "worktree.merge": {"sessionId": child},
        "worktree.remove": {"sessionId": child, "keepBranch": True},
        "worktree.adopt": {"sessionId": child},
        "goal.clear": {"sessionId": child, "ref": {"id": "goal-x", "revision": 1}},
        "session.rewind": {"sessionId": child, "atSeq": 0},
    }
    # every fenced row of the map is tried here: a new one needs its sample (docs/architecture.md,
    # "Adding a unary method")
    assert set(refused) == {m.key for m in METHODS.values() if m.subagent_fenced}
    for key, payload in refused.items():
        error = await err(client, METHODS[key], payload, "agent-busy")
        assert "subagent" in error.details["reason"], key
    events = page_events(await ok(client, SESSION_HISTORY, {"sessionId": child}))
    assert [e.type for e in events if e.type == "turn/end"] == ["turn/end"]  # nothing new ran
    assert (await ok(client, JOB_LIST, {"sessionId": child})).jobs == []
    assert (await ok(client, SKILL_LIST, {"sessionId": child})).skills == []
    archive = await raw(client, "GET", f"/api/session.export?sessionId={child}")
    assert archive.status == 200
    await ok(client, SESSION_RENAME, {"sessionId": parent, "title": "still mine"})  # the parent is not fenced


async def test_subagent_methods_and_their_errors(host: Host, llm: ScriptedLlmServer) -> None:
    client = host.client()
    mux = await host.mux(client)
    parent, child = await family(host, llm, client, mux)
    other = await host.create()
    listed = await ok(client, SUBAGENT_LIST, {"parentSessionId": parent})
    assert [e.dump() for e in listed.entries] == [
        {
            "kind": "child",
            "id": child,
            "mode": "continuable",
            "activity": "inactive",
            "hasChildren": False,
            "label": "Look around",
        }
    ]
    assert (await ok(client, SUBAGENT_LIST, {"parentSessionId": other})).entries == []
    ref = {"parentSessionId": parent, "childSessionId": child}
    page = await ok(client, SUBAGENT_HISTORY, {**ref, "mode": "continuable"})
    assert [e.type for e in page_events(page)] == [
        e.type for e in page_events(await ok(client, SESSION_HISTORY, {"sessionId": child}))
    ]
    await err(client, SUBAGENT_HISTORY, {**ref, "mode": "one-shot"}, "subagent-not-found")
    missing = await err(
        client,
        SUBAGENT_HISTORY,
        {**ref, "childSessionId": other, "mode": "continuable"},
        "subagent-not-found",
    )
    assert missing.details == {"parentSessionId": parent, "childSessionId": other}
    stranger = {"parentSessionId": other, "childSessionId": child, "mode": "continuable"}
    denied = await err(client, SUBAGENT_HISTORY, stranger, "subagent-unauthorized")
    assert denied.details == {"childSessionId": child}
    await err(client, SUBAGENT_PROMPT, {**stranger, "content": text("hi")}, "subagent-unauthorized")
    await err(client, SUBAGENT_INTERRUPT, stranger, "subagent-unauthorized")
    await err(client, SUBAGENT_PROMPT, {**ref, "mode": "one-shot", "content": text("x")}, "bad-request")
    # interrupt is accepted for an idle child and for one that does not exist
    assert (await ok(client, SUBAGENT_INTERRUPT, {**ref, "mode": "continuable"})).accepted
    gone = {"parentSessionId": parent, "childSessionId": "s-gone", "mode": "continuable"}
    assert (await ok(client, SUBAGENT_INTERRUPT, gone)).accepted


async def test_a_person_messages_a_child_through_its_parent(host: Host, llm: ScriptedLlmServer) -> None:
    client = host.client()
    mux = await host.mux(client)
    parent, child = await family(host, llm, client, mux)
    llm.enqueue(Reply(when="CHILD", text="Second look: all good."))
    ref = {"parentSessionId": parent, "childSessionId": child, "mode": "continuable"}
    sent = await ok(client, SUBAGENT_PROMPT, {**ref, "content": text("look again")})
    _, start = await mux.next(event("turn/start", child))
    _, end = await mux.next(event("turn/end", child))
    assert end.event.data["reason"] == {"kind": "completed"}
    child_events = events_of(mux.frames, child)
    asked = next(e for e in child_events if e.type == "user/message" and e.seq > start.event.seq)
    assert asked.data["id"] == sent.message_id and asked.data["source"]["kind"] == "user"
    # the answer waits in the parent as context for its next step
    _, spliced = await mux.next(event("agent/inbox/spliced", parent))
    delivered = spliced.event.data["inserted"][0]
    assert spliced.event.data["target"] == "next-step" and delivered["source"]["plugin"] == "subagent"
    assert "Second look: all good." in delivered["content"][0]["text"]
    llm.enqueue(Reply(when="PARENT", text="Noted."))
    await prompt(client, parent, "what did it say?")
    await mux.next(event("turn/end", parent))
    sent_to_model = json.dumps(llm.requests[-1]["messages"])
    assert "Second look: all good." in sent_to_model


async def test_a_child_prompt_takes_what_session_prompt_takes(host: Host, llm: ScriptedLlmServer) -> None:
    """`subagent.prompt` accepts `clientTimeZone` (checked like `session.prompt`'s) and `attach`
    (issue 40, item 9): the child's user message carries both."""
    (host.workdir / "notes.txt").write_text("read me with the prompt\n")
    client = host.client()
    mux = await host.mux(client)
    parent, child = await family(host, llm, client, mux)
    ref = {"parentSessionId": parent, "childSessionId": child, "mode": "continuable"}
    zoned = {**ref, "content": text("x"), "clientTimeZone": "Mars/Base"}
    bad = await err(client, SUBAGENT_PROMPT, zoned, "invalid-time-zone")
    assert bad.details == {"value": "Mars/Base"}
    outside = {**ref, "content": text("x"), "attach": [{"path": "../outside.txt"}]}
    await err(client, SUBAGENT_PROMPT, outside, "attachment-error")
    llm.enqueue(Reply(when="CHILD", text="Read it."))
    body = {**ref, "content": text("look at this"), "clientTimeZone": "Europe/Berlin"}
    sent = await ok(client, SUBAGENT_PROMPT, {**body, "attach": [{"path": "notes.txt"}]})
    _, asked = await mux.next(event("user/message", child))
    assert asked.event.data["id"] == sent.message_id
    assert asked.event.data["source"]["clientTimeZone"] == "Europe/Berlin"
    words, file = asked.event.data["content"]
    assert words["text"] == "look at this" and file["attached"]["path"] == "notes.txt"
    assert "read me with the prompt" in file["text"]
    await mux.next(event("turn/end", child))


async def test_interrupting_a_child_stops_its_turn(host: Host, llm: ScriptedLlmServer) -> None:
    client = host.client()
    mux = await host.mux(client)
    parent, child = await family(host, llm, client, mux)
    llm.enqueue(Reply(when="CHILD", text="thinking very slowly", chunk_size=2, hang_after=1))
    ref = {"parentSessionId": parent, "childSessionId": child, "mode": "continuable"}
    await ok(client, SUBAGENT_PROMPT, {**ref, "content": text("think")})
    await mux.next(event("assistant/chunk", child))
    listed = await ok(client, SUBAGENT_LIST, {"parentSessionId": parent})
    first = listed.entries[0]
    assert not isinstance(first, DiagnosticChild) and first.activity == "running"
    assert (await ok(client, SUBAGENT_INTERRUPT, ref)).accepted
    _, end = await mux.next(event("turn/end", child))
    assert end.event.data["reason"] == {"kind": "aborted", "by": "user"}


async def test_deleting_a_parent_deletes_its_subagents(host: Host, llm: ScriptedLlmServer) -> None:
    client = host.client()
    mux = await host.mux(client)
    parent, child = await family(host, llm, client, mux)
    assert (await ok(client, SESSION_DELETE, {"sessionId": parent})).deleted
    left = [s.session_id for s in (await ok(client, SESSION_LIST)).items]
    assert parent not in left and child not in left
    await err(client, SESSION_HISTORY, {"sessionId": child}, "session-not-found")


async def test_export_with_descendants_and_import_restore_subagents(
    tmp_path: Path, llm_server: ScriptedLlmServer
) -> None:
    parent, child, body, before, cwd = await exported_family(tmp_path, llm_server)
    zf = zipfile.ZipFile(io.BytesIO(body))
    header = json.loads(zf.read(f"subagents/{child}/session.jsonl").decode().splitlines()[0])
    assert header["origin"] == "subagent" and header["parentSession"] == parent
    assert "origin" not in json.loads(zf.read("session.jsonl").decode().splitlines()[0])
    archive = tmp_path / "family.zip"
    archive.write_bytes(body)
    fresh = tmp_path / "b" / "data"
    imported = run_main("import", str(archive), "--cwd", cwd, "--data-dir", str(fresh))
    assert imported.returncode == 0, imported.stderr
    assert imported.stdout.split() == [parent, child]
    # the child alone, in a third data dir, stands on its own (no parent to message it through)
    alone = tmp_path / "alone.zip"
    assert run_main("export", child, "-o", str(alone), "--data-dir", str(fresh)).returncode == 0
    third = tmp_path / "c" / "data"
    assert run_main("import", str(alone), "--cwd", cwd, "--data-dir", str(third)).returncode == 0

    target = await open_test_host("inprocess", tmp_path / "b", llm_server.base_url, data_dir=fresh)
    try:
        client = target.client()
        rows = {s.session_id: s for s in (await ok(client, SESSION_LIST)).items}
        assert rows[child].origin == "subagent" and rows[child].parent_session_id == parent
        assert rows[parent].origin is None
        for s, events in before.items():
            page = await ok(client, SESSION_HISTORY, {"sessionId": s, "maxMessages": 1000})
            assert [e.dump() for e in page_events(page)] == events
        listed = await ok(client, SUBAGENT_LIST, {"parentSessionId": parent})
        assert [
            (e.id, e.mode, e.label) if not isinstance(e, DiagnosticChild) else (e.id, "diagnostic", e.reason)
            for e in listed.entries
        ] == [(child, "continuable", "Look around")]
        await err(
            client,
            SESSION_PROMPT,
            {"sessionId": child, "mode": "queue", "content": text("x")},
            "agent-busy",
        )
    finally:
        await target.close()
    lone = await open_test_host("inprocess", tmp_path / "c", llm_server.base_url, data_dir=third)
    try:
        row = (await ok(lone.client(), SESSION_LIST)).items[0]
        assert row.session_id == child and row.origin is None and row.parent_session_id == parent
    finally:
        await lone.close()


async def test_a_child_without_a_readable_descriptor_is_a_diagnostic_row(
    tmp_path: Path, llm_server: ScriptedLlmServer
) -> None:
    parent, child, body, _, cwd = await exported_family(tmp_path, llm_server)
    original = zipfile.ZipFile(io.BytesIO(body))
    archive = tmp_path / "damaged.zip"
    with zipfile.ZipFile(archive, "w") as damaged:  # the child's descriptor lost (a newer type)
        for name in original.namelist():
            data = original.read(name)
            if name == f"subagents/{child}/session.jsonl":
                data = data.replace(b'"type":"subagent/descriptor"', b'"type":"subagent/descriptor-v9"')
            damaged.writestr(name, data)
    fresh = tmp_path / "b" / "data"
    assert run_main("import", str(archive), "--cwd", cwd, "--data-dir", str(fresh)).returncode == 0
    target = await open_test_host("inprocess", tmp_path / "b", llm_server.base_url, data_dir=fresh)
    try:
        client = target.client()
        listed = await ok(client, SUBAGENT_LIST, {"parentSessionId": parent})
        assert [e.dump() for e in listed.entries] == [
            {"kind": "diagnostic", "id": child, "reason": "corrupt"}
        ]
        assert listed.parent_available is False
        ref = {"parentSessionId": parent, "childSessionId": child, "mode": "continuable"}
        error = await err(client, SUBAGENT_HISTORY, ref, "subagent-catalog-diagnostic")
        assert error.details == {"parentSessionId": parent, "childSessionId": child, "reason": "corrupt"}
        await err(client, SUBAGENT_PROMPT, {**ref, "content": text("hi")}, "subagent-catalog-diagnostic")
    finally:
        await target.close()


async def test_a_child_with_a_full_queue_refuses_delivery(host: Host, llm: ScriptedLlmServer) -> None:
    client = host.client()
    mux = await host.mux(client)
    parent, child = await family(host, llm, client, mux)
    llm.enqueue(Reply(when="CHILD", text="busy busy", chunk_size=2, hang_after=1))
    ref = {"parentSessionId": parent, "childSessionId": child, "mode": "continuable"}
    await ok(client, SUBAGENT_PROMPT, {**ref, "content": text("start")})
    await mux.next(event("assistant/chunk", child))  # its turn runs; what follows waits
    for n in range(100):
        await ok(client, SUBAGENT_PROMPT, {**ref, "content": text(f"more {n}")})
    full = await err(
        client, SUBAGENT_PROMPT, {**ref, "content": text("one too many")}, "subagent-delivery-unavailable"
    )
    assert full.details == {"childSessionId": child} and "queue is full" in full.message
    await ok(client, SUBAGENT_INTERRUPT, ref)
