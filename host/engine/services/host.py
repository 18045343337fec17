"""`engine.host`: what the host says about itself (`host.describe`) and its streams — the mux
and host subscriptions, and the answers clients give to pending requests."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from contract import __version__
from contract.frames import SessionJobs, SessionQueue, SessionSubscribed
from contract.host import DescribeValue
from contract.permissions import SandboxStatus
from contract.rpc import ClientResponse, ReceiptAccepted, ReceiptRefused
from host.engine.agent.agent import Agent
from host.engine.agent.pending import PendingTable
from host.engine.llm.model_status import ModelStatusRelay
from host.engine.sandbox import support
from host.engine.services.jobs import Jobs
from host.engine.sessions.bus import Bus, Item, Subscription, push
from host.engine.settings.selection import Selections
from host.engine.store import ids
from host.engine.tools.permissions.modes import applied, preset
from host.engine.workspaces.folders import can_open_path


class HostSurface:
    """`host.describe`, the mux and host streams, answers to pending requests, ending the streams."""

    def __init__(
        self,
        bus: Bus,
        pending: PendingTable,
        agents: dict[str, Agent],
        selections: Selections,
        default_cwd: str,
        jobs: Jobs,
        model_status: ModelStatusRelay,
        default_preset: Callable[[], str],
    ) -> None:
        """`agents`: the attached agents (the pool's map), read for the mux snapshot."""
        self._bus = bus
        self._pending = pending
        self._agents = agents
        self._selections = selections
        self._default_cwd = default_cwd
        self._default_preset = default_preset
        self._jobs = jobs
        self._model_status = model_status
        self.instance_id = ids.host_instance_id()
        """Changes with every start (a client that sees it change reloads)."""
        self._focus: dict[str, frozenset[str] | None] = {}
        """Per open mux stream: the sessions its page shows (None: all, until it says)."""

    def describe(self) -> DescribeValue:
        selection = self._selections.default()
        return DescribeValue(
            version=__version__,
            cwd=self._default_cwd,
            home=str(Path.home()),
            provider=selection.provider,
            model=selection.model,
            attached_sessions=len(self._agents),
            can_open_path=can_open_path(),
            host_instance_id=self.instance_id,
            new_session_mode=applied(preset(self._default_preset()), support().available).option(),
            sandbox=SandboxStatus(kind=support().kind, reason=support().reason),
        )

    def subscribe_mux(self, limit: int | None = None) -> Subscription:
        """`session/subscribed` + pending replays + queue per attached session, then live frames."""
        return self._bus.subscribe("mux", self._mux_snapshot, limit)

    def open_focus(self) -> str:
        """A name for a new mux stream; it carries every session's chunks until `focus`."""
        stream_id = ids.mux_stream_id()
        self._focus[stream_id] = None
        return stream_id

    def close_focus(self, stream_id: str) -> None:
        self._focus.pop(stream_id, None)

    def focus(self, stream_id: str, session_ids: Iterable[str]) -> bool:
        """The page of `stream_id` shows these sessions: only their chunks are streamed to it
        (docs/decisions/performance-under-load.md). False when the stream is not open."""
        if stream_id not in self._focus:
            return False
        self._focus[stream_id] = frozenset(session_ids)
        return True

    def shown(self, stream_id: str) -> frozenset[str] | None:
        """The sessions whose chunks `stream_id` carries (None: every session's)."""
        return self._focus.get(stream_id)

    def _mux_snapshot(self) -> Iterable[Item]:
        pending = self._pending
        for sid, agent in self._agents.items():
            yield push(SessionSubscribed(session_id=sid, last_seq=agent.journal.visible_seq))
            yield from pending.requests_for(sid)
            yield push(SessionQueue(session_id=sid, items=agent.input.shown_queue()))
        for sid in self._jobs.sessions():
            yield push(SessionJobs(session_id=sid, jobs=self._jobs.views(sid)))

    def subscribe_host(self, limit: int | None = None) -> Subscription:
        """Live host frames; `host/model-status loading` first while the built-in model loads."""
        return self._bus.subscribe("host", self._model_status.snapshot, limit)

    def respond(self, response: ClientResponse) -> ReceiptAccepted | ReceiptRefused:
        return self._pending.respond(response)

    def end_streams(self) -> None:
        """End every open stream now (a stop signal: the server need not wait for them)."""
        self._bus.close_all()
