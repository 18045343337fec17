"""The store interface between the engine and its database (docs/architecture.md, "Persistence").

Only SQLite ships; another backend (e.g. PostgreSQL for a shared host) implements `Store`.
Writes are submitted without waiting (ordered, batched by the backend); reads are awaited and
always observe every write submitted before them.
"""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, NamedTuple, Protocol, TypeVar

from contract.content import AttachmentRef
from contract.errors import ReasonDetails
from contract.events import STORED, SessionEvent
from contract.sessions import ORIGINS, SessionOrigin
from host.engine.errors import EngineError
from host.engine.store.blobs import Checkpoint
from host.engine.store.grants import Grant

T = TypeVar("T")


class StoreError(EngineError[ReasonDetails]):
    """A store failure that is not the caller's fault (I/O, closed store, …).

    `kind` says what went wrong in one word (the `reason` of the `storage-error` RPC error);
    the message is one sentence a user can act on.
    """

    code = "storage-error"
    kind: ClassVar[str] = "io"

    def __init__(self, message: str) -> None:
        super().__init__(message, ReasonDetails(reason=self.kind))


class StoreFull(StoreError):
    """The disk holding the database is full (SQLITE_FULL, ENOSPC)."""

    kind = "disk-full"


class StoreCorrupt(StoreError):
    """The database file is damaged (SQLITE_CORRUPT, SQLITE_NOTADB, unreadable stored data)."""

    kind = "corrupt"


class StoreTimeout(StoreError):
    """The database did not answer within its bound (a stuck disk, a lock held elsewhere)."""

    kind = "timeout"


class StoreClosed(StoreError):
    """The store was closed (the host is shutting down)."""

    kind = "closed"


class SeqGapError(StoreError):
    """An append would leave a gap (or overlap) in a session's contiguous seqs."""

    kind = "invalid"


class SessionExists(StoreError):
    """A create, fork or import for a session id that is already taken."""

    kind = "invalid"

    def __init__(self, session_id: str) -> None:
        super().__init__(f"session {session_id} already exists")
        self.session_id = session_id


class UnknownSession(StoreError):
    """An append for a session the store has never been told about."""

    kind = "invalid"


@dataclass(frozen=True)
class Settled:
    """What one transaction (or one run of dropped writes) decided, reported on the loop."""

    through: int
    """Every ticket ≤ `through` is settled: committed, or listed in `dropped`."""
    dropped: frozenset[int] = frozenset()
    """Tickets whose writes did not commit (failed now, or queued behind an earlier failure)."""
    error: StoreError | None = None
    """Why the first of them failed (None when they were only stale)."""
    failed_sessions: frozenset[str] = frozenset()
    """Sessions that lost writes in *this* failure (their in-memory log must be rewound)."""


@dataclass
class SessionHeader:
    id: str
    created_at: int
    cwd: str | None = None
    parent_session: str | None = None
    seed_length: int = 0
    agent_preset: str | None = None
    title: str | None = None
    title_source: Literal["user", "auto"] | None = None
    last_activity: int | None = None
    blank: bool = True
    origin: SessionOrigin | None = None
    """`subagent`: started by its parent's `task` call (docs/architecture.md, "Subagents");
    `acp`: started by an editor over ACP (docs/decisions.md, "ACP bridge")."""
    model: dict[str, Any] | None = None
    """The newest `request/header` data (provider, model, reasoningEffort)."""
    last_seq: int = -1
    open_turn_start: int | None = None
    """seq of the `turn/start` of a turn without `turn/end`, if any."""
    last_turn: int = -1
    """The highest turn number logged (-1 before the first turn)."""

    @property
    def updated_at(self) -> int:
        return self.last_activity if self.last_activity is not None else self.created_at

    def to_row(self) -> dict[str, Any]:
        """The export line (camelCase, derived fields left out; `origin` only when set)."""
        row = {
            "id": self.id,
            "createdAt": self.created_at,
            "cwd": self.cwd,
            "parentSession": self.parent_session,
            "seedLength": self.seed_length,
            "agentPreset": self.agent_preset,
            "title": self.title,
            "titleSource": self.title_source,
            "lastActivity": self.last_activity,
            "blank": self.blank,
        }
        if self.origin is not None:
            row["origin"] = self.origin
        return row

    def listed(self) -> ListedSession:
        return ListedSession(
            id=self.id,
            created_at=self.created_at,
            updated_at=self.updated_at,
            cwd=self.cwd,
            parent_session=self.parent_session,
            agent_preset=self.agent_preset,
            title=self.title,
            blank=self.blank,
            origin=self.origin,
        )

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> SessionHeader:
        return cls(
            id=str(row["id"]),
            created_at=int(row["createdAt"]),
            cwd=row.get("cwd"),
            parent_session=row.get("parentSession"),
            seed_length=int(row.get("seedLength") or 0),
            agent_preset=row.get("agentPreset"),
            title=row.get("title"),
            title_source=row.get("titleSource"),
            last_activity=row.get("lastActivity"),
            blank=bool(row.get("blank", True)),
            origin=origin_of(row.get("origin")),
        )


