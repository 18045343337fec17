"""Automations (docs/decisions/automations.md): a schedule fires at a faked clock, a slot missed
while the app was closed runs once after the start, a run is a worktree session titled with the
automation's name and date whose summary and outcome land in the inbox, at most one run of an
automation at a time, a run waiting on an approval gives its turn slot back, a Read-only run
cannot write (the real sandbox), a file change triggers a run and the run's own writes do not.
The model is the scripted provider; git, SQLite, watchfiles and bubblewrap are real."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from contract.automations import AutomationCreateRequest, AutomationRun, AutomationUpdateRequest
from contract.rpc import ClientResponse, ReceiptAccepted, RpcOk
from contract.sessions import TextInput
from host.engine.errors import AutomationRunning, WorkspaceInvalidPath
from host.engine.sandbox.probe import FORCE_ENV, probe_bwrap, reset_support
from host.engine.sessions.lookup import existing_header
from tests.support.engine import agent_of, wait_quiet
from tests.support.fake_clock import FakeClock
from tests.support.git_repos import make_repo, place
from tests.support.scripted_llm import Reply

__all__ = ["place"]

Factory = Any
MONDAY_0700_UTC = datetime(2026, 12, 7, 7, 0, tzinfo=UTC)
"""08:00 in Berlin: the 9:00 (Berlin) weekday slot is an hour away."""


def request(cwd: Path, trigger: dict[str, Any], **more: Any) -> AutomationCreateRequest:
    return AutomationCreateRequest.model_validate(
        {
            "name": "Morning tests",
            "cwd": str(cwd),
            "prompt": [{"type": "text", "text": "look at the failing tests"}],
            "trigger": trigger,
            **more,
        }
    )


WEEKDAYS_9 = {"kind": "schedule", "cron": "0 9 * * 1-5", "timeZone": "Europe/Berlin"}


async def runs_until(
    engine: Any, wanted: Callable[[list[AutomationRun]], bool], within: float = 60.0
) -> list[AutomationRun]:
    deadline = time.monotonic() + within
    while True:
        found = engine.automations.runs(None, True)
        if wanted(found):
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"runs never matched: {found}")
        await asyncio.sleep(0.02)


def finished(runs: list[AutomationRun]) -> bool:
    return bool(runs) and all(r.outcome not in ("running", "needs-you") for r in runs)


async def test_a_schedule_fires_at_a_faked_clock_in_a_worktree_and_lands_in_the_inbox(
    place: Path, scripted_llm: Any, engine_factory: Factory
) -> None:
    repo = make_repo(place / "repo")
    clock = FakeClock(MONDAY_0700_UTC)
    engine = await engine_factory(data_dir=place / "data", tools={}, automation_clock=clock)
    aid = await engine.automations.create(request(repo, WEEKDAYS_9))
    [item] = engine.automations.items()
    assert item.permission == "auto"  # a repository: Auto unless chosen
    assert item.next_run_at == int(datetime(2026, 12, 7, 8, 0, tzinfo=UTC).timestamp() * 1000)
    assert engine.automations.runs(None, True) == []
    scripted_llm.enqueue(Reply(text="Two tests fail on a renamed fixture\n\nDetails follow."))
    clock.set(datetime(2026, 12, 7, 8, 0, 30, tzinfo=UTC))  # 09:00:30 in Berlin
    [run] = await runs_until(engine, finished)
    assert (run.automation_id, run.outcome, run.read) == (aid, "answered", False)
    assert run.summary == "Two tests fail on a renamed fixture"
    assert run.session_id is not None
    header = await existing_header(engine.parts.store, run.session_id)
    assert header.cwd is not None and not header.cwd.startswith(str(repo))  # its own worktree
    assert engine.worktrees.state_of(header.cwd) is not None
    [summary] = [s for s in await engine.sessions.list_sessions() if s.session_id == run.session_id]
    assert summary.title == "Morning tests — 2026-12-07 09:00"
    asked = json.dumps(scripted_llm.requests[-1]["messages"])
    assert "look at the failing tests" in asked and "one short line" in asked
    [item] = engine.automations.items()
    assert item.last_run is not None and item.last_run.run_id == run.run_id
    assert item.next_run_at == int(datetime(2026, 12, 8, 8, 0, tzinfo=UTC).timestamp() * 1000)
    await engine.automations.mark_read(run.run_id)
    assert engine.automations.runs(None, False)[0].read is True
    await engine.automations.archive(run.run_id)
    assert engine.automations.runs(None, False) == []  # archived: out of the inbox
    await engine.automations.discard(run.run_id)  # the worktree goes with the session
    assert engine.automations.runs(None, True) == []
    assert not await asyncio.to_thread(Path(header.cwd).exists)
    assert not await engine.sessions.has_session(run.session_id)


async def test_slots_missed_while_closed_run_once_and_a_restart_runs_none_again(
    place: Path, scripted_llm: Any, engine_factory: Factory
) -> None:
    repo = make_repo(place / "repo")
    data = place / "data"
    clock = FakeClock(MONDAY_0700_UTC)
    engine = await engine_factory(data_dir=data, tools={}, automation_clock=clock)
    await engine.automations.create(request(repo, WEEKDAYS_9))
    await engine.close()
    # Thursday noon: the Monday, Tuesday, Wednesday and Thursday slots were all missed
    later = FakeClock(datetime(2026, 12, 10, 11, 0, tzinfo=UTC))
    engine = await engine_factory(data_dir=data, tools={}, automation_clock=later)
    runs = await runs_until(engine, finished)
    assert len(runs) == 1 and runs[0].outcome == "answered"
    await engine.close()
    again = await engine_factory(data_dir=data, tools={}, automation_clock=later)
    await again.automations.tick()
    assert [r.run_id for r in again.automations.runs(None, True)] == [runs[0].run_id]


async def test_one_run_at_a_time_and_run_now(place: Path, scripted_llm: Any, engine_factory: Factory) -> None:
    repo = make_repo(place / "repo")
    engine = await engine_factory(data_dir=place / "data", tools={})
    aid = await engine.automations.create(request(repo, {"kind": "manual"}))
    scripted_llm.enqueue(Reply(text="slow " * 40, hang_after=2))
    run_id, sid = await engine.automations.run_now(aid)
    with pytest.raises(AutomationRunning):
        await engine.automations.run_now(aid)
    for nowhere in (str(place / "missing"), "relative/folder"):
        with pytest.raises(WorkspaceInvalidPath):
            await engine.automations.create(request(Path(nowhere), {"kind": "manual"}))
    assert len(engine.automations.items()) == 1 and not (place / "missing").exists()
    with pytest.raises(AutomationRunning):
        await engine.automations.discard(run_id)
    deadline = time.monotonic() + 30
    while not scripted_llm.requests:  # the turn is open and the model answering
        assert time.monotonic() < deadline
        await asyncio.sleep(0.01)
    await engine.agents.cancel(sid)  # Stop: the turn ends aborted
    [run] = await runs_until(engine, finished)
    assert run.outcome == "failed" and run.session_id == sid


def test_full_access_needs_the_confirmation_and_bad_input_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValidationError, match="confirmFullAccess"):
        request(tmp_path, {"kind": "manual"}, permission="danger-full-access")
    assert request(tmp_path, {"kind": "manual"}, permission="danger-full-access", confirmFullAccess=True)
    with pytest.raises(ValidationError, match="confirmFullAccess"):
        AutomationUpdateRequest.model_validate({"automationId": "a", "permission": "danger-full-access"})
    with pytest.raises(ValidationError, match="five fields"):
        request(tmp_path, {"kind": "schedule", "cron": "0 9 * *"})
    with pytest.raises(ValidationError, match="cron"):
        request(tmp_path, {"kind": "schedule", "cron": "0 25 * * *"})
    with pytest.raises(ValidationError, match="IANA"):
        request(tmp_path, {"kind": "schedule", "cron": "0 9 * * *", "timeZone": "Mars/Olympus"})
    with pytest.raises(ValidationError, match="inside the folder"):
        request(tmp_path, {"kind": "files", "paths": ["../elsewhere/*"]})


@pytest.fixture
def sandboxed(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Tools run in bubblewrap, as on a person's machine (tests/conftest.py turns it off)."""
    if not probe_bwrap().available:
        pytest.skip("no bubblewrap on this machine")
    monkeypatch.delenv(FORCE_ENV, raising=False)
    reset_support()
    yield
    monkeypatch.undo()
    reset_support()


