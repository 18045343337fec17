"""`session.list`: every session's summary, checked as one list (docs/decisions.md,
"Performance and packaging": a list of 2,000 sessions is answered in tens of milliseconds)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from pydantic import PrivateAttr, TypeAdapter, ValidationError

from contract._base import DEFERRED
from contract.sessions import Attention, ListValue, SessionSummary
from host.engine.sessions.history_wire import model_json
from host.engine.store.base import ListedSession

log = logging.getLogger(__name__)

_SUMMARIES = TypeAdapter(list[SessionSummary], config=DEFERRED)
"""One validator call for the whole list: a model built per session from Python costs several
times more than pydantic-core building all of them at once."""


class Live(NamedTuple):
    """What an attached session knows better than its stored row."""

    running: bool
    title: str | None
    agent_preset: str | None
    as_of_seq: int = -1
    values: Mapping[str, Any] | None = None
    """Live projection values (the title is added from `title`)."""


def summaries(
    rows: list[ListedSession],
    live: Mapping[str, Live],
    attention: Callable[[str], Attention] | None = None,
    worktrees: Mapping[str, Any] | None = None,
) -> list[SessionSummary]:
    """The rows (already newest first) as summaries; a row that breaks the contract (an old
    unchecked import) is skipped with a log line instead of failing the whole list.
    `attention`: each session's state (docs/decisions.md, "Parallel sessions and attention");
    `worktrees`: the `worktree` value of each session that works in one."""
    items = [_item(row, live.get(row.id)) for row in rows]
    if attention is not None:
        for item in items:
            view = attention(item["session_id"])
            if view.state != "idle":
                item["attention"] = view.model_dump(exclude_none=True)
    for item in items if worktrees else ():
        if (state := worktrees.get(item["session_id"])) is not None:  # type: ignore[union-attr]
            item["worktree"] = state
    return [s for s in _validated(rows, items) if s is not None]


def _validated(rows: list[ListedSession], items: list[dict[str, Any]]) -> list[SessionSummary | None]:
    """The items as summaries, one validator call; a row that breaks the contract is None (logged)."""
    try:
        return list(_SUMMARIES.validate_python(items))
    except ValidationError as exc:
        bad = {e["loc"][0] for e in exc.errors() if e["loc"] and isinstance(e["loc"][0], int)}
        for index in sorted(bad):
            log.warning("session.list: skipping session %r (its header is invalid)", rows[index].id[:80])
        good = iter(_SUMMARIES.validate_python([item for i, item in enumerate(items) if i not in bad]))
        return [None if i in bad else next(good) for i in range(len(items))]


class EncodedList(ListValue):
    """A `session.list` value already encoded as its wire JSON (as `EncodedHistory` is a history
    page's): the carrier sends `wire_json()` as is; `model_dump` (and so `to_wire`, e.g. the relay
    merging remote hosts' lists) decodes it back into the value it stands for."""

    _wire: bytes = PrivateAttr(default=b"")

    @classmethod
    def of(cls, wire: bytes) -> EncodedList:
        value = cls.model_construct(items=[])
        value._wire = wire
        return value

    def wire_json(self) -> bytes:
        return self._wire

    def decoded(self) -> ListValue:
        return ListValue.model_validate_json(self._wire)

    def model_dump(self, **kwargs: Any) -> dict[str, Any]:
        return self.decoded().model_dump(**kwargs)

    def model_dump_json(self, **kwargs: Any) -> str:
        return self.decoded().model_dump_json(**kwargs)


class ListEncoder:
    """`session.list` as wire JSON, each cold idle session's summary kept encoded while its row is
    unchanged (docs/decisions/many-sessions-streaming.md): a list of thousands validates and
    encodes only the rows that changed since the last list, and the live ones."""

    def __init__(self) -> None:
        self._encoded: dict[str, tuple[ListedSession, bytes | None]] = {}
        """Session id → (its row, its summary's JSON; None: the row breaks the contract), for the
        last list's cold idle rows."""

    def encode(
        self,
        rows: list[ListedSession],
        live: Mapping[str, Live],
        busy: Mapping[str, Attention],
        worktrees: Mapping[str, Any],
    ) -> EncodedList:
        """The same summaries `summaries` gives, as the bytes the carrier would send for them.
        `busy`: the attention of every session that is not idle."""
        known = self._encoded
        kept: dict[str, tuple[ListedSession, bytes | None]] = {}
        parts: list[bytes | None] = []
        fresh: list[tuple[int, ListedSession, bool]] = []
        items: list[dict[str, Any]] = []
        for row in rows:
            sid = row.id
            now = live.get(sid)
            view = busy.get(sid)
            tree = worktrees.get(sid)
            plain = now is None and view is None and tree is None
            if plain:
                entry = known.get(sid)
                if entry is not None and entry[0] == row:
                    kept[sid] = entry
                    parts.append(entry[1])
                    continue
            item = _item(row, now)
            if view is not None:
                item["attention"] = view.model_dump(exclude_none=True)
            if tree is not None:
                item["worktree"] = tree
            fresh.append((len(parts), row, plain))
            items.append(item)
            parts.append(None)
        if items:
            checked = _validated([row for _, row, _ in fresh], items)
            for (at, row, plain), summary in zip(fresh, checked, strict=True):
                data = None if summary is None else model_json(summary)
                parts[at] = data
                if plain:
                    kept[row.id] = (row, data)
        self._encoded = kept
        return EncodedList.of(b'{"items":[' + b",".join([p for p in parts if p is not None]) + b"]}")


def _item(row: ListedSession, live: Live | None) -> dict[str, Any]:
    return {
        "session_id": row.id,
        "updated_at": row.updated_at,
        "running": live.running if live is not None else False,
        "blank": row.blank,
        "title": live.title if live is not None else row.title,
        "parent_session_id": row.parent_session,
        "cwd": row.cwd,
        "agent_preset": live.agent_preset if live is not None else row.agent_preset,
        "origin": row.origin,
        **_projections(row, live),
    }


def _projections(row: ListedSession, live: Live | None) -> dict[str, Any]:
    """The row's `projections` block: live values for an attached session; for a cold one the
    stored title only (a cache read, no log load: `asOfSeq` -1). Omitted when empty."""
    if live is not None:
        values: dict[str, Any] = dict(live.values or {})
        if live.title is not None:
            values["title"] = live.title
        as_of = live.as_of_seq
    else:
        values = {"title": row.title} if row.title is not None else {}
        as_of = -1
    return {"projections": {"as_of_seq": as_of, "values": values}} if values else {}