class ListedSession(NamedTuple):
    """A session's row as `session.list` and the subagent tree read it: the header's own
    columns, none of its derived values (those cost a query per session). A named tuple: built
    once per session on every list, it costs a fraction of a frozen dataclass's `__init__`
    (docs/decisions/search-lane.md)."""

    id: str
    created_at: int
    updated_at: int
    cwd: str | None
    parent_session: str | None
    agent_preset: str | None
    title: str | None
    blank: bool
    origin: SessionOrigin | None


def origin_of(value: Any) -> SessionOrigin | None:
    """A stored origin, or None for anything this version does not know."""
    return value if value in ORIGINS else None


@dataclass
class Page:
    """A history page as stored: each event's (seq, type, JSON). The JSON is what `event_json`
    wrote, so it is spliced into answers as is (docs/decisions.md, "History answers spliced");
    `events` validates it for callers that want models."""

    rows: list[tuple[int, str, bytes]]
    has_more: bool
    cut: int

    @property
    def events(self) -> list[SessionEvent]:
        return [SessionEvent.model_validate_json(raw, context={STORED: True}) for _, _, raw in self.rows]


@dataclass
class SearchResult:
    hits: list[tuple[str, str, int]] = field(default_factory=list)
    """(sessionId, snippet ≤ 240 code points, seq of the message), one per matching message."""
    has_more: bool = False
    next_after: int | None = None
    """Where the next page starts (`search(after=…)`), when there is one."""
    total: int | None = None
    """Within one session: how many of its messages match."""


@dataclass(frozen=True)
class ExportHeader:
    json: str


@dataclass(frozen=True)
class ExportEvent:
    json: str


@dataclass(frozen=True)
class ExportAttachment:
    ref: AttachmentRef
    data: bytes


ExportRow = ExportHeader | ExportEvent | ExportAttachment


