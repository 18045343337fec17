"""What ends with a deleted session outside its log: its terminals and its folder's watch
(docs/decisions.md, "Terminal and files"). They follow the host stream's `host/session-removed`,
so every way a session is deleted (the window, the command line, a parent's subagents) ends them
without the session service knowing of them."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from contract.frames import HostSessionRemoved
from host.engine.sessions.bus import Bus

log = logging.getLogger(__name__)


async def follow_removals(bus: Bus, *ends: Callable[[str], Awaitable[None]]) -> None:
    """Until the bus closes: for each removed session, every `end(session_id)`."""
    while not bus.closed:
        # not a listener: ssh asks through the window only while a client listens, never
        # because this follower is subscribed (docs/decisions/remote-hosts.md)
        async for _rpc_id, frame in bus.subscribe("host", counted=False):
            if not isinstance(frame, HostSessionRemoved):
                continue
            for end in ends:
                try:
                    await end(frame.session_id)
                except Exception:
                    log.exception("ending what belonged to session %s failed", frame.session_id)
