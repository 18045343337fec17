"""`session.list`: every session's summary, checked as one list (docs/decisions.md,
"Performance and packaging": a list of 2,000 sessions is answered in tens of milliseconds)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from pydantic import TypeAdapter, ValidationError

from contract._base import DEFERRED
from contract.sessions import Attention, SessionSummary
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
    try:
        return _SUMMARIES.validate_python(items)
    except ValidationError as exc:
        bad = {e["loc"][0] for e in exc.errors() if e["loc"] and isinstance(e["loc"][0], int)}
        for index in sorted(bad):
            log.warning("session.list: skipping session %r (its header is invalid)", rows[index].id[:80])
        return _SUMMARIES.validate_python([item for i, item in enumerate(items) if i not in bad])


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
