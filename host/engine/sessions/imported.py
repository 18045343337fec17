"""Imported sessions work where the importing user says (docs/threat-model.md), and never run
input that was queued elsewhere (docs/decisions.md, "Long sessions")."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from typing import Any

from contract.events import InboxTarget
from host.engine.sessions.inbox import REPLAYED, replay
from host.engine.sessions.titles import normalise
from host.engine.store import ExportEvent, ExportHeader, ExportRow, Store


def parent_of(rows: Iterable[ExportRow]) -> str | None:
    """The `parentSession` the rows' header names."""
    for row in rows:
        if isinstance(row, ExportHeader):
            parent = json.loads(row.json).get("parentSession")
            return str(parent) if parent else None
    return None


def rows_with_cwd(rows: Iterable[ExportRow], cwd: str, has_parent: bool = True) -> list[ExportRow]:
    """The rows with the header's cwd replaced by `cwd` (an existing directory, resolved): the
    archive's own cwd is never used. Without its parent a subagent's header loses `origin`:
    nothing could message it (docs/decisions.md, "Subagents"). ValueError when `cwd` is not a
    directory.

    Titles are normalised as a rename's is (no control or bidi characters, one line), and the
    header's title is the one the log's last `session/title` event names, so the sidebar (the
    header's) and the conversation (the log's) show the same title (docs/decisions.md, "Small
    UX fixes (issue 31)")."""
    chosen = os.path.realpath(os.path.expanduser(cwd))
    if not os.path.isdir(chosen):
        raise ValueError(f"{chosen} is not a directory")
    out: list[ExportRow] = []
    at: int | None = None  # where the header row is in `out`
    header: dict[str, Any] = {}
    for row in rows:
        if isinstance(row, ExportHeader):
            header = json.loads(row.json)
            header["cwd"] = chosen
            if not has_parent:
                header.pop("origin", None)
            if isinstance(header.get("title"), str):
                header["title"] = normalise(header["title"]) or None
            at = len(out)
        elif isinstance(row, ExportEvent) and "title" in row.json:  # `session\/title` too
            row, titled = _clean_title_event(row)
            if titled is not None and at is not None:
                header["title"], header["titleSource"] = titled
        out.append(row)
    if at is not None:
        out[at] = ExportHeader(json.dumps(header, ensure_ascii=False, separators=(",", ":")))
    return out


def _clean_title_event(row: ExportEvent) -> tuple[ExportEvent, tuple[str | None, Any] | None]:
    """A `session/title` event with its title normalised, and (title, source kind) for the
    header; other rows as they are (the store's own checks refuse a malformed event)."""
    try:
        event = json.loads(row.json)
    except ValueError:
        return row, None
    data = event.get("data") if isinstance(event, dict) and event.get("type") == "session/title" else None
    if not isinstance(data, dict) or not isinstance(data.get("title"), str):
        return row, None
    data["title"] = normalise(data["title"])
    source = data.get("source")
    kind = source.get("kind") if isinstance(source, dict) else None
    clean = ExportEvent(json.dumps(event, ensure_ascii=False, separators=(",", ":")))
    return clean, (data["title"] or None, kind)


async def drop_pending_input(store: Store, session_id: str) -> None:
    """Cancel what the archive's inbox still held (logged as `canceled` splices): an imported
    session runs nothing until the user prompts it."""
    lists = replay(await store.events_of_types(session_id, REPLAYED))
    if not lists:
        return
    targets: list[InboxTarget] = [t for t in ("next-turn", "next-step") if lists.of(t)]
    news = [lists.splice(t, 0, len(lists.of(t)), canceled=True) for t in targets]
    header = await store.header(session_id)
    assert header is not None  # just imported
    last = (await store.events(session_id, header.last_seq))[-1]
    store.append(session_id, [new.stamp(last.seq + 1 + i, last.time) for i, new in enumerate(news)])
