"""`engine.automations`: the automations, their scheduler and file watches, and the inbox of runs
(docs/decisions/automations.md).

One loop (`_loop`) wakes at the next slot, at least every `TICK` seconds, and when something
changed; each pass (`tick`) starts the runs that are due and pauses runs that waited on the
person too long. A run is claimed in the database before its session exists (the claim is the
journal: a slot is claimed once, even across a crash); at most one run of an automation is
active at a time. A run's outcome is settled when its session's turn ends and nothing more is
queued (`turn_ended`). The loop, the watches and the settling tasks log what fails and go on.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import time
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from pathspec import GitIgnoreSpec

from contract.automations import (
    AutomationCreateRequest,
    AutomationItem,
    AutomationRun,
    AutomationUpdateRequest,
)
from contract.content import Message, TextBlock
from contract.events import TurnEndReason
from host.engine.automations.clock import Clock, SystemClock, ms
from host.engine.automations.runs import Drive, launch, summary_of
from host.engine.automations.schedule import latest_due, next_after
from host.engine.errors import AutomationNotFound, AutomationRunning, WorkspaceInvalidPath
from host.engine.files.filetree.watching import FolderWatch
from host.engine.store import automations as tables
from host.engine.store import ids
from host.engine.store.automations import AutomationRow, RunRow
from host.engine.workspaces.worktrees.making import spot

if TYPE_CHECKING:
    from host.engine.agent.agent import Agent
    from host.engine.workspaces.worktrees.rows import RowStore

log = logging.getLogger(__name__)

TICK = 30.0
"""The longest the loop sleeps (real seconds) before it looks again."""
QUIET_AFTER_RUN = 3.0
"""File events this long after a run of the automation ended are its own (the watch's debounce
delivers them late): they never trigger it again."""
ACTIVE = ("running", "needs-you")


async def _folder(path: str) -> str:
    """An existing folder of this host, absolute (a run never creates the folder it works in)."""
    found = await asyncio.to_thread(_existing_folder, path)
    if found is None:
        raise WorkspaceInvalidPath(path, f"{path} is not a folder on this host (give its full path)")
    return found


def _existing_folder(path: str) -> str | None:
    expanded = os.path.expanduser(path)
    if not os.path.isabs(expanded) or not os.path.isdir(expanded):
        return None
    return os.path.abspath(expanded)


def _quiet(agent: Agent) -> bool:
    """Nothing running, open or queued: the run's session has nothing more to do."""
    return not (agent.running or agent.turn_open or agent.input.inbox.next_turn)


def _when(ms_value: int) -> datetime:
    return datetime.fromtimestamp(ms_value / 1000, UTC)


