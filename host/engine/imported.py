"""Imported sessions work where the importing user says (docs/threat-model.md), and never run
input that was queued elsewhere (docs/decisions.md, "Long sessions")."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable

from contract.events import InboxTarget
from host.engine.inbox import REPLAYED, replay
from host.engine.store import ExportHeader, ExportRow, Store


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
    directory."""
    chosen = os.path.realpath(os.path.expanduser(cwd))
    if not os.path.isdir(chosen):
        raise ValueError(f"{chosen} is not a directory")
    out: list[ExportRow] = []
    for row in rows:
        if isinstance(row, ExportHeader):
            header = json.loads(row.json)
            header["cwd"] = chosen
            if not has_parent:
                header.pop("origin", None)
            row = ExportHeader(json.dumps(header, ensure_ascii=False, separators=(",", ":")))
        out.append(row)
    return out


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
