"""The two configuration files of a data dir: `settings.json` and `credentials.json`.

Both are written atomically (a temp file in the same folder, fsync, rename, fsync of the folder;
the temp file never survives, also on failure), created with mode 0600 from the start. Reading
never fails the host: a missing file is empty; a file that cannot be used (not a regular file,
unreadable, not UTF-8, not JSON, the wrong shape) raises `FileProblem` with one sentence naming
the file, and the stores then refuse every write until it is fixed or reset (docs/decisions.md,
"Configuration files that cannot be read"). A file's `Signature` (inode, size, mtime) lets the
watcher tell an outside edit from the host's own write.

settings.json: `{"version": 2, "namespaces": {"llm-deepseek": {...}, ...}}`
credentials.json: `{"version": 2, "credentials": {"DEEPSEEK_API_KEY": "..."}}`
(the version-1 layouts are converted by `host/engine/settings/migrate.py`).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import stat
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

SETTINGS_FILE = "settings.json"
CREDENTIALS_FILE = "credentials.json"
VERSION = 2
PRIVATE = 0o600
MAX_BYTES = 16 * 1024 * 1024
"""A configuration file larger than this is not read (a log pasted in its place, /dev/zero)."""


@dataclass(frozen=True)
class Signature:
    inode: int
    size: int
    mtime_ns: int


def signature(path: Path) -> Signature | None:
    """The file's identity now, or None when it does not exist."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return Signature(st.st_ino, st.st_size, st.st_mtime_ns)


class FileProblem(Exception):
    """The file exists but cannot be used; `str()` is one sentence naming the file."""

    def __init__(self, sentence: str) -> None:
        super().__init__(sentence if sentence.endswith(".") else f"{sentence}.")


def read_json(path: Path) -> dict[str, Any] | None:
    """The file's object, None when absent; raises FileProblem when it is unusable. A FIFO or a
    device in the file's place is refused by its type before it is opened (open() would block)."""
    raw = _read_bytes(path)
    if raw is None:
        return None
    name = path.name
    try:
        text = raw.decode("utf-8-sig")  # a byte-order mark, as some editors save, is fine
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise FileProblem(
            f"{name} is not valid UTF-8 (byte 0x{raw[exc.start]:02x} on line {line}); save it as UTF-8"
        ) from None
    try:
        data = json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise FileProblem(f"{name} is not valid JSON: {_json_mistake(exc)}") from None
    except ValueError as exc:
        raise FileProblem(f"{name} is not valid JSON: {exc}") from None
    except RecursionError:
        raise FileProblem(f"{name} is not valid JSON: it nests too deeply") from None
    if not isinstance(data, dict):
        raise FileProblem(f"{name} does not hold a JSON object (it holds {_kind(data)})")
    return data


def _read_bytes(path: Path) -> bytes | None:
    name = path.name
    try:
        st = os.stat(path)  # never blocks on a FIFO, unlike open()
    except FileNotFoundError:
        return None
    except PermissionError:
        raise FileProblem(f"{name} cannot be read: permission denied") from None
    except (OSError, ValueError) as exc:
        raise FileProblem(f"{name} cannot be read: {getattr(exc, 'strerror', None) or exc}") from None
    _check_type(name, st)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise FileProblem(f"{name} is a folder, not a file") from None
    except PermissionError:
        raise FileProblem(f"{name} cannot be read: permission denied") from None
    except OSError as exc:
        raise FileProblem(f"{name} cannot be read: {exc.strerror or type(exc).__name__}") from None
    try:
        _check_type(name, os.fstat(fd))  # it may have been swapped between the stat and the open
        chunks, total = [], 0
        while chunk := os.read(fd, 1 << 16):
            chunks.append(chunk)
            total += len(chunk)
            if total > MAX_BYTES:
                raise FileProblem(f"{name} is too large to be a configuration file")
        return b"".join(chunks)
    except OSError as exc:
        raise FileProblem(f"{name} cannot be read: {exc.strerror or type(exc).__name__}") from None
    finally:
        os.close(fd)