async def test_a_read_only_run_cannot_write_and_outside_a_repository_is_read_only_by_default(
    place: Path, scripted_llm: Any, engine_factory: Factory, sandboxed: None
) -> None:
    folder = place / "notes"
    folder.mkdir()
    engine = await engine_factory(data_dir=place / "data")
    aid = await engine.automations.create(request(folder, {"kind": "manual"}))
    assert engine.automations.items()[0].permission == "read-only"
    command = json.dumps({"command": f"echo written > {folder}/made.txt"})
    scripted_llm.enqueue(
        Reply(tool_calls=[("c1", "bash", command)]),
        Reply(text="Could not write the file"),
    )
    _, sid = await engine.automations.run_now(aid)
    [run] = await runs_until(engine, finished)
    assert run.outcome == "answered" and run.changed_files == 0
    assert not (folder / "made.txt").exists()
    header = await existing_header(engine.parts.store, sid)
    assert header.cwd == str(folder)  # not a repository: the folder itself
    tool_result = json.dumps(scripted_llm.requests[1]["messages"][-1])
    assert "Read-only file system" in tool_result  # bubblewrap refused the write


async def test_a_file_change_triggers_a_run_and_its_own_writes_do_not(
    place: Path, scripted_llm: Any, engine_factory: Factory, sandboxed: None
) -> None:
    folder = place / "inbox"
    folder.mkdir()
    engine = await engine_factory(data_dir=place / "data")
    await engine.automations.create(request(folder, {"kind": "files", "paths": ["*.csv"]}, permission="auto"))
    (folder / "ignored.txt").write_text("not a match\n")
    write = json.dumps({"path": str(folder / "report.csv"), "content": "a,b\n"})
    scripted_llm.enqueue(Reply(tool_calls=[("c1", "write_file", write)]), Reply(text="Wrote the report"))
    await asyncio.sleep(1.0)  # the watch has started and a non-matching change ran nothing
    assert engine.automations.runs(None, True) == []
    (folder / "data.csv").write_text("1,2\n")
    [run] = await runs_until(engine, finished)
    assert run.outcome == "changed" and run.changed_files == 1 and run.summary == "Wrote the report"
    assert (folder / "report.csv").read_text() == "a,b\n"
    await asyncio.sleep(5.0)  # past the watch's debounce and the quiet time after a run
    assert len(engine.automations.runs(None, True)) == 1  # its own write did not trigger it
    scripted_llm.enqueue(Reply(text="Again"))
    (folder / "more.csv").write_text("3,4\n")
    runs = await runs_until(engine, lambda rs: len(rs) == 2 and finished(rs))
    assert {r.summary for r in runs} == {"Wrote the report", "Again"}


