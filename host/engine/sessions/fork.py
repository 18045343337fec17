"""Forking a session: a child with the parent's history through a completed turn, then
`session/end-seed` (and the parent's title with " (fork)" appended, as an auto title, so a
fork never has exactly its parent's title: docs/decisions.md, "Review and context")."""

from __future__ import annotations

from host.engine.errors import ForkUnavailable
from host.engine.sessions import events
from host.engine.sessions.journal import Journal, now_ms
from host.engine.store import SessionHeader, Store, ids

FORK_TITLE_ROOM = 993  # the title's 1000 characters (contract/sessions.py) less " (fork)"


async def fork_session(
    store: Store, header: SessionHeader, parent_journal: Journal | None, at_seq: int | None
) -> SessionHeader:
    """Copy `header`'s session through the anchor turn into a new child; returns its header."""
    anchor = await store.fork_anchor(header.id, at_seq)
    if anchor is None:
        raise ForkUnavailable(header.id, "no completed turn at or after that point")
    child = SessionHeader(
        id=ids.session_id(),
        created_at=now_ms(),
        cwd=header.cwd,
        parent_session=header.id,
        agent_preset=header.agent_preset,
    )
    await store.fork(header.id, child, anchor)
    stamp = now_ms()
    seed = [events.end_seed().stamp(anchor + 1, stamp)]
    copied = await store.header(child.id)
    parent_title = parent_journal.title if parent_journal is not None else header.title
    # the parent's current title (what its row shows), else the one copied with the history
    base = parent_title or (copied.title if copied else None)
    if base:
        # The first turn's auto title lands after its turn/end, past the anchor: carry it over
        # as an auto title, so the child's own first completed turn can still replace it.
        title = f"{base[:FORK_TITLE_ROOM]} (fork)"
        seed.append(events.session_title(title, "auto").stamp(anchor + 2, stamp))
    store.append(child.id, seed)
    return child
