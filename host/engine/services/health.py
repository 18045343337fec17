"""What the engine does with the store's verdicts: show durable frames, survive failed writes.

After every transaction the store reports which writes are durable (`Settled`): their frames
are released on the bus. When a transaction failed (a full disk, a damaged file):
- each session that lost writes gets one `host/agent-error` with the store's sentence
  ("the disk is full: …"), and its agent is abandoned without writing anything more; its open
  turn is closed with `turn/end {kind: "error"}` carrying that sentence when the session is
  next loaded — which a recovery task does as soon as a probe write succeeds again;
- until then new prompts are refused with the same typed `storage-error`, so nobody waits on a
  turn that cannot be saved (docs/decisions.md "Reliability"); a prompt probes the store
  itself first (`admit`), so one sent as soon as space is back is accepted without waiting out
  the recovery task's backoff (docs/decisions.md "Crash windows").
It also runs the daily backups, and refuses new turns for good once the file is found damaged.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from pathlib import Path

from contract.frames import HostAgentError
from host.engine.agent.pool import AgentPool
from host.engine.sessions import events
from host.engine.sessions.bus import Bus
from host.engine.sessions.journal import Journal
from host.engine.store import Settled, Store, StoreCorrupt, StoreError
from host.engine.store.backup import BackupSchedule

log = logging.getLogger(__name__)

RETRY_FIRST = 0.5
RETRY_MAX = 5.0


class StorageHealth:
    """The store's health: write failures, recovery probes, backups."""

    def __init__(self, store: Store, bus: Bus, pool: AgentPool) -> None:
        self._store = store
        self._bus = bus
        self._pool = pool
        self.error: StoreError | None = None
        """The last store failure while writes are still failing; None when healthy."""
        self.damage: StoreCorrupt | None = None
        """Set for good once the database file is known to be damaged (it does not heal)."""
        self._recovery: asyncio.Task[None] | None = None
        self._probing = asyncio.Lock()
        """One probe (and the repairs after it) at a time: the recovery task's or a prompt's."""
        self._closed = False
        self._told: set[str] = set()
        """Sessions already told about the current failure."""
        self.backups: BackupSchedule | None = None

    def start_backups(self, database: Path, folder: Path, *, fully_checked: bool) -> None:
        """Daily backups of `database` into `folder` (and the rest of a partial start-up check)."""
        self.backups = BackupSchedule(database, folder, fully_checked=fully_checked, on_damage=self.damaged)
        self.backups.start()

    def settled(self, settled: Settled) -> None:
        """The store's report after a transaction (on the event loop)."""
        self._bus.settle(settled.through, settled.dropped)
        if settled.error is None:
            return
        error = settled.error
        self.error = error
        if isinstance(error, StoreCorrupt):
            self.damage = error
        reason = events.failed(str(error))
        for sid in sorted(settled.failed_sessions):
            if sid not in self._told:  # once per episode, not at every failed retry
                self._told.add(sid)
                self._bus.publish("host", HostAgentError(session_id=sid, message=str(error)))
            self._pool.abandon(sid, reason)
        if not settled.failed_sessions:
            log.error("a store write failed: %s", error)
        self._start_recovery()

    def check(self) -> None:
        """Refuse new work while the store cannot write (raises the typed store error)."""
        if self.damage is not None:
            raise self.damage
        if self.error is not None:
            raise self.error

    async def admit(self) -> None:
        """Before new work: while writes are failing, probe the store now (a write that needs
        fresh pages) instead of waiting for the next recovery round; still failing (or damaged)
        raises the typed store error."""
        if self.damage is not None:
            raise self.damage
        if self.error is None:
            return
        if not await self._recovered():
            self.check()
            raise StoreError("the store cannot write yet; try again")  # a recovery round raced

    async def saved(self, journal: Journal, seq: int) -> None:
        """Return once the event at `seq` is on disk, so an RPC that reports it (an accepted
        prompt, a rename) is never taken back by a crash; a failed write is the typed store error."""
        if not await journal.saved(seq):
            self.check()
            raise StoreError(f"session {journal.session_id} could not be saved; try again")

    def damaged(self, sentence: str) -> None:
        """A background check found the file damaged: tell every open session, refuse new turns."""
        self.damage = StoreCorrupt(sentence)
        log.error("%s", sentence)
        for sid in sorted(self._pool.agents):
            self._bus.publish("host", HostAgentError(session_id=sid, message=sentence))

    def _start_recovery(self) -> None:
        if self._closed or (self._recovery is not None and not self._recovery.done()):
            return
        self._recovery = asyncio.get_running_loop().create_task(self._recover(), name="store-recovery")

    async def _recover(self) -> None:
        """Probe until a write succeeds, then close the failed sessions' open turns on disk."""
        delay = RETRY_FIRST
        while not self._closed:
            await asyncio.sleep(delay)
            delay = min(delay * 2, RETRY_MAX)
            try:
                if await self._recovered():
                    return
            except Exception:  # never end silently: log, and try again later
                log.exception("store recovery round failed")

    async def _recovered(self) -> bool:
        async with self._probing:
            if self.error is None and not self._pool.failed:
                return True  # a concurrent probe (a prompt's, or a recovery round's) got there first
            return await self._probe_and_close()

    async def _probe_and_close(self) -> bool:
        try:
            await self._store.probe()
        except StoreError as exc:
            log.info("the store still cannot write: %s", exc)
            return False
        self.error = None
        for sid in list(self._pool.failed):
            if sid in self._pool.agents:
                continue
            try:
                await self._pool.attach(sid)  # writes the repair that ends the turn with the error
            except StoreError as exc:
                log.info("closing the failed turn of %s did not work yet: %s", sid, exc)
        await self._store.flush()
        if self.error is not None:  # the repair failed again (settled() saw it)
            return False
        self._told.clear()
        return True

    async def close(self) -> None:
        self._closed = True
        if self.backups is not None:
            await self.backups.close()
        task = self._recovery
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
