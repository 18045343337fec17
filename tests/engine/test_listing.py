"""`session.list` summaries: one validation for the whole list, a broken row skipped alone."""

from __future__ import annotations

import logging

import pytest

from host.engine.sessions.listing import Live, summaries
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
