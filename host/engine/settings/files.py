"""The two configuration files of a data dir: `settings.json` and `credentials.json`.

Both are written atomically (temp file + rename), created with mode 0600 from the start, and
read tolerantly: a missing file is empty, an unreadable or malformed one is reported once and
ignored (the host keeps what it had). A file's `Signature` (inode, size, mtime) lets the watcher
tell an outside edit from the host's own write.

settings.json: `{"version": 2, "namespaces": {"llm-deepseek": {...}, ...}}`
credentials.json: `{"version": 2, "credentials": {"DEEPSEEK_API_KEY": "..."}}`
(the version-1 layouts are converted by `host/engine/settings/migrate.py`).
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

SETTINGS_FILE = "settings.json"
CREDENTIALS_FILE = "credentials.json"
VERSION = 2
PRIVATE = 0o600


@dataclass(frozen=True)
class Signature:
    inode: int
    size: int
    mtime_ns: int


def signature(path: Path) -> Signature | None:
    """The file's identity now, or None when it does not exist."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    except OSError:
        return None
    return Signature(st.st_ino, st.st_size, st.st_mtime_ns)


class FileProblem(Exception):
    """The file exists but cannot be used (unreadable, not JSON, not an object)."""


def read_json(path: Path) -> dict[str, Any] | None:
    """The file's object, None when absent; raises FileProblem when it is unusable."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise FileProblem(f"{path.name} cannot be read ({type(exc).__name__})") from None
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise FileProblem(f"{path.name} is not valid JSON (line {getattr(exc, 'lineno', '?')})") from None
    if not isinstance(data, dict):
        raise FileProblem(f"{path.name} does not hold a JSON object")
    return data


def write_private(path: Path, data: dict[str, Any]) -> Signature | None:
    """Atomically replace `path` with `data` as JSON (mode 0600); returns the new signature."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        os.fchmod(fd, PRIVATE)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return signature(path)


def writable_dir(path: Path) -> bool:
    """Whether files in `path` can be replaced (the directory exists and is writable)."""
    return os.access(path, os.W_OK | os.X_OK)


def settings_sections(data: dict[str, Any] | None) -> dict[str, dict[str, Any]]:
    """The namespace sections of a version-2 settings document (non-objects dropped)."""
    if not data:
        return {}
    spaces = data.get("namespaces")
    if not isinstance(spaces, dict):
        return {}
    return {ns: dict(section) for ns, section in spaces.items() if isinstance(section, dict) and section}


def settings_document(sections: dict[str, dict[str, Any]]) -> dict[str, Any]:
    return {"version": VERSION, "namespaces": {ns: s for ns, s in sections.items() if s}}


def credential_values(data: dict[str, Any] | None) -> dict[str, str]:
    """The refs of a version-2 credentials document with a non-empty string value."""
    if not data:
        return {}
    values = data.get("credentials")
    if not isinstance(values, dict):
        return {}
    return {ref: v for ref, v in values.items() if isinstance(v, str) and v}


def credentials_document(values: dict[str, str]) -> dict[str, Any]:
    return {"version": VERSION, "credentials": dict(values)}
