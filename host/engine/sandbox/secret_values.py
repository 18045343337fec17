"""The secret values this process knows (API keys), so nothing the agent does can carry them.

`Config` remembers every key it reads or is given. Tools use this to start child processes with
an environment stripped of credentials (by name, and by value wherever a key was copied) and to
redact any known key from their output before it is streamed, stored, exported or sent to a
model (docs/threat-model.md). Values shorter than `MIN_LENGTH` are never treated as secrets.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Mapping

MIN_LENGTH = 8
REDACTED = "[redacted]"

CREDENTIAL_NAME = re.compile(
    r"(API[_-]?KEY|ACCESS[_-]?KEY|SECRET|TOKEN|PASSWORD|PASSWD|PASSPHRASE|CREDENTIAL|PRIVATE[_-]?KEY)",
    re.IGNORECASE,
)
"""Environment names that hold a credential by convention (OPENAI_API_KEY, GITHUB_TOKEN, …)."""

HOST_PREFIX = "HARNESSDESK_"
"""The host's own variables: none of them is meant for the agent's processes."""

_known: set[str] = set()
_lock = threading.Lock()


def remember(*values: str | None) -> None:
    """Add secret values (blank or short ones are ignored)."""
    with _lock:
        _known.update(v for v in values if v and len(v.strip()) >= MIN_LENGTH)


def known() -> list[str]:
    """The remembered values, longest first (so a key that contains another is redacted whole)."""
    with _lock:
        return sorted(_known, key=len, reverse=True)


def redact(text: str) -> str:
    """`text` with every known secret replaced by `[redacted]`."""
    for value in known():
        if value in text:
            text = text.replace(value, REDACTED)
    return text


def child_environment(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment for a process the agent starts: `base` (default: ours) without the
    host's own variables, credential-named variables, and any variable holding a known secret."""
    source = os.environ if base is None else base
    values = known()
    out: dict[str, str] = {}
    for name, value in source.items():
        if name.upper().startswith(HOST_PREFIX) or CREDENTIAL_NAME.search(name):
            continue
        if any(secret in value for secret in values):
            continue
        out[name] = value
    return out
