"""A workspace's shadow git repository: the folder's state, content-addressed, kept under the
data folder (docs/architecture.md, "Snapshots").

Only git plumbing runs, through `host/engine/files/git/runner.py`'s `private_git`: `GIT_DIR` ours
(under the data folder), `GIT_WORK_TREE` the person's folder, no configuration but ours.
`ls-files` lists what changed since the index last saw the folder (git's stat cache makes an
unchanged file one `lstat`), `update-index` stores the changed files as blobs and
`cat-file` reads them back. The person's own `.git` is never read or written; their
`.gitignore` files are honoured, and so is our `info/exclude` (known build output folders). Objects
stay loose (automatic gc is off), so a blob nobody needs any more is one file to delete.
"""

from __future__ import annotations

import os
import stat
import subprocess
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from host.engine.files.git.runner import private_git

SKIPPED_FOLDERS = (
    "node_modules/",
    "target/",
    "dist/",
    "build/",
    ".venv/",
    "venv/",
    "__pycache__/",
    ".tox/",
    ".nox/",
    ".mypy_cache/",
    ".pytest_cache/",
    ".ruff_cache/",
    ".next/",
    ".nuxt/",
    ".gradle/",
    ".parcel-cache/",
    ".turbo/",
    ".cache/",
    "*.pyc",
)
"""Build output and caches: regenerated, large, never worth a snapshot."""

MAX_FILE_BYTES = 10 * 1024 * 1024
"""Default size cap: a larger file is not kept (undo says `not-saved` for it)."""

GIT_TIMEOUT = 120.0
MAX_PATHS = 50_000
"""More changed files than this in one snapshot (a first look at a huge folder): snapshots of
that folder are turned off rather than making every command wait."""


class SnapshotError(Exception):
    """git failed or is missing: the step runs without a snapshot (said in the log)."""


class TooLarge(SnapshotError):
    """The folder is too large to snapshot (too many files, or more than its budget)."""


@dataclass(frozen=True)
class Step:
    """What a step changed: (path, blob before, blob after; None: absent), and blob contents."""

    diff: list[tuple[str, str | None, str | None]]
    contents: dict[str, bytes]


