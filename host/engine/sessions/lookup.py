"""The session lookups most service methods start with, as plain functions over the store and the
bus; `Engine.open` binds them once (`partial(existing_header, store)`) and hands each service the
ones it uses (docs/architecture.md, "The engine")."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from contract.frames import HostSessionAdded
from host.engine.errors import SessionNotFound
from host.engine.sessions.bus import Bus
from host.engine.store import SessionHeader, Store

Header = Callable[[str], Awaitable[SessionHeader]]
"""A session's header; SessionNotFound when there is none (`existing_header` bound to the store)."""
Announce = Callable[[SessionHeader], None]
"""Tell the host stream a session was added (`announce` bound to the bus)."""


async def existing_header(store: Store, session_id: str) -> SessionHeader:
    """The session's header; SessionNotFound when there is none."""
    header = await store.header(session_id)
    if header is None:
        raise SessionNotFound(session_id)
    return header


def announce(bus: Bus, header: SessionHeader) -> None:
    """`host/session-added` for a session that is on disk now."""
    added = HostSessionAdded(
        session_id=header.id,
        blank=header.blank,
        parent_session_id=header.parent_session,
        cwd=header.cwd,
        agent_preset=header.agent_preset,
        origin=header.origin,
    )
    bus.publish("host", added)
