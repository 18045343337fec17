"""Public names of MCP tools: `mcp__<server>__<tool>` (docs/decisions.md, "MCP servers").

The algorithm is the reference's exactly, so names depend only on (server, raw tool name): any
character outside `[A-Za-z0-9_-]` becomes `_`, the limit is 64 characters, and when either step
changed the name the first 51 characters are kept and `_` plus the first 12 hex digits of
`sha256(server + "\\0" + raw)` are appended. Only the raw name goes on the wire.
"""

from __future__ import annotations

import hashlib
import re

SERVER_NAME = re.compile(r"^[A-Za-z0-9_-]{1,32}$")
PREFIX = "mcp__"
LIMIT = 64
KEEP = 51
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def public_name(server: str, raw: str) -> str:
    plain = f"{PREFIX}{server}__{raw}"
    safe = _UNSAFE.sub("_", plain)
    if safe == plain and len(plain) <= LIMIT:
        return plain
    digest = hashlib.sha256(f"{server}\0{raw}".encode()).hexdigest()[:12]
    return f"{safe[:KEEP]}_{digest}"