class Store(Protocol):
    """What the engine needs from persistence."""

    def on_settled(self, listener: Callable[[Settled], None]) -> None:
        """`listener` is called on the event loop after each transaction: which write tickets
        are now durable and which were dropped (the engine publishes frames only for durable
        events, and reports failures); after the store has rewound the sessions that lost
        writes."""
        ...

    async def open(self) -> None: ...

    async def close(self, bound: float | None = None) -> None:
        """Commit what is queued and close; give up after `bound` seconds (None: the default)."""
        ...

    # ---- writes: submitted in order, never awaited on the hot path -------------------------

    def register(self, header: SessionHeader) -> None:
        """Know a new session; nothing is written until its first event (lazy sessions)."""
        ...

    def append(self, session_id: str, events: Sequence[SessionEvent]) -> int:
        """Queue events; returns the write's ticket (see `Settled`). Raises SeqGapError at once
        when they do not continue the log."""
        ...

    def next_seq(self, session_id: str) -> int:
        """The seq the session's next event must take (rewound after a failed write)."""
        ...

    def put_attachment(self, ref: AttachmentRef, data: bytes) -> int: ...

    async def put_checkpoint(
        self, session_id: str, turn: int, path: str, sha256: str | None, data: bytes | None
    ) -> None:
        """Keep what `path` held before `turn` first changed it (sha256 None: absent); returns
        once it is committed."""
        ...

    async def checkpoint(self, session_id: str, turn: int, path: str) -> Checkpoint | None:
        """That checkpoint (None: none was kept)."""
        ...

    async def call(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run `fn(conn)` in its own transaction after every write submitted so far: the side
        tables of undo (`host/engine/files/snapshots/rows.py`), committed on return."""
        ...

    def commit(self) -> None:
        """End the current write batch now (a step boundary)."""
        ...

    async def flush(self, checkpoint: bool = False) -> None:
        """Wait (bounded) until everything submitted is settled (and the WAL checkpointed).

        Failed writes are reported through `on_settled`, not raised here. On a closed store:
        at once when everything is settled, else `StoreClosed`."""
        ...

    async def settled(self, ticket: int) -> None:
        """Wait (bounded) until the write of `ticket` and every one before it is settled, not
        the writes submitted after it (an RPC that reports its own event).

        Failed writes are reported through `on_settled`, not raised here. On a closed store:
        at once when that write is settled, else `StoreClosed`."""
        ...

    async def probe(self) -> None:
        """Write and commit one tiny row: raises the typed StoreError while writes fail."""
        ...

    # ---- reads ----------------------------------------------------------------------------

    def known(self, session_id: str) -> bool:
        """Whether the session was registered or loaded in this process."""
        ...

    async def header(self, session_id: str) -> SessionHeader | None: ...

    async def set_cwd(self, session_id: str, cwd: str) -> None:
        """Move a session to another folder (a worktree hand-off, docs/decisions.md "Worktree
        sessions"); committed on return. Its agent must not be loaded."""
        ...

    async def sessions(self) -> list[ListedSession]:
        """Every session (written or only registered), newest activity first."""
        ...

    async def events(self, session_id: str, start: int = 0, end: int | None = None) -> list[SessionEvent]:
        """Events with start ≤ seq < end, in order."""
        ...

    async def events_of_types(self, session_id: str, types: tuple[str, ...]) -> list[SessionEvent]:
        """Every event of the given types, in seq order."""
        ...

    async def latest_of_types(self, session_id: str, types: tuple[str, ...]) -> SessionEvent | None:
        """The newest event of the given types (found from the end of the log)."""
        ...

    async def pending_inbox(self) -> list[str]:
        """Sessions whose inbox holds next-turn input (resumed when the host starts)."""
        ...

    # ---- approval grants: host-side only, never exported, imported or forked ---------------

    async def grants(self, session_id: str) -> list[Grant]:
        """The session's "Allow always" grants (docs/threat-model.md)."""
        ...

    def add_grant(self, session_id: str, grant: Grant) -> int:
        """Remember a grant (queued like any write); returns the write's ticket."""
        ...

    def revoke_grants(self, session_id: str, tool: str | None = None, scope: str | None = None) -> int:
        """Forget one rule, a tool's rules, or (no tool) every permission row of the session;
        returns the write's ticket."""
        ...

    async def policy(self, session_id: str) -> str | None:
        """The permission preset the session is pinned to (None before it is pinned)."""
        ...

    def set_policy(self, session_id: str, preset: str, created_at: int) -> int:
        """Pin the session's permission preset (queued like any write); returns the ticket."""
        ...

    async def surface_events(self, session_id: str) -> list[SessionEvent]:
        """The conversation events (user/steering/assistant messages, tool results), in order."""
        ...

    async def page(self, session_id: str, before_seq: int | None, max_messages: int) -> Page: ...

    async def fork_anchor(self, session_id: str, at_seq: int | None) -> int | None:
        """seq of the turn/end a fork copies through, or None when no anchor fits."""
        ...

    async def fork(self, source_id: str, child: SessionHeader, through_seq: int) -> None:
        """Copy events 0..through_seq of the source into the new child session."""
        ...

    async def search(
        self, query: str, limit: int = 20, session_id: str | None = None, after: int | None = None
    ) -> SearchResult: ...

    async def attachment(self, session_id: str, attachment_id: str) -> tuple[AttachmentRef, bytes] | None:
        """An attachment the session references, else None."""
        ...

    async def delete_session(self, session_id: str) -> None:
        """Remove the session, its side rows and blobs nobody else uses; durable on return."""
        ...

    def export_rows(self, session_id: str) -> AsyncIterator[ExportRow]: ...

    async def import_rows(self, rows: Iterable[ExportRow] | AsyncIterator[ExportRow]) -> str: ...
