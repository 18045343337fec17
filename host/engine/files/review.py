"""The review pane's git: a session's repository as Unstaged and Staged hunks, and staging,
unstaging and discarding files or single hunks (docs/decisions/review-pane.md).

Every git process goes through `FolderGit` (inside the sandbox, hooks and fsmonitor off;
docs/decisions.md, "The host's git"), and none runs before the folder is trusted when the
repository's configuration names programs. Staging and unstaging are `git apply --cached
--unidiff-zero` of the chosen hunks' exact text (`-R` to unstage), run with only the git directory
writable: the work tree stays read-only to git. A discard never lets git write either: the host
puts each file's lines back itself, checked byte for byte against what the hunks say, through the
undo journal (all or nothing across a crash), and keeps what it replaced so `undoDiscard` can put
it back. A hunk id that no longer matches what git shows answers `stale-diff` and nothing is
written (`git apply` is all or nothing too).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import os
import secrets
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from contract.git import (
    DiscardValue,
    ReviewChangeValue,
    ReviewFile,
    ReviewFileStatus,
    ReviewHunk,
    ReviewScope,
    ReviewStatusValue,
)
from host.engine.errors import HostActionFailed, NotARepository, RepositoryUntrusted, StaleDiff
from host.engine.files import undo_journal
from host.engine.files.git import config_scan, layout
from host.engine.files.git.patches import (
    FilePatch,
    Mismatch,
    PatchHunk,
    RawEntry,
    parse_raw,
    parse_section,
    patch_for,
    sections,
    unapply,
    untracked_hunk,
)
from host.engine.files.git.runner import LITERAL, FolderGit, GitErrors, GitResult, checked
from host.engine.files.safe_io import NotRegular, read_inside
from host.workers import TOOL_WORKERS

log = logging.getLogger(__name__)

READ_BOUND = 30.0
WRITE_BOUND = 60.0
UNDO_KEEP = 20
"""Discards kept per host for `undoDiscard` (the oldest go first)."""
ERRORS = GitErrors(RepositoryUntrusted, lambda line, _done: HostActionFailed(line))
"""A review's git that did not work: one line for the person (docs/decisions.md, "The host's git")."""
STATUS_WORDS: dict[str, ReviewFileStatus] = {
    "A": "added",
    "M": "modified",
    "D": "deleted",
    "R": "renamed",
    "C": "copied",
    "T": "typechange",
    "U": "unmerged",
}
DIFF = ["-c", "core.quotepath=false", "diff", "--no-color", "--no-ext-diff", "--no-textconv", "-M"]


@dataclass
class Repo:
    layout: layout.RepoLayout
    prefix: str
    """The session's folder relative to the work tree's top ("" or "sub/dir/")."""
    base: str | None
    """A worktree session's base branch."""
    trusted: bool


@dataclass
class Entry:
    raw: RawEntry
    patch: FilePatch


@dataclass
class State:
    staged: dict[str, Entry] = field(default_factory=dict)
    unstaged: dict[str, Entry] = field(default_factory=dict)
    untracked: dict[str, PatchHunk | None] = field(default_factory=dict)