def _check_type(name: str, st: os.stat_result) -> None:
    if stat.S_ISDIR(st.st_mode):
        raise FileProblem(f"{name} is a folder, not a file")
    if not stat.S_ISREG(st.st_mode):
        raise FileProblem(f"{name} is not a regular file (it is {_file_type(st.st_mode)})")
    if st.st_size > MAX_BYTES:
        raise FileProblem(f"{name} is too large to be a configuration file ({st.st_size} bytes)")


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _json_mistake(exc: json.JSONDecodeError) -> str:
    """json's words, with the commonest hand-edit mistake named as such."""
    before = exc.doc[: exc.pos].rstrip()
    where = f"line {exc.lineno}, column {exc.colno}"
    if before.endswith(",") and exc.doc[exc.pos : exc.pos + 1] in ("}", "]"):
        return f"a comma before the closing {exc.doc[exc.pos]} ({where})"
    return f"{exc.msg} ({where})"


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "true or false"
    if value is None:
        return "null"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "an object"


def _file_type(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a file"


def write_private(path: Path, data: dict[str, Any]) -> Signature | None:
    """Atomically replace `path` with `data` as JSON (mode 0600); returns the new signature.
    The temp file lives beside `path` and is removed on any failure."""
    path.parent.mkdir(parents=True, exist_ok=True)
    encoded = (json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False) + "\n").encode("utf-8")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        try:
            os.fchmod(fd, PRIVATE)
            view = memoryview(encoded)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _sync_dir(path.parent)
    return signature(path)


def _sync_dir(folder: Path) -> None:
    """Make the rename durable (POSIX); a platform without directory fds skips it."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def set_aside(path: Path) -> Path:
    """Rename the file (or whatever is in its place) to `<name>.broken-<UTC time>` beside it,
    never over an existing name; returns the new path."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    target = path.with_name(f"{path.name}.broken-{stamp}")
    n = 2
    while target.exists() or target.is_symlink():
        target = path.with_name(f"{path.name}.broken-{stamp}-{n}")
        n += 1
    os.rename(path, target)
    _sync_dir(path.parent)
    return target


def writable_dir(path: Path) -> bool:
    """Whether files in `path` can be replaced (the directory exists and is writable)."""
    return os.access(path, os.W_OK | os.X_OK)


def settings_sections(data: dict[str, Any] | None, name: str = SETTINGS_FILE) -> dict[str, dict[str, Any]]:
    """The namespace sections of a version-2 settings document; FileProblem when its shape is
    wrong (a section that is not an object, another version, a key the layout does not have):
    writing it back would drop what the person wrote."""
    if not data:
        return {}
    _check_layout(data, name, "namespaces")
    spaces = data.get("namespaces", {})
    if not isinstance(spaces, dict):
        raise FileProblem(f'{name}: "namespaces" must be an object, not {_kind(spaces)}')
    for ns, section in spaces.items():
        if not isinstance(section, dict):
            raise FileProblem(f'{name}: the section "{ns}" must be an object, not {_kind(section)}')
    return {ns: dict(section) for ns, section in spaces.items() if section}


def settings_document(sections: dict[str, dict[str, Any]]) -> dict[str, Any]:
    return {"version": VERSION, "namespaces": {ns: s for ns, s in sections.items() if s}}


def credential_values(data: dict[str, Any] | None, name: str = CREDENTIALS_FILE) -> dict[str, str]:
    """The refs of a version-2 credentials document (an empty value counts as unset but is kept);
    FileProblem when its shape is wrong."""
    if not data:
        return {}
    _check_layout(data, name, "credentials")
    values = data.get("credentials", {})
    if not isinstance(values, dict):
        raise FileProblem(f'{name}: "credentials" must be an object, not {_kind(values)}')
    for ref, value in values.items():
        if not isinstance(value, str):
            raise FileProblem(f'{name}: the value of "{ref}" must be a string, not {_kind(value)}')
    return dict(values)


def _check_layout(data: dict[str, Any], name: str, body: str) -> None:
    version = data.get("version", VERSION)
    if version != VERSION or isinstance(version, bool):
        raise FileProblem(
            f'{name}: "version" is {json.dumps(version)[:40]}; this HarnessDesk reads version {VERSION}'
        )
    extra = sorted(k for k in data if k not in ("version", body))
    if extra:
        raise FileProblem(
            f'{name}: unknown key "{extra[0][:60]}" at the top (only "version" and "{body}" belong there)'
        )


def credentials_document(values: dict[str, str]) -> dict[str, Any]:
    return {"version": VERSION, "credentials": dict(values)}