class Automations:
    """Automations, their scheduler and file watches, their runs and the inbox (`automation.*`)."""

    def __init__(self, store: RowStore, drive: Drive, clock: Clock | None = None) -> None:
        self._store = store
        self._drive = drive
        self._clock: Clock = clock or SystemClock()
        self._autos: dict[str, AutomationRow] = {}
        self._runs: dict[str, RunRow] = {}
        self._active: dict[str, str] = {}
        """automation id → its active run's id."""
        self._asking_since: dict[str, datetime] = {}
        """run id → when the loop first saw it wait on the person."""
        self._launching: set[str] = set()
        """Runs whose session is being set up (not yet prompted)."""
        self._settling: set[str] = set()
        """Runs whose last turn ended and whose outcome is being written."""
        self._ended_at: dict[str, float] = {}
        """automation id → monotonic time its last run ended (the file watch's quiet time)."""
        self._lock = asyncio.Lock()
        self._wake = asyncio.Event()
        self._loop_task: asyncio.Task[None] | None = None
        self._watches: dict[str, FolderWatch] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._closed = False

    # ---- start and stop -------------------------------------------------------------------------

    async def open(self) -> None:
        """Load the rows and repair runs a crash or a stop left active, then start the loop."""
        autos = await self._store.call(tables.read_automations)
        runs = await self._store.call(tables.read_runs)
        self._autos = {a.id: a for a in autos}
        self._runs = {r.run_id: r for r in runs}
        for run in list(self._runs.values()):
            if run.outcome in ACTIVE:
                await self._repair(run)
        for auto in self._autos.values():
            self._watch(auto)
        self._loop_task = asyncio.create_task(self._loop(), name="automations")

    async def _repair(self, run: RunRow) -> None:
        """A run that was active when the app stopped: still going when its session took up its
        queued input again (it is watched), else it failed — it is never started again."""
        agent = self._drive.agent(run.session_id) if run.session_id else None
        if agent is not None and (agent.running or agent.input.inbox.next_turn):
            self._active[run.automation_id] = run.run_id
            return
        exists = run.session_id is not None and await self._drive.exists(run.session_id)
        run.outcome = "failed"
        run.ended_at = ms(self._clock.now())
        run.summary = (
            "The app stopped before this run finished."
            if exists
            else "The app stopped before this run could start."
        )
        if not exists:
            run.session_id = None
        await self._save(run)

    async def close(self) -> None:
        self._closed = True
        if self._loop_task is not None:
            self._loop_task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.wait_for(self._loop_task, 5.0)
        for watch in list(self._watches.values()):
            await watch.stop()
        self._watches.clear()
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.wait(self._tasks, timeout=5.0)

    # ---- the automations ------------------------------------------------------------------------

    async def create(self, p: AutomationCreateRequest) -> str:
        spec = p.model_dump(mode="json", by_alias=True, exclude={"confirm_full_access", "enabled", "host_id"})
        spec["cwd"] = await _folder(p.cwd)
        if "permission" not in p.model_fields_set:
            # outside a git repository a run works in the folder itself: Read-only unless chosen
            spec["permission"] = "auto" if await asyncio.to_thread(spot, p.cwd) else "read-only"
        now = ms(self._clock.now())
        row = AutomationRow(f"au-{secrets.token_hex(8)}", spec, p.enabled, now, now)
        await self._put(row)
        return row.id

    async def update(self, p: AutomationUpdateRequest) -> None:
        row = self._get(p.automation_id)
        changes = p.model_dump(
            mode="json",
            by_alias=True,
            exclude_unset=True,
            exclude={"automation_id", "confirm_full_access", "host_id"},
        )
        enabled = changes.pop("enabled", row.enabled)
        if "cwd" in changes:
            changes["cwd"] = await _folder(changes["cwd"])
        spec = {**row.spec, **{k: v for k, v in changes.items()}}
        since = row.since
        if "trigger" in changes or (enabled and not row.enabled):
            since = ms(self._clock.now())  # a new schedule counts from now: nothing is owed
        await self._put(AutomationRow(row.id, spec, enabled, since, row.created_at))

    async def delete(self, automation_id: str) -> None:
        """The automation and its rows in the inbox go; its runs' sessions stay."""
        self._get(automation_id)
        await self._store.call(lambda conn: tables.delete_automation(conn, automation_id))
        await self._store.call(lambda conn: tables.delete_runs_of(conn, automation_id))
        await self._store.flush()
        self._autos.pop(automation_id, None)
        self._active.pop(automation_id, None)
        self._runs = {k: r for k, r in self._runs.items() if r.automation_id != automation_id}
        await self._unwatch(automation_id)
        self._wake.set()

    async def _put(self, row: AutomationRow) -> None:
        await self._store.call(lambda conn: tables.write_automation(conn, row))
        await self._store.flush()
        self._autos[row.id] = row
        await self._unwatch(row.id)
        self._watch(row)
        self._wake.set()

    def _get(self, automation_id: str) -> AutomationRow:
        row = self._autos.get(automation_id)
        if row is None:
            raise AutomationNotFound(automation_id)
        return row

    def items(self) -> list[AutomationItem]:
        items = []
        for row in self._autos.values():
            last = max(
                (r for r in self._runs.values() if r.automation_id == row.id),
                key=lambda r: (r.started_at, r.run_id),
                default=None,
            )
            spec = row.spec
            items.append(
                AutomationItem.model_validate(
                    {
                        **{k: spec[k] for k in ("name", "cwd", "prompt", "attach", "trigger", "permission")},
                        "model": spec.get("model"),
                        "preset": spec.get("preset"),
                        "automationId": row.id,
                        "enabled": row.enabled,
                        "nextRunAt": self._next_ms(row),
                        "lastRun": None if last is None else self._view(last),
                    }
                )
            )
        return items

    def _next_ms(self, row: AutomationRow) -> int | None:
        trigger = row.spec["trigger"]
        if not row.enabled or trigger["kind"] != "schedule":
            return None
        now = self._clock.now()
        if latest_due(trigger["cron"], trigger.get("timeZone"), _when(row.since), now) is not None:
            return ms(now)  # owed: it runs at the next pass
        found = next_after(trigger["cron"], trigger.get("timeZone"), max(now, _when(row.since)))
        return None if found is None else ms(found)

    # ---- the runs -------------------------------------------------------------------------------

    def runs(self, automation_id: str | None, archived: bool) -> list[AutomationRun]:
        """One automation's runs newest first; without one, the inbox: unread first, then newest."""
        if automation_id is not None:
            self._get(automation_id)
        chosen = [
            r
            for r in self._runs.values()
            if (automation_id is None or r.automation_id == automation_id) and (archived or not r.archived)
        ]
        chosen.sort(key=lambda r: (r.started_at, r.run_id), reverse=True)
        if automation_id is None:
            chosen.sort(key=lambda r: r.read)  # stable: unread first, each part newest first
        return [self._view(r) for r in chosen]

    def _view(self, run: RunRow) -> AutomationRun:
        auto = self._autos.get(run.automation_id)
        return AutomationRun(
            run_id=run.run_id,
            automation_id=run.automation_id,
            automation_name=auto.spec["name"] if auto is not None else "",
            session_id=run.session_id,
            started_at=run.started_at,
            ended_at=run.ended_at,
            outcome=run.outcome,  # type: ignore[arg-type]
            changed_files=run.changed,
            summary=run.summary,
            read=run.read,
            archived=run.archived,
        )

    def _run(self, run_id: str) -> RunRow:
        run = self._runs.get(run_id)
        if run is None:
            raise AutomationNotFound(run_id=run_id)
        return run

    async def mark_read(self, run_id: str) -> None:
        run = self._run(run_id)
        run.read = True
        await self._save(run)

    async def archive(self, run_id: str) -> None:
        run = self._run(run_id)
        run.archived = True
        run.read = True
        await self._save(run)

    async def discard(self, run_id: str) -> None:
        """The run's session and its worktree go, and its row; an active run is refused."""
        run = self._run(run_id)
        if run.outcome in ACTIVE and self._active.get(run.automation_id) == run.run_id:
            raise AutomationRunning(run.automation_id, run.run_id)
        if run.session_id is not None and await self._drive.exists(run.session_id):
            await self._drive.discard(run.session_id)
        await self._store.call(lambda conn: tables.delete_run(conn, run_id))
        await self._store.flush()
        self._runs.pop(run_id, None)

    async def run_now(self, automation_id: str) -> tuple[str, str]:
        row = self._get(automation_id)
        run = await self._start(row, None)
        assert run is not None and run.session_id is not None
        return run.run_id, run.session_id

    async def _start(self, row: AutomationRow, slot: datetime | None, kind: str = "now") -> RunRow | None:
        """Claim and start a run (`slot`: the schedule's; None: run now or a file change). A
        claimed slot returns None; an active run raises AutomationRunning."""
        now = self._clock.now()
        async with self._lock:
            active = self._active.get(row.id)
            if active is not None:
                raise AutomationRunning(row.id, active)
            run_id = f"run-{secrets.token_hex(8)}"
            run = RunRow(
                run_id,
                row.id,
                str(ms(slot)) if slot is not None else f"{kind}:{run_id}",
                ids.session_id(),
                ms(now),
                None,
                "running",
                0,
                "",
                False,
                False,
            )
            since = ms(slot) if slot is not None else None
            claimed = await self._store.call(lambda conn: tables.claim(conn, run, since))
            await self._store.flush()
            if since is not None:
                row.since = max(row.since, since)
            if not claimed:
                return None
            self._runs[run_id] = run
            self._active[row.id] = run_id
        assert run.session_id is not None
        self._launching.add(run_id)
        try:
            in_repository = await asyncio.to_thread(spot, row.spec["cwd"]) is not None
            await launch(self._drive, row.spec, run.session_id, run_id, in_repository, now)
        except Exception as exc:
            log.warning("automation %s: the run could not start: %s", row.id, exc)
            if not await self._drive.exists(run.session_id):
                run.session_id = None
            await self._finish(run, "failed", 0, f"The run could not start: {exc}"[:200])
        finally:
            self._launching.discard(run_id)
        return run

    # ---- how a run ends -------------------------------------------------------------------------

    def turn_ended(
        self, agent: Agent, _first: Message, reason: TurnEndReason, answer: Message | None
    ) -> None:
        """Pool hook: a run's session ended a turn; with nothing more queued the run is over."""
        run = self._run_of(agent.session_id)
        if run is None or agent.input.inbox.next_turn:
            return
        text = "".join(b.text for b in (answer.content if answer else []) if isinstance(b, TextBlock))
        self._settling.add(run.run_id)
        self._spawn(self._settle(run, reason, summary_of(text)), f"settle {run.run_id}")

    def _run_of(self, session_id: str) -> RunRow | None:
        for run_id in self._active.values():
            run = self._runs.get(run_id)
            if run is not None and run.session_id == session_id:
                return run
        return None

    async def _settle(self, run: RunRow, reason: TurnEndReason, summary: str) -> None:
        try:
            await self._settled(run, reason, summary)
        finally:
            self._settling.discard(run.run_id)

    async def _settled(self, run: RunRow, reason: TurnEndReason, summary: str) -> None:
        if reason.kind != "completed":
            why = {"aborted": "Stopped", "error": "The model or the host failed", "blocked": "Refused"}
            text = summary or f"{why.get(reason.kind, 'Ended early')} ({reason.kind})."
            await self._finish(run, "failed", 0, text)
            return
        assert run.session_id is not None
        try:
            changed = await self._drive.changed_files(run.session_id)
        except Exception as exc:
            log.warning("run %s: its changes could not be counted: %s", run.run_id, exc)
            changed = 0
        await self._finish(run, "changed" if changed else "answered", changed, summary)

    async def _finish(self, run: RunRow, outcome: str, changed: int, summary: str) -> None:
        run.outcome = outcome
        run.changed = changed
        run.summary = summary
        run.ended_at = ms(self._clock.now())
        run.read = False
        self._asking_since.pop(run.run_id, None)
        if self._active.get(run.automation_id) == run.run_id:
            del self._active[run.automation_id]
        self._ended_at[run.automation_id] = time.monotonic()
        await self._save(run)
        self._wake.set()

    async def _save(self, run: RunRow) -> None:
        await self._store.call(lambda conn: tables.write_run(conn, run))
        await self._store.flush()

    # ---- the loop -------------------------------------------------------------------------------

    def wake(self) -> None:
        """Look again now (a test moved its clock; a setting changed)."""
        self._wake.set()

    async def _loop(self) -> None:
        while not self._closed:
            try:
                delay = await self.tick()
            except Exception:
                log.exception("the automations' pass failed; trying again later")
                delay = TICK
            sleeper = asyncio.ensure_future(self._clock.sleep(delay))
            waker = asyncio.ensure_future(self._wake.wait())
            try:
                await asyncio.wait({sleeper, waker}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                sleeper.cancel()
                waker.cancel()
            self._wake.clear()

    async def tick(self) -> float:
        """One pass: start due schedules, pause long waits; returns how long to sleep."""
        now = self._clock.now()
        await self._pause_waiting(now)
        soonest = now + timedelta(seconds=TICK)
        for row in list(self._autos.values()):
            trigger = row.spec["trigger"]
            if not row.enabled or trigger["kind"] != "schedule":
                continue
            zone_name = trigger.get("timeZone")
            due = latest_due(trigger["cron"], zone_name, _when(row.since), now)
            if due is not None and row.id not in self._active:
                try:
                    await self._start(row, due)
                except AutomationRunning:
                    pass
            upcoming = next_after(trigger["cron"], zone_name, max(now, _when(row.since)))
            if upcoming is not None:
                soonest = min(soonest, upcoming)
        return max(0.05, (soonest - now).total_seconds())

    async def _pause_waiting(self, now: datetime) -> None:
        """A run that waits on an approval or a question says it needs the person; after the
        setting's minutes it gives its turn slot back (it queues again once answered)."""
        limit = timedelta(minutes=max(1, self._drive.pause_after_minutes()))
        for run_id in list(self._active.values()):
            run = self._runs.get(run_id)
            if run is None or run.session_id is None:
                continue
            agent = self._drive.agent(run.session_id)
            busy = run_id in self._settling or run_id in self._launching
            if agent is not None and not busy and _quiet(agent):
                # Stop before its first turn opened (or input dropped): no turn end will tell
                await self._finish(run, "failed", 0, "Stopped before it began.")
                continue
            asking = self._drive.asking(run.session_id) > 0
            if not asking:
                self._asking_since.pop(run_id, None)
                if run.outcome == "needs-you":
                    run.outcome = "running"
                    await self._save(run)
                continue
            since = self._asking_since.setdefault(run_id, now)
            if run.outcome != "needs-you":
                run.outcome = "needs-you"
                run.read = False
                await self._save(run)
            if now - since >= limit:
                agent = self._drive.agent(run.session_id)
                if agent is not None and agent.give_back_slot():
                    log.info("run %s waited on the person since %s: its slot is given back", run_id, since)

    # ---- file triggers --------------------------------------------------------------------------

    def _watch(self, row: AutomationRow) -> None:
        trigger = row.spec["trigger"]
        if self._closed or not row.enabled or trigger["kind"] != "files":
            return
        spec = GitIgnoreSpec.from_lines(trigger["paths"])

        def changed(paths: list[str]) -> None:
            if not any(p and spec.match_file(p) for p in paths):
                return
            if row.id in self._active:
                return  # the run's own writes (a run outside a repository works here)
            ended = self._ended_at.get(row.id)
            if ended is not None and time.monotonic() - ended < QUIET_AFTER_RUN:
                return
            self._spawn(self._file_run(row.id), f"files {row.id}")

        try:
            self._watches[row.id] = FolderWatch(row.spec["cwd"], changed)
        except Exception as exc:
            log.warning("automation %s: cannot watch %s: %s", row.id, row.spec["cwd"], exc)

    async def _file_run(self, automation_id: str) -> None:
        row = self._autos.get(automation_id)
        if row is None or not row.enabled:
            return
        with contextlib.suppress(AutomationRunning):
            await self._start(row, None, "files")

    async def _unwatch(self, automation_id: str) -> None:
        watch = self._watches.pop(automation_id, None)
        if watch is not None:
            await watch.stop()

    def _spawn(self, work: Any, name: str) -> None:
        task = asyncio.create_task(work, name=name)
        self._tasks.add(task)

        def done(t: asyncio.Task[Any]) -> None:
            self._tasks.discard(t)
            if not t.cancelled() and t.exception() is not None:
                log.error("automations: %s failed", name, exc_info=t.exception())

        task.add_done_callback(done)
