"""Host folders for the folder picker and open-path (docs/decisions.md "Workspaces").

`list_directory` and `create_directory` are the `browse` capability (an in-page folder browser,
which also works for a browser tab); a native chooser is the desktop's business and reaches the
engine as a `NativePicker`. Everything here blocks on the filesystem: callers run it in a thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import threading
from collections.abc import Callable
from pathlib import PurePath
from typing import Protocol

from contract.host import DirectoryEntry, DirectoryListing, is_fully_qualified
from host.engine.errors import (
    DirectoryCreateFailed,
    DirectoryExists,
    DirectoryPickerUnavailable,
    DirectoryUnreadable,
    HostActionFailed,
)
from host.workers import TOOL_WORKERS

MAX_ENTRIES = 1000
"""The listing bound; hidden rows count toward it. Past it, `truncated` and the tail is cut."""


class NativePicker(Protocol):
    """One OS folder chooser on the host's display (`host.pickDirectory`).

    `pick` waits for the user (no timeout); cancelling the awaiting task must close the chooser.
    None = the user cancelled. `file`: choose one file of that kind (`gguf`) instead of a folder.
    """

    async def pick(self, file: str | None = None) -> str | None: ...


def home() -> str:
    """The host user's home, canonical like every listed path (so clients can shorten them)."""
    return os.path.realpath(os.path.expanduser("~"))


def _wire_safe(name: str) -> bool:
    """A name the wire can carry faithfully (undecodable bytes come back as lone surrogates)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def crumbs(path: str) -> list[DirectoryEntry]:
    """Root down to `path` inclusive; the root crumb's name is its full path (`/`, `C:\\`)."""
    parts = PurePath(path).parts
    out: list[DirectoryEntry] = []
    current = PurePath(parts[0]) if parts else PurePath(path)
    out.append(DirectoryEntry(name=str(current), path=str(current), hidden=False))
    for part in parts[1:]:
        current = current / part
        out.append(DirectoryEntry(name=part, path=str(current), hidden=False))
    return out


def _is_within(child: str, parent: str) -> bool:
    return child == parent or child.startswith(parent.rstrip(os.sep) + os.sep)


FILE_SUFFIXES = {"gguf": ".gguf"}
"""The kinds of file a listing or a native picker may offer (contract/host.py `FileKind`)."""


def list_directory(
    path: str | None,
    max_entries: int = MAX_ENTRIES,
    stop: threading.Event | None = None,
    files: str | None = None,
) -> DirectoryListing:
    """Child directories of `path` (default: home), symlinked ones included, sorted by name;
    with `files` (a kind of FILE_SUFFIXES) also its files of that kind (a GGUF model picked from
    disk in a browser tab: docs/decisions.md, "A day's work without friction").

    Broken links, link loops and links leading back to the listed folder or one of its
    ancestors ("cyclic": following them would only walk in circles) are skipped, and so are
    names the wire cannot carry. `stop` ends a long scan early (the caller went away).
    """
    asked = home() if path is None else path
    if not is_fully_qualified(asked):
        raise DirectoryUnreadable(asked, f"not an absolute path: {asked!r}")
    target = os.path.realpath(asked)
    suffix = FILE_SUFFIXES.get(files or "")
    found: list[DirectoryEntry] = []
    chosen: list[DirectoryEntry] = []
    try:
        with os.scandir(target) as it:
            for entry in it:
                if stop is not None and stop.is_set():
                    break
                row = _entry(entry, target)
                if row is not None:
                    found.append(row)
                elif suffix and (hit := _file_entry(entry, suffix)) is not None:
                    chosen.append(hit)
    except OSError as exc:
        raise DirectoryUnreadable(target, f"cannot read {target}: {exc.strerror or exc}") from exc
    found.sort(key=lambda e: (e.name.casefold(), e.name))
    chosen.sort(key=lambda e: (e.name.casefold(), e.name))
    return DirectoryListing(
        path=target,
        home=home(),
        crumbs=crumbs(target),
        entries=found[:max_entries],
        truncated=len(found) + len(chosen) > max_entries,
        files=chosen[: max(0, max_entries - len(found))],
    )


def _file_entry(entry: os.DirEntry[str], suffix: str) -> DirectoryEntry | None:
    if not _wire_safe(entry.name) or not entry.name.lower().endswith(suffix):
        return None
    try:
        if not entry.is_file():  # follows symlinks: a link to a model file counts
            return None
    except OSError:
        return None
    return DirectoryEntry(name=entry.name, path=entry.path, hidden=entry.name.startswith("."))


def _entry(entry: os.DirEntry[str], listed: str) -> DirectoryEntry | None:
    if not _wire_safe(entry.name):
        return None
    try:
        if not entry.is_dir():  # follows symlinks: broken links and loops are not directories
            return None
        if entry.is_symlink() and _is_within(listed, os.path.realpath(entry.path)):
            return None
    except (OSError, ValueError):
        return None
    return DirectoryEntry(name=entry.name, path=entry.path, hidden=entry.name.startswith("."))


def create_directory(parent: str, name: str) -> str:
    """Make exactly one directory `name` under the existing `parent`; its absolute path."""
    if not is_fully_qualified(parent):
        raise DirectoryCreateFailed(parent, f"not an absolute path: {parent!r}")
    if not name or name in (".", "..") or "/" in name or "\\" in name or "\x00" in name:
        raise DirectoryCreateFailed(parent, f"not a single folder name: {name!r}")
    child = os.path.join(os.path.realpath(parent), name)
    try:
        os.mkdir(child)
    except FileExistsError as exc:
        raise DirectoryExists(child, f"{child} already exists") from exc
    except OSError as exc:
        raise DirectoryCreateFailed(child, f"cannot create {child}: {exc.strerror or exc}") from exc
    return child


