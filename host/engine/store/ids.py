"""Every id the engine mints, in one place: a short prefix naming the kind, then 128 random bits.

The prefixes only help a person reading a log or a URL; nothing parses them.
"""

from __future__ import annotations

import uuid


def _mint(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex}"


def session_id() -> str:
    return _mint("s")


def message_id() -> str:
    return _mint("msg")


def approval_id() -> str:
    return _mint("ap")


def compaction_id() -> str:
    return _mint("cmp")


def tool_call_id() -> str:
    """A call id for a tool call the model did not name (OpenAI's `call_` + 24 hex style)."""
    return f"call_{uuid.uuid4().hex[:24]}"


def host_instance_id() -> str:
    """Changes on every start, so a client can tell a restarted host from a reconnect."""
    return f"host-{uuid.uuid4()}"


def workspace_id() -> str:
    """A plain UUID, as the workspace wire names it (never derived from the path)."""
    return str(uuid.uuid4())


def goal_id() -> str:
    """`goal-<uuid4>` (the reference's form; clients treat it as opaque)."""
    return f"goal-{uuid.uuid4()}"


def download_id() -> str:
    """A model download (also the name of its partial file under `models/.downloads/`)."""
    return _mint("dl")


def mux_stream_id() -> str:
    """An `events.mux` stream, for `host.focus` (unguessable: it steers what that stream carries)."""
    return _mint("mux")