class Review:
    """`git.status`, `git.stage`, `git.unstage`, `git.discard`, `git.undoDiscard`."""

    def __init__(
        self,
        git: FolderGit,
        trusted: Callable[[Path], bool],
        folder_of: Callable[[str], Awaitable[str]],
        session_paths: Callable[[str], Awaitable[set[str]]],
        last_turn_paths: Callable[[str], Awaitable[set[str]]],
        worktree_of: Callable[[str], tuple[str, str] | None],
        data_dir: Path,
    ) -> None:
        self._git = git
        self._trusted = trusted
        self._folder_of = folder_of
        self._session_paths = session_paths
        self._last_turn_paths = last_turn_paths
        self._worktree_of = worktree_of
        """A folder → (its worktree's base branch, the checkout it was made from), or None."""
        self._root = data_dir / "review"
        self._locks: dict[str, asyncio.Lock] = {}

    # ---- finding the repository ---------------------------------------------------------------

    async def _repo(self, session_id: str) -> Repo:
        folder = await self._folder_of(session_id)
        found = await asyncio.to_thread(layout.find, Path(folder))
        if found is None:
            raise NotARepository(folder)
        rel = await asyncio.to_thread(_relative, folder, found.top)
        prefix = "" if rel == "." else rel.replace(os.sep, "/") + "/"
        worktree = self._worktree_of(folder)
        trusted = self._trusted(found.top) or (worktree is not None and self._trusted(Path(worktree[1])))
        return Repo(found, prefix, worktree[0] if worktree else None, trusted)

    async def _findings(self, repo: Repo) -> list[str]:
        if repo.trusted:
            return []
        return await asyncio.to_thread(config_scan.findings, repo.layout)

    async def _writable_repo(self, session_id: str) -> Repo:
        repo = await self._repo(session_id)
        found = await self._findings(repo)
        if found:
            raise RepositoryUntrusted(str(repo.layout.top), found)
        return repo

    def _lock(self, repo: Repo) -> asyncio.Lock:
        return self._locks.setdefault(str(repo.layout.common_dir), asyncio.Lock())

    async def _run(
        self,
        repo: Repo,
        args: Sequence[str],
        *,
        stdin: bytes | None = None,
        index: bool = False,
        codes: tuple[int, ...] = (0,),
    ) -> GitResult:
        """`git args`; `index`: it writes the git directory (never the work tree)."""
        lay = repo.layout
        writable: list[Path] = []
        if index and lay.git_dir != lay.top / ".git":  # a linked worktree: its own and the shared
            writable = [lay.git_dir, lay.common_dir / "objects"]
        running = self._git.run(
            lay,
            args,
            write=index,
            index_only=index,
            writable=writable,
            stdin=stdin,
            bound=WRITE_BOUND if index else READ_BOUND,
            env=LITERAL,
        )
        return await checked(running, lay, args, ERRORS, codes)

    # ---- reading --------------------------------------------------------------------------------

    async def _diff(self, repo: Repo, side: str, extra: Sequence[str]) -> dict[str, Entry]:
        raw, patch = await asyncio.gather(
            self._run(repo, [*DIFF, "--raw", "-z", *extra, "--"]),
            self._run(repo, [*DIFF, "-U0", "--src-prefix=a/", "--dst-prefix=b/", *extra, "--"]),
        )
        entries = parse_raw(raw.stdout)
        cut = sections(patch.stdout)
        out: dict[str, Entry] = {}
        at = 0
        for entry in entries:
            section = b""
            if at < len(cut) and (entry.status != "U" or cut[at].startswith(b"diff --cc")):
                section, at = cut[at], at + 1
            if entry.status == "U":  # a conflict: shown, never staged by hunk
                out[entry.path] = Entry(entry, FilePatch(head=b""))
                continue
            out[entry.path] = Entry(entry, parse_section(section or b"diff --git \n", entry.path, side))
        return out

    async def _untracked(self, repo: Repo) -> dict[str, PatchHunk | None]:
        done = await self._run(repo, ["ls-files", "--others", "--exclude-standard", "-z", "--"])
        names = [n for n in done.stdout.decode("utf-8", "surrogateescape").split("\0") if n]
        top = str(repo.layout.top)

        def read_all() -> dict[str, PatchHunk | None]:
            out: dict[str, PatchHunk | None] = {}
            for name in names:
                try:
                    found = read_inside(top, name)
                except (NotRegular, OSError):
                    found = None
                out[name] = untracked_hunk(name, found.data) if found is not None else None
            return out

        return await TOOL_WORKERS.run(read_all)

    async def _state(self, repo: Repo, staged_from: str | None = None) -> State:
        staged_args = ["--cached", staged_from] if staged_from else ["--cached"]
        staged, unstaged, untracked = await asyncio.gather(
            self._diff(repo, "branch" if staged_from else "staged", staged_args),
            self._diff(repo, "unstaged", []),
            self._untracked(repo),
        )
        return State(staged, unstaged, untracked)

    async def _base(self, repo: Repo) -> tuple[str, str] | None:
        """(the ref `branch` compares with, the commit HEAD left it at), or None."""
        candidates: list[str] = []
        if repo.base:
            candidates.append(f"refs/heads/{repo.base}")
        done = await self._run(repo, ["symbolic-ref", "-q", "refs/remotes/origin/HEAD"], codes=(0, 1, 128))
        if done.ok and done.stdout.strip():
            candidates.append(done.stdout.decode("utf-8", "replace").strip())
        candidates += [
            "refs/remotes/origin/main",
            "refs/remotes/origin/master",
            "refs/heads/main",
            "refs/heads/master",
        ]
        current = layout.branch(repo.layout)
        for ref in candidates:
            if current and ref == f"refs/heads/{current}":
                continue
            found = await self._run(repo, ["merge-base", ref, "HEAD"], codes=(0, 1, 128))
            if found.ok and found.stdout.strip():
                name = ref.removeprefix("refs/heads/").removeprefix("refs/remotes/")
                return name, found.stdout.decode().strip()
        return None

    async def status(self, session_id: str, scope: ReviewScope) -> ReviewStatusValue:
        repo = await self._repo(session_id)
        found = await self._findings(repo)
        if found:
            return ReviewStatusValue(scope=scope, files=[], withheld="untrusted-config", findings=found[:10])
        base: tuple[str, str] | None = None
        if scope == "branch":
            base = await self._base(repo)
            if base is None:
                return ReviewStatusValue(scope=scope, files=[], withheld="no-base")
        state = await self._state(repo, base[1] if base else None)
        ours: set[str] | None = None
        if scope in ("session", "uncommitted", "branch"):
            ours = {repo.prefix + p for p in await self._session_paths(session_id)}
        if scope == "last-turn":
            ours = {repo.prefix + p for p in await self._last_turn_paths(session_id)}
        files = _files(state)
        if scope in ("session", "last-turn"):
            files = [f for f in files if f.path in (ours or set()) or (f.old_path or "") in (ours or set())]
        else:
            for f in files:
                f.mine = f.path not in (ours or set()) and (f.old_path or "") not in (ours or set())
        return ReviewStatusValue(scope=scope, files=files, base=base[0] if base else None)

    # ---- changing -------------------------------------------------------------------------------

    async def stage(
        self, session_id: str, paths: list[str] | None, hunk_ids: list[str] | None
    ) -> ReviewChangeValue:
        repo = await self._writable_repo(session_id)
        async with self._lock(repo):
            state = await self._state(repo)
            chosen = _pick(session_id, [*_hunks(state.unstaged), *_untracked_hunks(state)], hunk_ids)
            named = set(paths or [])
            known = set(state.unstaged) | set(state.untracked)
            if named - known:
                raise StaleDiff(session_id, sorted(named - known))
            patches, adds = [], sorted(named)
            for path, hunks in chosen.items():
                if path in named:
                    continue
                if path in state.untracked:
                    adds.append(path)  # an untracked file's one hunk: the whole file
                else:
                    patches.append(patch_for(state.unstaged[path].patch.head, hunks))
            if patches:
                await self._apply(repo, session_id, list(chosen), b"".join(patches), reverse=False)
            if adds:
                await self._run(repo, ["add", "-A", "--", *adds], index=True)
            return ReviewChangeValue(paths=sorted(set(chosen) | named))

    async def unstage(
        self, session_id: str, paths: list[str] | None, hunk_ids: list[str] | None
    ) -> ReviewChangeValue:
        repo = await self._writable_repo(session_id)
        async with self._lock(repo):
            state = await self._state(repo)
            chosen = _pick(session_id, list(_hunks(state.staged)), hunk_ids)
            named = set(paths or [])
            if named - set(state.staged):
                raise StaleDiff(session_id, sorted(named - set(state.staged)))
            patches = [
                patch_for(state.staged[p].patch.head, hunks) for p, hunks in chosen.items() if p not in named
            ]
            if patches:
                await self._apply(repo, session_id, list(chosen), b"".join(patches), reverse=True)
            if named:
                every = sorted({*named, *(state.staged[p].raw.old_path or p for p in named)})
                head = await self._run(repo, ["rev-parse", "--verify", "-q", "HEAD"], codes=(0, 1, 128))
                if head.ok:
                    await self._run(repo, ["reset", "-q", "HEAD", "--", *every], index=True)
                else:  # nothing committed yet: out of the index altogether
                    await self._run(repo, ["rm", "--cached", "-r", "-q", "--", *every], index=True)
            return ReviewChangeValue(paths=sorted(set(chosen) | named))

    async def _apply(
        self, repo: Repo, session_id: str, paths: list[str], patch: bytes, reverse: bool
    ) -> None:
        args = [
            "apply",
            "--cached",
            "--unidiff-zero",
            "--whitespace=nowarn",
            *(["-R"] if reverse else []),
            "-",
        ]
        done = await self._run(repo, args, stdin=patch, index=True, codes=(0, 1, 128))
        if not done.ok:  # git apply is all or nothing: the index is as it was
            log.info("git apply refused: %s", done.last_error)
            raise StaleDiff(session_id, sorted(paths))

    async def discard(
        self, session_id: str, paths: list[str] | None, hunk_ids: list[str] | None
    ) -> DiscardValue:
        repo = await self._writable_repo(session_id)
        async with self._lock(repo):
            state = await self._state(repo)
            chosen = _pick(session_id, [*_hunks(state.unstaged), *_untracked_hunks(state)], hunk_ids)
            named = set(paths or [])
            if named - (set(state.unstaged) | set(state.untracked)):
                raise StaleDiff(session_id, sorted(named - (set(state.unstaged) | set(state.untracked))))
            targets: dict[str, list[PatchHunk] | None] = {p: None for p in named}  # None: every change
            for path, picked in chosen.items():
                if path not in named:
                    targets[path] = picked
            top = str(repo.layout.top)
            writes: list[tuple[str, bytes | None, bytes | None]] = []  # (path, before, after)
            for path, hunks in sorted(targets.items()):
                before = await TOOL_WORKERS.run(_read, top, path)
                if path in state.untracked:
                    if hunks is not None and (
                        state.untracked[path] is None or hunks != [state.untracked[path]]
                    ):
                        raise StaleDiff(session_id, [path])
                    writes.append((path, before, None))
                    continue
                entry = state.unstaged[path]
                if entry.patch.binary or (hunks is None and not entry.patch.hunks):
                    blob = await self._run(repo, ["cat-file", "blob", f":{path}"], codes=(0, 128))
                    if not blob.ok:
                        raise StaleDiff(session_id, [path])
                    writes.append((path, before, blob.stdout))
                    continue
                try:
                    after = unapply(before or b"", hunks if hunks is not None else entry.patch.hunks)
                except Mismatch as exc:
                    raise StaleDiff(session_id, [path]) from exc
                writes.append((path, before, after))
            undo_id = secrets.token_hex(16)
            await TOOL_WORKERS.run(_keep, self._root, undo_id, session_id, writes)
            await self._write(top, session_id, [(p, after) for p, _, after in writes])
            return DiscardValue(paths=[p for p, _, _ in writes], undo_id=undo_id)

    async def undo_discard(self, session_id: str, undo_id: str) -> ReviewChangeValue:
        repo = await self._writable_repo(session_id)
        async with self._lock(repo):
            kept = await TOOL_WORKERS.run(_kept, self._root, undo_id)
            if kept is None or kept["sessionId"] != session_id:
                raise StaleDiff(session_id, [])
            top = str(repo.layout.top)
            back: list[tuple[str, bytes | None]] = []
            for item in kept["files"]:
                now = await TOOL_WORKERS.run(_read, top, item["path"])
                if _sha(now) != item["after"]:
                    raise StaleDiff(session_id, [item["path"]])  # changed since the discard
                back.append((item["path"], await TOOL_WORKERS.run(_blob, self._root, item["before"])))
            await self._write(top, session_id, back)
            await TOOL_WORKERS.run(_forget, self._root, undo_id)
            return ReviewChangeValue(paths=[p for p, _ in back])

    async def _write(self, top: str, session_id: str, contents: list[tuple[str, bytes | None]]) -> None:
        """Every file through the undo journal: staged, committed, renamed — or nothing."""
        journal = undo_journal.Journal(
            id=undo_journal.new_id(),
            session_id=session_id,
            turn=0,
            cause="discard",
            root=await TOOL_WORKERS.run(os.path.realpath, top),
            entries=[],
            at_seq={},
        )
        try:
            await TOOL_WORKERS.run(undo_journal.stage, self._root, journal, contents)
        except OSError as exc:
            raise HostActionFailed(f"Discarding failed, nothing was changed: {exc.strerror or exc}") from exc
        failure = await TOOL_WORKERS.run(undo_journal.commit, self._root, journal)
        if failure is not None:
            raise HostActionFailed(f"Discarding stopped part way: {failure.strerror or failure}")
        await TOOL_WORKERS.run(undo_journal.finish, self._root, journal)

    async def recover(self) -> None:
        """At start: finish a discard a crash interrupted after its commit point, roll back one
        that was still staging (the person's files are whole either way)."""
        for journal in await TOOL_WORKERS.run(undo_journal.pending, self._root):
            if journal.state != "commit":
                await TOOL_WORKERS.run(undo_journal.rollback, self._root, journal)
                continue
            failure = await TOOL_WORKERS.run(undo_journal.commit, self._root, journal)
            if failure is None:
                await TOOL_WORKERS.run(undo_journal.finish, self._root, journal)
            else:
                log.warning("an interrupted discard could not be finished: %s", failure)


