"""One folder's file index for the `@` finder: built once by a walk that honours .gitignore,
checked for freshness by the folders' mtimes (docs/decisions.md, "The @ finder").

Entries are "/"-separated paths relative to the folder, folders ending in "/", ordered shortest
first (so "the first N that match" are the nearest ones). The walk never follows a symlinked
folder and lists a symlinked file only when its target lies inside the folder, so nothing the
finder offers resolves outside it.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from itertools import repeat
from operator import contains
from pathlib import Path

from host.engine.files.finder.ignore import RuleSet, ignored, parse

MAX_ENTRIES = 300_000
"""Entries one index keeps; a larger tree is cut (the answer says `partial`)."""
VCS_FOLDERS = frozenset({".git", ".hg", ".svn", ".jj"})
"""Never listed: version control's own folders."""
MAX_IGNORE_BYTES = 1 << 20


@dataclass(slots=True)
class FolderIndex:
    root: str
    """The folder's real path."""
    entries: list[str]
    lower: list[str]
    partial: bool
    watched: list[tuple[str, int]] = field(default_factory=list)
    """(folder or .gitignore path, st_mtime_ns) seen by the walk: any change means rebuild."""
    masks: dict[str, int] = field(default_factory=dict)
    """Per character, one byte per entry (1: the entry holds it) read as a big int: AND-ing
    them gives the entries holding every letter of a query in C time (rank.py)."""
    names: list[str] = field(default_factory=list)
    """Each entry's lower-case name (its last segment), in entry order."""
    name_ids: dict[str, list[int]] = field(default_factory=dict)
    """Name → the entries with that name, in entry order."""

    def __post_init__(self) -> None:
        lower = self.lower
        for ch in set("".join(lower)):
            self.masks[ch] = int.from_bytes(bytes(map(contains, lower, repeat(ch))), "big")
        for i, path in enumerate(lower):
            name = path[path.rstrip("/").rfind("/") + 1 :].rstrip("/")
            self.name_ids.setdefault(name, []).append(i)
            self.names.append(name)

    def changed(self) -> bool:
        """Whether a folder's listing or a .gitignore changed since the walk (one stat each)."""
        for path, mtime in self.watched:
            try:
                if os.stat(path, follow_symlinks=False).st_mtime_ns != mtime:
                    return True
            except OSError:
                return True
        return False


def _readable_name(name: str) -> bool:
    """A name the wire can carry and a person can read: valid UTF-8, no control characters."""
    if not name.isprintable():
        return False
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:  # an undecodable byte comes back as a lone surrogate
        return False
    return True


def ancestor_rules(root: str) -> tuple[RuleSet, ...]:
    """The .gitignore files of the folders above `root` up to its git work tree's top (git
    applies them to `root` too), and that repository's info/exclude."""
    sets: list[RuleSet] = []
    below = ""
    here = root
    while True:
        parent = os.path.dirname(here)
        is_top = os.path.exists(os.path.join(here, ".git"))
        if is_top:
            exclude = _read(os.path.join(here, ".git", "info", "exclude"))
            if exclude:
                sets.append(RuleSet(parse(exclude), above=below))
            break
        if parent == here:
            return ()  # not inside a git work tree: only the folder's own .gitignore files count
        below = os.path.basename(here) + "/" + below
        text = _read(os.path.join(parent, ".gitignore"))
        if text:
            sets.append(RuleSet(parse(text), above=below))
        here = parent
    sets.reverse()  # outermost first
    return tuple(sets)


def _read(path: str) -> str:
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_IGNORE_BYTES:
            return ""
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def build(folder: str | Path) -> FolderIndex:
    """Walk `folder` (blocking: run it on a worker thread)."""
    root = os.path.realpath(folder)
    found: list[str] = []
    watched: list[tuple[str, int]] = []
    partial = False
    stack: list[tuple[str, str, tuple[RuleSet, ...]]] = [(root, "", ancestor_rules(root))]
    while stack:
        path, rel, sets = stack.pop()
        try:
            watched.append((path, os.stat(path).st_mtime_ns))
            with os.scandir(path) as it:
                children = list(it)
        except OSError:
            continue
        for child in children:
            if child.name == ".gitignore" and child.is_file(follow_symlinks=False):
                text = _read(child.path)
                try:
                    watched.append((child.path, child.stat(follow_symlinks=False).st_mtime_ns))
                except OSError:
                    pass
                if text:
                    sets = (*sets, RuleSet(parse(text), base=rel))
        folders: list[tuple[str, str]] = []
        for child in children:
            name = child.name
            if not _readable_name(name):
                continue
            try:
                is_dir = child.is_dir(follow_symlinks=False)
                is_link = child.is_symlink()
            except OSError:
                continue
            if is_dir and name in VCS_FOLDERS:
                continue
            child_rel = rel + name
            if is_link:
                if not _inside_file(root, child.path):
                    continue
                is_dir = False
            elif not is_dir and not child.is_file(follow_symlinks=False):
                continue  # sockets, FIFOs, devices: nothing to attach
            if sets and ignored(sets, child_rel, is_dir):
                continue
            if is_dir:
                found.append(child_rel + "/")
                folders.append((child.path, child_rel + "/"))
            else:
                found.append(child_rel)
            if len(found) >= MAX_ENTRIES:
                partial = True
                break
        if partial:
            break
        for sub_path, sub_rel in reversed(sorted(folders)):
            stack.append((sub_path, sub_rel, sets))
    found.sort(key=lambda p: (len(p), p))
    return FolderIndex(root, found, [p.lower() for p in found], partial, watched)


def _inside_file(root: str, path: str) -> bool:
    """A symlink is listed when it resolves to a regular file inside `root`."""
    try:
        target = os.path.realpath(path)
        return within(root, target) and stat.S_ISREG(os.stat(target).st_mode)
    except (OSError, ValueError):
        return False


def within(root: str, target: str) -> bool:
    """`target` (a real path) is `root` or below it."""
    return target == root or target.startswith(root.rstrip(os.sep) + os.sep)
