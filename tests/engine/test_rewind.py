"""Rewind in place (`session.rewind`): the same session goes on from before a person's message,
with and without its files put back; the rewound turns stay in the log and leave what the model
is sent; conflicts are listed and keep every file (docs/decisions.md, "Rewind in place")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from host.engine.errors import RewindUnavailable
from tests.engine.test_permissions import turn
from tests.support.scripted_llm import Reply

Factory = Any


def write(call_id: str, path: str, content: str) -> Reply:
    return Reply(tool_calls=[(call_id, "write_file", json.dumps({"path": path, "content": content}))])


def sent_texts(request: dict[str, Any]) -> list[str]:
    out = []
    for m in request["messages"]:
        content = m.get("content")
        if isinstance(content, str):
            out.append(content)
    return out


async def two_turns(engine: Any, scripted_llm: Any, work: Path) -> tuple[str, int]:
    """A session in Full access whose first turn writes a.txt and second turn rewrites it and adds
    b.txt; returns the session and the seq of the second turn's message."""
    await engine.config.update_settings("permission", {"defaultPreset": "danger-full-access"}, None)
    sid = await engine.sessions.create_session(str(work))
    mux = engine.host.subscribe_mux()
    scripted_llm.enqueue(write("w1", "a.txt", "one\n"), Reply(text="made a"))
    await turn(engine, mux, sid, "make a")
    scripted_llm.enqueue(write("w2", "a.txt", "two\n"), write("w3", "b.txt", "bee\n"), Reply(text="changed"))
    events = await turn(engine, mux, sid, "change a and add b")
    at = next(e.seq for e in events if e.type == "user/message")
    return sid, at


async def test_rewind_restores_files_and_the_model_no_longer_sees_the_turn(
    engine_factory: Factory, scripted_llm: Any, tmp_path: Path
) -> None:
    engine = await engine_factory()
    work = tmp_path / "work"
    work.mkdir()
    sid, at = await two_turns(engine, scripted_llm, work)
    assert (work / "a.txt").read_text() == "two\n" and (work / "b.txt").exists()

    value = await engine.files.rewind(sid, at, True)
    assert value.text == "change a and add b" and value.conflicts == []
    assert sorted((f.path, f.action) for f in value.restored_files) == [
        ("a.txt", "restored"),
        ("b.txt", "removed"),
    ]
    assert (work / "a.txt").read_text() == "one\n" and not (work / "b.txt").exists()

    log = await engine.parts.store.events(sid, 0, None)
    rewound = [e for e in log if e.type == "session/rewound"]
    assert len(rewound) == 1 and rewound[0].data["atSeq"] == at
    assert [e.data["cause"] for e in log if e.type == "files/restored"] == ["rewind"]
    assert any(e.type == "user/message" and e.seq == at for e in log)  # still in the history

    scripted_llm.requests.clear()
    scripted_llm.enqueue(Reply(text="again"))
    await turn(engine, engine.host.subscribe_mux(), sid, "change a differently")
    texts = sent_texts(scripted_llm.requests[-1])
    assert "make a" in texts and "change a differently" in texts
    assert "change a and add b" not in texts and "changed" not in texts  # the rewound turn is gone

    with pytest.raises(RewindUnavailable):  # the same message again: already rewound
        await engine.files.rewind(sid, at, False)

    # a restart folds the same conversation from the log
    await engine.close()
    again = await engine_factory(tmp_path / "data")
    scripted_llm.requests.clear()
    scripted_llm.enqueue(Reply(text="after restart"))
    await turn(again, again.host.subscribe_mux(), sid, "one more")
    texts = sent_texts(scripted_llm.requests[-1])
    assert "change a and add b" not in texts and "change a differently" in texts


async def test_rewind_without_files_and_with_a_conflict(
    engine_factory: Factory, scripted_llm: Any, tmp_path: Path
) -> None:
    engine = await engine_factory()
    work = tmp_path / "work"
    work.mkdir()
    sid, at = await two_turns(engine, scripted_llm, work)
    (work / "b.txt").write_text("edited by hand\n")  # changed since: the restore would lose it

    value = await engine.files.rewind(sid, at, True)
    assert [(c.path, c.reason) for c in value.conflicts] == [("b.txt", "changed")]
    assert value.restored_files == []
    assert (work / "a.txt").read_text() == "two\n"  # all or nothing: no file was put back
    assert (work / "b.txt").read_text() == "edited by hand\n"

    first = next(e.seq for e in await engine.parts.store.events(sid, 0, None) if e.type == "user/message")
    plain = await engine.files.rewind(sid, first, False)
    assert plain.text == "make a" and plain.restored_files == [] and plain.conflicts == []
    assert (work / "a.txt").read_text() == "two\n"  # the files are left as they are

    with pytest.raises(RewindUnavailable):  # not a person's message
        await engine.files.rewind(sid, first + 1, False)
