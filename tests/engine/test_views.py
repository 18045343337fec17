"""Tool render intents (host/engine/sessions/tool_views.py; spec 07 §2, §6 items 16-19)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from contract.events import SessionEvent
from host.engine.sessions import tool_views as views
from host.engine.sessions.tool_views import LiveViews, page_views


def ev(seq: int, etype: str, data: dict[str, Any]) -> SessionEvent:
    return SessionEvent(type=etype, seq=seq, time=seq, data=data)


def call(seq: int, call_id: str, name: str, arguments: Any) -> SessionEvent:
    raw = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return ev(seq, "tool/call", {"turn": 0, "step": 0, "callId": call_id, "name": name, "arguments": raw})


def result(seq: int, call_id: str, text: str, error: bool = False) -> SessionEvent:
    block: dict[str, Any] = {"type": "tool-result", "toolCallId": call_id, "content": text}
    if error:
        block["isError"] = True
    message = {
        "id": f"m{seq}",
        "role": "tool",
        "content": [block],
        "source": {"kind": "tool", "callId": call_id},
    }
    data: dict[str, Any] = {"turn": 0, "step": 0, "message": message}
    if error:
        data["error"] = {"name": "bash", "code": "TOOL_ERROR"}
    return ev(seq, "tool/result", data)


def dumped(view: Any) -> Any:
    return None if view is None else view.model_dump(mode="json", by_alias=True, exclude_none=True)


def test_a_foreground_bash_call_is_a_terminal_and_its_exit_marker_moves_into_the_field() -> None:
    events = [
        ev(0, "turn/start", {"turn": 0, "trigger": "user"}),
        call(1, "c1", "bash", {"command": "make test"}),
        result(2, "c1", "3 failed\n[exit code: 2]"),
        call(3, "c2", "bash", {"command": "true"}),
        result(4, "c2", "all good\n"),
        call(5, "c3", "bash", {"command": "sleep 99"}),
        result(6, "c3", "partial\n[killed by signal: SIGKILL]"),
    ]
    got = [dumped(v) for v in page_views(events)]
    assert got[0] is None  # only tool/call and tool/result carry a view
    assert got[1] == {"for": "call", "view": {"card": "terminal", "title": "make test"}}
    assert got[2] == {"for": "result", "view": {"card": "terminal", "output": "3 failed", "exitCode": 2}}
    assert got[4] == {"for": "result", "view": {"card": "terminal", "output": "all good\n", "exitCode": 0}}
    assert got[6] == {"for": "result", "view": {"card": "terminal", "output": "partial", "signal": "SIGKILL"}}


def test_background_bash_errors_and_the_file_tools() -> None:
    events = [
        call(0, "b", "bash", {"command": "npm run dev", "run_in_background": True}),
        result(1, "b", "started job bash-1"),
        call(2, "e", "bash", {"command": "ls /nope"}),
        result(3, "e", "permission denied", error=True),
        call(4, "w", "write_file", {"path": "a.txt", "content": "hi\n"}),
        call(5, "d", "edit_file", {"path": "a.txt", "old_string": "hi", "new_string": "ho"}),
        call(6, "r", "read_file", {"path": "a.txt", "offset": 3, "limit": 2}),
        call(7, "g", "grep", {"pattern": "TODO"}),
        call(8, "q", "ask_user", {"questions": []}),
    ]
    got = [dumped(v) for v in page_views(events)]
    assert got[0]["view"] == {
        "card": "generic",
        "title": "npm run dev",
        "kind": "execute",
        "rawInput": "npm run dev",
    }
    assert got[1]["view"]["content"][0]["text"] == "```console\nstarted job bash-1\n```"
    assert got[3]["view"] == {
        "card": "generic",
        "content": [{"type": "text", "text": "```console\npermission denied\n```"}],
    }
    assert got[4]["view"]["diffs"] == [{"path": "a.txt", "oldText": None, "newText": "hi\n"}]
    assert got[5]["view"]["title"] == "Edit a.txt" and got[5]["view"]["diffs"][0]["oldText"] == "hi"
    assert got[6]["view"] == {
        "card": "generic",
        "title": "Read a.txt (3 - 4)",
        "kind": "read",
        "locations": [{"path": "a.txt", "line": 3}],
    }
    assert got[7]["view"]["title"] == "Grep TODO"
    assert got[8] is None  # no presenter


def test_no_view_for_bad_arguments_a_throwing_presenter_or_a_call_on_an_older_page(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert page_views([call(0, "x", "bash", "{not json")]) == [None]
    assert page_views([result(5, "c1", "output\n")]) == [None]  # its call is on an older page

    def boom(args: dict[str, Any]) -> Any:
        raise RuntimeError("presenter bug")

    monkeypatch.setitem(views.CALLS, "bash", boom)
    assert page_views([call(0, "c", "bash", {"command": "ls"})]) == [None]


def test_live_views_remember_open_calls_until_the_turn_ends() -> None:
    live = LiveViews()
    assert live.view(call(1, "c1", "bash", {"command": "ls"})) is not None
    assert dumped(live.view(result(2, "c1", "a\n")))["view"]["exitCode"] == 0
    live.view(call(3, "c2", "bash", {"command": "ls"}))
    live.view(ev(4, "turn/end", {"turn": 0, "reason": {"kind": "completed"}}))
    assert live.view(result(5, "c2", "late\n")) is None
