"""Copying a preset into the user's root: private modes, symlinks dereferenced, bounded.

preset.toml is rewritten: the source's `name` and `order` go, the new `name` (if given) comes
first, everything else stays as written (comments included). If that line edit would change
anything else, the file is written from the parsed values instead (docs/decisions.md,
"Presets, skills and commands").
"""

from __future__ import annotations

import os
import re
import stat
import tomllib
from pathlib import Path
from typing import Any

from host.engine.presets.spec import PRESET_FILE

MAX_FILES = 2000
MAX_BYTES = 50 * 1024 * 1024
MAX_DEPTH = 16
_DROPPED = ("name", "order")
_TOP_KEY = re.compile(r"^\s*(name|order)\s*=")


class CopyRefused(ValueError):
    """The source cannot be copied (too big, too deep); the message says why."""


class _Budget:
    def __init__(self) -> None:
        self.files = 0
        self.bytes = 0

    def charge(self, size: int) -> None:
        self.files += 1
        self.bytes += size
        if self.files > MAX_FILES or self.bytes > MAX_BYTES:
            raise CopyRefused(
                f"the preset is too big to copy (over {MAX_FILES} files or {MAX_BYTES >> 20} MiB)"
            )


def copy_tree(source: Path, target: Path, name: str | None) -> None:
    """Copy `source` into the new directory `target` (which must not exist)."""
    _copy_dir(source, target, _Budget(), 0)
    toml = target / PRESET_FILE
    if toml.is_file():
        _rewrite(toml, name)
    elif name is not None:
        _write_private(toml, f"name = {toml_string(name)}\n".encode())


def _copy_dir(source: Path, target: Path, budget: _Budget, depth: int) -> None:
    if depth > MAX_DEPTH:
        raise CopyRefused("the preset's folders nest too deep (a symbolic link loop?)")
    os.mkdir(target, 0o700)
    for entry in sorted(os.listdir(source)):
        src = source / entry
        try:
            info = os.stat(src)  # follows symbolic links: the copy holds what they point at
        except OSError:
            continue  # a dangling link
        if stat.S_ISDIR(info.st_mode):
            _copy_dir(src, target / entry, budget, depth + 1)
        elif stat.S_ISREG(info.st_mode):  # never open a FIFO or a device
            budget.charge(info.st_size)
            executable = bool(info.st_mode & stat.S_IXUSR)
            _write_private(target / entry, src.read_bytes(), executable)


def _write_private(path: Path, data: bytes, executable: bool = False) -> None:
    mode = 0o700 if executable else 0o600
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), mode)
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
    os.chmod(path, mode)  # the umask may have narrowed it further; never wider than asked


def _rewrite(toml: Path, name: str | None) -> None:
    try:
        text = toml.read_text(encoding="utf-8")
        source = tomllib.loads(text)
    except (UnicodeDecodeError, tomllib.TOMLDecodeError):
        return  # a broken source is copied as it is (the copy is listed as broken too)
    wanted = {k: v for k, v in source.items() if k not in _DROPPED}
    if name is not None:
        wanted = {"name": name, **wanted}
    edited = _line_edit(text, name)
    try:
        ok = tomllib.loads(edited) == wanted
    except tomllib.TOMLDecodeError:
        ok = False
    if not ok:
        edited = _dump(wanted)
    toml.unlink()
    if wanted:
        _write_private(toml, edited.encode("utf-8"))


def _line_edit(text: str, name: str | None) -> str:
    """Drop top-level `name =` / `order =` lines (before the first table header)."""
    out: list[str] = []
    in_table = False
    for line in text.splitlines(keepends=True):
        if line.lstrip().startswith("["):
            in_table = True
        if not in_table and _TOP_KEY.match(line):
            continue
        out.append(line)
    head = f"name = {toml_string(name)}\n" if name is not None else ""
    return head + "".join(out)


def _dump(values: dict[str, Any]) -> str:
    """TOML for preset.toml's own value kinds: strings, numbers, booleans, lists, tables."""
    lines = [f"{key} = {_value(value)}" for key, value in values.items()]
    return "\n".join(lines) + "\n" if lines else ""


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return toml_string(value)
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{toml_string(k)} = {_value(v)}" for k, v in value.items()) + " }"
    raise CopyRefused(f"preset.toml holds a value this copy cannot write ({type(value).__name__})")


def toml_string(text: str) -> str:
    """A TOML basic string: quotes, backslashes and control characters escaped (a lone
    surrogate, which TOML cannot hold, becomes U+FFFD)."""
    out = []
    for ch in text:
        code = ord(ch)
        if ch in ('"', "\\"):
            out.append("\\" + ch)
        elif 0xD800 <= code <= 0xDFFF:
            out.append("\ufffd")
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\u{code:04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'