# ---- helpers ------------------------------------------------------------------------------------


def _files(state: State) -> list[ReviewFile]:
    out: dict[str, ReviewFile] = {}

    def file(path: str, status: ReviewFileStatus, old: str | None, binary: bool) -> ReviewFile:
        found = out.get(path)
        if found is None:
            found = out[path] = ReviewFile(path=path, old_path=old, status=status, binary=binary)
        found.binary = found.binary or binary
        return found

    for path, entry in state.staged.items():
        f = file(path, STATUS_WORDS.get(entry.raw.status, "modified"), entry.raw.old_path, entry.patch.binary)
        f.staged = [_wire(h) for h in entry.patch.hunks]
        f.has_staged = True
    for path, entry in state.unstaged.items():
        f = file(path, STATUS_WORDS.get(entry.raw.status, "modified"), entry.raw.old_path, entry.patch.binary)
        f.unstaged = [_wire(h) for h in entry.patch.hunks]
        f.has_unstaged = True
    for path, hunk in state.untracked.items():
        f = file(path, "untracked", None, hunk is None)
        f.unstaged = [_wire(hunk)] if hunk is not None else []
        f.has_unstaged = True
    return [out[p] for p in sorted(out)]


def _wire(h: PatchHunk) -> ReviewHunk:
    return ReviewHunk(id=h.id, header=h.header, diff=h.diff, added=h.added, removed=h.removed)