# ---- handing a path to the OS ------------------------------------------------------------------

BROWSER_SUFFIXES = frozenset({".html", ".htm", ".xhtml", ".svg"})


def is_wsl() -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        with open("/proc/version", encoding="utf-8", errors="replace") as f:
            return "microsoft" in f.read().lower()
    except OSError:
        return False


def can_open_path(
    env: dict[str, str] | None = None, which: Callable[[str], str | None] | None = None
) -> bool:
    """Whether `host.openPath` can reach a desktop: macOS and Windows always; Linux under WSL or
    with a display (`DISPLAY` / `WAYLAND_DISPLAY`) and `xdg-open` installed."""
    import shutil

    env = dict(os.environ) if env is None else env
    which = which or shutil.which
    if sys.platform == "darwin" or os.name == "nt":
        return True
    if is_wsl():
        return which("wslpath") is not None
    has_display = bool(env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"))
    return has_display and which("xdg-open") is not None


def opener_argv(path: str, env: dict[str, str] | None = None) -> list[str]:
    """The command that hands `path` to the default application: an argv, never a shell line.

    Pages and SVGs go to `$BROWSER` first on Linux when it names one program; WSL paths go
    through `wslpath -w` (done by the caller) and Windows' `Invoke-Item -LiteralPath`.
    """
    env = dict(os.environ) if env is None else env
    if sys.platform == "darwin":
        return ["open", path]
    if os.name == "nt":
        return _invoke_item(path)
    suffix = PurePath(path).suffix.lower()
    browser = env.get("BROWSER", "").split(os.pathsep)[0].strip()
    if suffix in BROWSER_SUFFIXES and browser and " " not in browser and "%" not in browser:
        return [browser, path]
    return ["xdg-open", path]


def _invoke_item(path: str) -> list[str]:
    quoted = "'" + path.replace("'", "''") + "'"
    return [
        "powershell.exe",
        "-NoProfile",
        "-NonInteractive",
        "-Command",
        f"Invoke-Item -LiteralPath {quoted}",
    ]


def wsl_argv(windows_path: str) -> list[str]:
    return _invoke_item(windows_path)


# ---- the host.* folder service ------------------------------------------------------------------

OPEN_SETTLE = 3.0
"""How long an opener may take to fail. Some (xdg-open's generic mode) stay in the foreground as
long as the application they started; one still running after this counts as opened."""


class HostFolders:
    """The composition's one picker capability, plus open-path (docs/decisions.md "Workspaces").

    With a `NativePicker` (the desktop window) the host serves `native`; without one (`serve`,
    the CLI) it serves `browse`. A call for the other kind → `directory-picker-unavailable`.
    """

    def __init__(self, picker: NativePicker | None = None) -> None:
        self.picker = picker
        self._reaping: set[asyncio.Task[int]] = set()

    @property
    def capability(self) -> str:
        return "native" if self.picker is not None else "browse"

    async def pick(self, file: str | None = None) -> str | None:
        if self.picker is None:
            raise DirectoryPickerUnavailable("browse", "native")
        return await self.picker.pick(file)

    async def listing(self, path: str | None, files: str | None = None) -> DirectoryListing:
        self._need_browse()
        stop = threading.Event()
        try:
            return await TOOL_WORKERS.run(
                list_directory, path, MAX_ENTRIES, stop, files
            )  # a hung mount stalls only it
        except asyncio.CancelledError:
            stop.set()  # the caller went away: end the scan at the next entry
            raise

    async def create(self, parent: str, name: str) -> str:
        self._need_browse()
        return await TOOL_WORKERS.run(create_directory, parent, name)

    def _need_browse(self) -> None:
        if self.picker is not None:
            raise DirectoryPickerUnavailable("native", "browse")

    async def open(self, path: str, program: list[str] | None = None) -> None:
        """Hand `path` to the OS default application, or to `program` (an argv the path is added
        to: the person's editor), never through a shell."""
        if not is_fully_qualified(path):
            raise HostActionFailed(f"not an absolute path: {path!r}")
        if not await asyncio.to_thread(os.path.exists, path):
            raise HostActionFailed(f"no such file or folder: {path}")
        if program:
            argv = [*program, path]
        elif is_wsl():
            windows = await self._output(["wslpath", "-w", path])
            argv = wsl_argv(windows.strip())
        else:
            argv = opener_argv(path)
        try:
            proc = await asyncio.create_subprocess_exec(
                *argv,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.PIPE,
                start_new_session=True,
            )
        except OSError as exc:
            raise HostActionFailed(f"cannot start {argv[0]}: {exc.strerror or exc}") from exc
        waiter = asyncio.ensure_future(proc.wait())
        try:
            done, _ = await asyncio.wait({waiter}, timeout=OPEN_SETTLE)
        except asyncio.CancelledError:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            raise
        if not done:
            self._reaping.add(waiter)  # still running: it opened something; reap it later
            waiter.add_done_callback(self._reaping.discard)
            return
        if waiter.result() != 0:
            err = (await proc.stderr.read()).decode(errors="replace").strip() if proc.stderr else ""
            first = err.splitlines()[0] if err else f"exit code {waiter.result()}"
            raise HostActionFailed(f"{argv[0]} could not open {path}: {first}")

    @staticmethod
    async def _output(argv: list[str]) -> str:
        proc = await asyncio.create_subprocess_exec(
            *argv, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL
        )
        out, _ = await asyncio.wait_for(proc.communicate(), OPEN_SETTLE)
        if proc.returncode != 0:
            raise HostActionFailed(f"{argv[0]} failed for the path")
        return out.decode(errors="replace")