async def test_a_run_waiting_on_an_approval_is_paused_and_gives_its_slot_back(
    place: Path, scripted_llm: Any, engine_factory: Factory
) -> None:
    folder = place / "work"
    folder.mkdir()
    clock = FakeClock(MONDAY_0700_UTC)
    engine = await engine_factory(data_dir=place / "data", automation_clock=clock)
    await engine.config.update_settings(
        "sessions", {"maxRunningTurns": 1, "automationPauseMinutes": 30}, None
    )
    aid = await engine.automations.create(request(folder, {"kind": "manual"}, permission="auto"))
    write = json.dumps({"path": str(folder / "out.txt"), "content": "x\n"})
    scripted_llm.enqueue(
        Reply(tool_calls=[("c1", "write_file", write)], when="failing tests"),
        Reply(text="beta done", when="beta"),
        Reply(text="Wrote out.txt", when="failing tests"),
    )
    _, run_sid = await engine.automations.run_now(aid)  # no sandbox in this test: Auto asks
    clock.advance(minutes=1)
    [run] = await runs_until(engine, lambda rs: rs[0].outcome == "needs-you")
    other = await engine.sessions.create_session(str(folder))
    await engine.agents.prompt(other, "queue", [TextInput(text="beta")], "r-beta")
    await asyncio.sleep(0.5)
    assert agent_of(engine, other).running and not any("beta" in str(r) for r in scripted_llm.requests)
    clock.advance(minutes=30)  # the run has waited 30 minutes: its slot goes to the next in line
    await wait_quiet(agent_of(engine, other))
    assert any("beta" in str(r["messages"]) for r in scripted_llm.requests)
    assert engine.automations.runs(None, True)[0].outcome == "needs-you"
    [(rpc_id, frame)] = engine.parts.pending.requests_for(run_sid)
    value = {"sessionId": run_sid, "approvalId": frame.approval_id, "outcome": "allowed-once"}
    assert (
        engine.host.respond(ClientResponse(rpc_id=rpc_id, result=RpcOk[Any](value=value)))
        == ReceiptAccepted()
    )
    [run] = await runs_until(engine, finished)
    assert run.outcome == "changed" and run.summary == "Wrote out.txt"
    assert engine.parts.pool.get(run_sid) is not None and engine.parts.pool.get(run_sid).slot is None


async def test_a_run_stopped_while_it_waits_for_a_slot_ends_failed(
    place: Path, scripted_llm: Any, engine_factory: Factory
) -> None:
    repo = make_repo(place / "repo")
    engine = await engine_factory(data_dir=place / "data", tools={})
    await engine.config.update_settings("sessions", {"maxRunningTurns": 1}, None)
    busy = await engine.sessions.create_session(str(repo))
    scripted_llm.enqueue(Reply(text="busy " * 40, hang_after=2, when="hold the slot"))
    await engine.agents.prompt(busy, "queue", [TextInput(text="hold the slot")], "r-busy")
    deadline = time.monotonic() + 30
    while not scripted_llm.requests:
        assert time.monotonic() < deadline
        await asyncio.sleep(0.01)
    aid = await engine.automations.create(request(repo, {"kind": "manual"}))
    _, sid = await engine.automations.run_now(aid)
    while engine.parts.pool.get(sid) is None or not agent_of(engine, sid).running:
        assert time.monotonic() < deadline
        await asyncio.sleep(0.01)
    await engine.agents.cancel(sid)  # Stop while it waits in line: no turn opens, none ends
    engine.automations.wake()
    [run] = await runs_until(engine, finished)
    assert run.outcome == "failed" and run.summary == "Stopped before it began."
    await engine.agents.cancel(busy)