def _hunks(entries: dict[str, Entry]) -> list[PatchHunk]:
    return [h for e in entries.values() for h in e.patch.hunks]


def _untracked_hunks(state: State) -> list[PatchHunk]:
    return [h for h in state.untracked.values() if h is not None]


def _pick(session_id: str, hunks: list[PatchHunk], ids: list[str] | None) -> dict[str, list[PatchHunk]]:
    """The named hunks by file; StaleDiff when any id is not one of `hunks`."""
    by_id = {h.id: h for h in hunks}
    missing = [i for i in ids or [] if i not in by_id]
    if missing:
        raise StaleDiff(session_id, [])
    out: dict[str, list[PatchHunk]] = {}
    for i in dict.fromkeys(ids or []):
        out.setdefault(by_id[i].path, []).append(by_id[i])
    return out


def _relative(folder: str, top: Path) -> str:
    return os.path.relpath(os.path.abspath(folder), top)


def _read(top: str, rel: str) -> bytes | None:
    try:
        found = read_inside(top, rel)
    except NotRegular as exc:
        raise HostActionFailed(f"{rel} is not a regular file; nothing was changed") from exc
    return None if found is None else found.data


def _sha(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


# ---- what a discard replaced, kept for its undo ---------------------------------------------------


def _undo_dir(root: Path) -> Path:
    return root / "discarded"


def _keep(
    root: Path, undo_id: str, session_id: str, writes: list[tuple[str, bytes | None, bytes | None]]
) -> None:
    """Each file's content before the discard (content-addressed) and a record naming them;
    written and fsynced before any file is touched. The oldest records beyond UNDO_KEEP go."""
    folder = _undo_dir(root)
    folder.mkdir(parents=True, exist_ok=True)
    files = []
    for path, before, after in writes:
        if before is not None:
            _atomic(folder / f"{_sha(before)}.blob", before)
        files.append({"path": path, "before": _sha(before), "after": _sha(after)})
    record = {"sessionId": session_id, "files": files}
    _atomic(folder / f"{undo_id}.json", json.dumps(record).encode())
    records = sorted(folder.glob("*.json"), key=lambda p: p.stat().st_mtime)
    for old in records[:-UNDO_KEEP]:
        with contextlib.suppress(OSError):
            old.unlink()
    _sweep(folder)


def _atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    with open(tmp, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def _kept(root: Path, undo_id: str) -> dict | None:  # type: ignore[type-arg]
    try:
        return json.loads((_undo_dir(root) / f"{undo_id}.json").read_bytes())  # type: ignore[no-any-return]
    except (OSError, ValueError):
        return None


def _blob(root: Path, sha: str | None) -> bytes | None:
    if sha is None:
        return None
    return (_undo_dir(root) / f"{sha}.blob").read_bytes()


def _forget(root: Path, undo_id: str) -> None:
    with contextlib.suppress(OSError):
        (_undo_dir(root) / f"{undo_id}.json").unlink()
    _sweep(_undo_dir(root))


def _sweep(folder: Path) -> None:
    """Blobs no record names any more go."""
    named: set[str] = set()
    for record in folder.glob("*.json"):
        with contextlib.suppress(OSError, ValueError):
            named |= {f["before"] for f in json.loads(record.read_bytes())["files"] if f["before"]}
    for blob in folder.glob("*.blob"):
        if blob.stem not in named:
            with contextlib.suppress(OSError):
                blob.unlink()