class ShadowRepo:
    """Blocking; one caller at a time (the `Snapshotter` holds a lock per repository)."""

    def __init__(self, git_dir: Path, work: Path, max_file_bytes: int = MAX_FILE_BYTES) -> None:
        self.git_dir = git_dir
        self.work = work
        self.max_file_bytes = max_file_bytes

    # ---- git ------------------------------------------------------------------------------

    def _git(self, args: Sequence[str], data: bytes | None = None) -> bytes:
        try:
            done = private_git(self.git_dir, self.work, args, data, timeout=GIT_TIMEOUT)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise SnapshotError(f"git {args[0]}: {exc}") from exc
        if not done.ok:
            raise SnapshotError(f"git {args[0]}: {done.last_error}")
        return done.stdout

    def ensure(self) -> None:
        """Create the repository on first use (idempotent)."""
        if (self.git_dir / "HEAD").exists():
            return
        self.git_dir.mkdir(parents=True, exist_ok=True)
        try:
            done = private_git(
                self.git_dir, None, ["init", "-q", "--bare", str(self.git_dir)], timeout=GIT_TIMEOUT
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise SnapshotError(f"git init: {exc}") from exc
        if not done.ok:
            raise SnapshotError(f"git init: {done.last_error}")
        for key, value in (
            ("core.bare", "false"),
            ("gc.auto", "0"),
            ("core.autocrlf", "false"),
            ("core.fsmonitor", "false"),
            ("core.logAllRefUpdates", "false"),
            ("core.hooksPath", os.devnull),
            ("core.looseCompression", "1"),  # fast: a snapshot runs before every command
        ):
            self._git(["config", key, value])
        (self.git_dir / "info").mkdir(exist_ok=True)
        (self.git_dir / "info" / "exclude").write_text("\n".join(SKIPPED_FOLDERS) + "\n")

    # ---- scanning -------------------------------------------------------------------------

    def changed(self) -> list[str]:
        """Paths whose content may differ from the index: modified, deleted, new (not ignored)."""
        out = self._git(["ls-files", "-z", "-m", "-o", "-d", "--exclude-standard"])
        seen: dict[str, None] = {}
        for raw in out.split(b"\0"):
            if raw and not raw.endswith(b"/"):  # `dir/`: a nested repository, never entered
                seen[os.fsdecode(raw)] = None
        return list(seen)

    def lookup(self, paths: Sequence[str]) -> dict[str, str | None]:
        """The index's blob id for each path (None: not in the index)."""
        if not paths:
            return {}
        data = b"".join(_staged(p) + b"\0" for p in paths)
        out = self._git(["cat-file", "--batch-check=%(objectname)", "-z"], data).split(b"\n")
        found: dict[str, str | None] = {}
        for path, line in zip(paths, out, strict=False):
            text = line.decode()
            found[path] = None if text.endswith(" missing") or not text else text
        return found

    def _keepable(self, path: str) -> bool:
        """A regular file within the size cap (symlinks, devices and large files are skipped)."""
        try:
            info = os.lstat(self.work / path)
        except OSError:
            return False
        return stat.S_ISREG(info.st_mode) and info.st_size <= self.max_file_bytes

    def update(self, paths: Sequence[str]) -> None:
        """Bring the index to the folder's state for `paths`: keepable files stored, the rest
        (gone, too large, not a regular file) dropped from the index. Dropped first, and added
        with `--replace`: a file that became a folder (`a` → `a/x`), or a folder that became a
        file, is not a conflict that fails the whole snapshot."""
        keep = [p for p in paths if self._keepable(p)]
        kept = set(keep)  # once: built per path, a first look at 10,000 files took ~25 s here
        drop = [p for p in paths if p not in kept]
        if drop:
            self._git(["update-index", "-z", "--force-remove", "--stdin"], _z(drop))
        if keep:
            self._git(["update-index", "-z", "--add", "--remove", "--replace", "--stdin"], _z(keep))

    def take_in(self) -> list[str]:
        """The snapshot before a step: whatever changed since the last look (edits made outside
        the app, or the first look) stored; returns the blob ids the index now holds for them.
        One `ls-files` when nothing changed (the usual case)."""
        paths = self.changed()
        if not paths:
            return []
        if len(paths) > MAX_PATHS:
            raise TooLarge(f"more than {MAX_PATHS:,} files to snapshot at once")
        self.update(paths)
        return [oid for oid in self.lookup(paths).values() if oid]

    def step(self, want: Callable[[str], bool]) -> Step:
        """The snapshot after a step: what changed since the last one, as (path, blob before,
        blob after), with the contents of every blob after and of the blobs before that `want`
        (docs/decisions.md, "Snapshots: fewer processes per step"). Four git processes:
        `diff-files` (stat data only, and the index's blob id, so a changed file is hashed once,
        by `update-index`), `ls-files -o`, `update-index`, one `cat-file --batch`."""
        tracked = self._tracked()
        paths = [*self._others(), *tracked]
        if not paths:
            return Step([], {})
        if len(paths) > MAX_PATHS:
            raise TooLarge(f"more than {MAX_PATHS:,} files to snapshot at once")
        self.update(paths)
        before = [oid for oid in dict.fromkeys(tracked.values()) if want(oid)]
        found = self._batch([_staged(p) for p in paths] + [o.encode() for o in before])
        diff: list[tuple[str, str | None, str | None]] = []
        contents: dict[str, bytes] = {}
        for path, (oid, data) in zip(paths, found, strict=False):
            if oid != tracked.get(path):  # the same blob again (a file touched): no change
                diff.append((path, tracked.get(path), oid))
                if oid is not None:
                    contents[oid] = data
        contents.update((oid, data) for oid, data in found[len(paths) :] if oid is not None)
        return Step(diff, contents)

    def _tracked(self) -> dict[str, str]:
        """Files of the index whose stat data differ from the folder's (a racily clean entry
        is compared by content), with the index's blob id; deleted ones included."""
        out = self._git(["diff-files", "-z", "--raw"]).split(b"\0")
        found: dict[str, str] = {}
        for header, raw in zip(out[0::2], out[1::2], strict=False):
            fields = header.split(b" ")
            if header.startswith(b":") and len(fields) == 5:
                found[os.fsdecode(raw)] = fields[2].decode()
        return found

    def _others(self) -> list[str]:
        """Files the index does not have (not ignored); a nested repository is never entered."""
        out = self._git(["ls-files", "-z", "-o", "--exclude-standard"])
        return list(dict.fromkeys(os.fsdecode(r) for r in out.split(b"\0") if r and not r.endswith(b"/")))

    # ---- objects --------------------------------------------------------------------------

    def read(self, oids: Iterable[str]) -> dict[str, bytes]:
        """Blob contents by id (ids that are gone are left out)."""
        wanted = list(dict.fromkeys(oids))
        found = self._batch([o.encode() for o in wanted])
        return {oid: data for oid, data in found if oid is not None}

    def _batch(self, names: Sequence[bytes]) -> list[tuple[str | None, bytes]]:
        """One `cat-file --batch` for blob ids or `:path` (the index's blob of a path): per name
        its blob id and content, or (None, b"") when there is none."""
        if not names:
            return []
        out = self._git(["cat-file", "--batch", "-z"], b"".join(n + b"\0" for n in names))
        found: list[tuple[str | None, bytes]] = []
        pos = 0
        for name in names:
            if out.startswith(name + b" missing\n", pos):  # the name as sent: a path may hold "\n"
                pos += len(name) + len(b" missing\n")
                found.append((None, b""))
                continue
            end = out.index(b"\n", pos)
            oid, _kind, size = out[pos:end].decode().split(" ")
            pos = end + 1 + int(size)
            found.append((oid, out[end + 1 : pos]))
            pos += 1
        return found

    def has(self, oid: str) -> bool:
        return self._object(oid).is_file()

    def _object(self, oid: str) -> Path:
        return self.git_dir / "objects" / oid[:2] / oid[2:]

    def indexed(self) -> set[str]:
        """Blob ids the index refers to (the folder's last seen state)."""
        out = self._git(["ls-files", "-s", "-z"])
        return {rec.split(b" ", 2)[1].decode() for rec in out.split(b"\0") if rec}

    def objects(self) -> dict[str, int]:
        """Every loose object and its size on disk."""
        found: dict[str, int] = {}
        root = self.git_dir / "objects"
        try:
            folders = list(os.scandir(root))
        except FileNotFoundError:
            return found
        for folder in folders:
            if len(folder.name) != 2 or not folder.is_dir():
                continue
            for entry in os.scandir(folder.path):
                try:
                    found[folder.name + entry.name] = entry.stat().st_size
                except FileNotFoundError:
                    continue
        return found

    def size_of(self, oids: Iterable[str]) -> int:
        total = 0
        for oid in oids:
            try:
                total += self._object(oid).stat().st_size
            except FileNotFoundError:
                continue
        return total

    def delete(self, oids: Iterable[str]) -> int:
        """Remove loose objects; returns the bytes freed."""
        freed = 0
        for oid in oids:
            path = self._object(oid)
            try:
                size = path.stat().st_size
                path.unlink()
            except FileNotFoundError:
                continue
            freed += size
        return freed

    def forget(self) -> None:
        """Drop the index, so the next snapshot stores the folder afresh (after `Free space`)."""
        for name in ("index", "index.lock"):
            try:
                (self.git_dir / name).unlink()
            except FileNotFoundError:
                pass


def _z(paths: Sequence[str]) -> bytes:
    return b"".join(os.fsencode(p) + b"\0" for p in paths)


def _staged(path: str) -> bytes:
    """The name of the index's blob of `path` for `cat-file`: `:0:` keeps a path such as `0:x`
    or one starting with `/` from being read as another kind of name."""
    return b":0:" + os.fsencode(path)
