"""`session.list` summaries: one validation for the whole list, a broken row skipped alone."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

import pytest
from pydantic_core import to_json

from contract._base import to_wire
from contract.sessions import Attention, ListValue
from host.engine.sessions.listing import ListEncoder, Live, summaries
from host.engine.store.base import ListedSession


def row(sid: str, updated_at: int, **extra: object) -> ListedSession:
    fields: dict[str, object] = {
        "id": sid,
        "created_at": 1,
        "updated_at": updated_at,
        "cwd": "/w",
        "parent_session": None,
        "agent_preset": "coder",
        "title": f"title of {sid}",
        "blank": False,
        "origin": None,
    }
    return ListedSession(**{**fields, **extra})  # type: ignore[arg-type]


def test_live_sessions_override_their_stored_title_preset_and_running() -> None:
    rows = [row("s-2", 20), row("s-1", 10, origin="subagent", parent_session="s-2")]
    got = summaries(rows, {"s-1": Live(running=True, title="renamed", agent_preset="planner")})
    assert [(s.session_id, s.running, s.title, s.agent_preset) for s in got] == [
        ("s-2", False, "title of s-2", "coder"),
        ("s-1", True, "renamed", "planner"),
    ]
    assert (got[1].origin, got[1].parent_session_id, got[1].updated_at) == ("subagent", "s-2", 10)


def test_a_row_that_breaks_the_contract_is_skipped_and_logged(caplog: pytest.LogCaptureFixture) -> None:
    rows = [row("s-3", 30), row("bad id with spaces", 25), row("s-2", -1), row("s-1", 10)]
    with caplog.at_level(logging.WARNING, logger="host.engine.sessions.listing"):
        got = summaries(rows, {})
    assert [s.session_id for s in got] == ["s-3", "s-1"]
    logged = " ".join(r.getMessage() for r in caplog.records)
    assert "'bad id with spaces'" in logged and "'s-2'" in logged


def test_rows_carry_a_projections_block_only_when_it_says_something() -> None:
    cold_titled, cold_blank, live = row("a", 3, title="Parser port"), row("b", 2, title=None), row("c", 1)
    values = {"goal": None}
    items = summaries(
        [cold_titled, cold_blank, live], {"c": Live(True, "Live title", "standard", 41, values)}
    )
    by_id = {i.session_id: i.dump() for i in items}
    # a cold row reads the stored title only (no log load), as of an unknown seq
    assert by_id["a"]["projections"] == {"asOfSeq": -1, "values": {"title": "Parser port"}}
    assert "projections" not in by_id["b"]
    assert by_id["c"]["projections"] == {"asOfSeq": 41, "values": {"goal": None, "title": "Live title"}}
    assert by_id["c"]["title"] == "Live title"  # the mirror


def _old_wire(
    rows: list[ListedSession],
    live: dict[str, Live],
    attention: Callable[[str], Attention],
    worktrees: dict[str, Any],
) -> bytes:
    """What the carrier sent for `session.list` before the encoder: the models, dumped, encoded."""
    value = ListValue(items=summaries(rows, live, attention, worktrees))
    return to_json(to_wire(value), inf_nan_mode="strings")


def test_the_encoded_list_is_the_bytes_the_models_give_and_decodes_to_them() -> None:
    rows = [
        row("s-5", 50, title="näive — ü"),
        row("s-4", 40, origin="subagent", parent_session="s-5"),
        row("bad id with spaces", 35),
        row("s-3", 30, title=None, blank=True),
        row("s-2", 20, cwd="/w/tree"),
        row("s-1", 10),
    ]
    live = {"s-1": Live(True, "live title", "planner", 7, {"goal": None})}
    busy = Attention(state="needs-you", pending=2)
    attention = lambda sid: busy if sid == "s-3" else Attention(state="idle")  # noqa: E731
    worktrees = {
        "s-2": {"path": "/w/tree", "branch": "b", "base": "main", "ahead": 1, "behind": 0, "dirty": True}
    }
    encoder = ListEncoder()
    for _ in range(2):  # the second list comes from the kept encodings
        got = encoder.encode(rows, live, {"s-3": busy}, worktrees)
        assert got.wire_json() == _old_wire(rows, live, attention, worktrees)
        assert got.model_dump() == ListValue(items=summaries(rows, live, attention, worktrees)).model_dump()
        items = {i.session_id: i for i in got.decoded().items}
        assert list(items) == ["s-5", "s-4", "s-3", "s-2", "s-1"]  # the broken row alone is left out
        assert items["s-2"].worktree is not None and items["s-2"].worktree.branch == "b"
        assert items["s-3"].attention == busy and items["s-1"].title == "live title"


def test_a_changed_row_or_a_session_turning_live_is_encoded_afresh() -> None:
    encoder = ListEncoder()
    idle = lambda sid: Attention(state="idle")  # noqa: E731
    first = [row("s-2", 20), row("s-1", 10)]
    encoder.encode(first, {}, {}, {})
    moved = [row("s-1", 30, title="renamed"), row("s-2", 20)]
    assert encoder.encode(moved, {}, {}, {}).wire_json() == _old_wire(moved, {}, idle, {})
    live = {"s-2": Live(True, "streaming", "standard", 3)}
    assert encoder.encode(moved, live, {}, {}).wire_json() == _old_wire(moved, live, idle, {})
    assert encoder.encode(moved, {}, {}, {}).wire_json() == _old_wire(moved, {}, idle, {})
    assert json.loads(encoder.encode([], {}, {}, {}).wire_json()) == {"items": []}
