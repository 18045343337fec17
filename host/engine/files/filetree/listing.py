"""One folder level of a session's folder, as the Files pane lists it (docs/decisions.md,
"Terminal and files").

What `.gitignore` ignores is judged by the `@` finder's matcher (host/engine/files/finder: the
folder's and its parents' `.gitignore` files up to the work tree's top, and info/exclude), so
listing runs no git and no program at all. A folder that is ignored hides everything in it (git
never enters it either). Version control's own folders (`.git` …) are never listed. Blocking:
run it on a worker thread.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass

from contract.file_tree import MAX_ENTRIES
from host.engine.files.finder.ignore import RuleSet, ignored, parse
from host.engine.files.finder.index import VCS_FOLDERS, ancestor_rules, within

MAX_IGNORE_BYTES = 1 << 20


@dataclass(frozen=True, slots=True)
class Listed:
    path: str
    """Relative to the session's folder."""
    kind: str
    size: int
    ignored: bool
    target: str | None = None
    """A symlink's kind of target inside the folder ("file" / "dir"), else None."""


def _rules_of(folder: str, base: str) -> RuleSet | None:
    path = os.path.join(folder, ".gitignore")
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_IGNORE_BYTES:
            return None
        with open(path, encoding="utf-8", errors="replace") as fh:
            rules = parse(fh.read())
    except OSError:
        return None
    return RuleSet(rules, base=base) if rules else None


def rules_for(root: str, rel: str) -> tuple[tuple[RuleSet, ...], bool]:
    """The rule sets that apply to the entries of folder `rel` (outermost first), and whether
    `rel` itself (or a folder above it) is ignored."""
    sets = ancestor_rules(root)
    inside_ignored = False
    prefix = ""
    for part in [p for p in rel.split("/") if p] if rel else []:
        found = _rules_of(os.path.join(root, prefix), prefix)
        if found is not None:
            sets = (*sets, found)
        prefix = f"{prefix}{part}"
        if not inside_ignored and sets and ignored(sets, prefix, True):
            inside_ignored = True
        prefix += "/"
    found = _rules_of(os.path.join(root, prefix), prefix)
    if found is not None:
        sets = (*sets, found)
    return sets, inside_ignored


def readable_name(name: str) -> bool:
    """A name the wire can carry and a person can read (the finder's rule)."""
    if not name.isprintable():
        return False
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _link_target(root: str, path: str) -> str | None:
    try:
        real = os.path.realpath(path)
        if not within(root, real):
            return None
        mode = os.stat(real).st_mode
    except (OSError, ValueError):
        return None
    return "dir" if stat.S_ISDIR(mode) else "file" if stat.S_ISREG(mode) else None


def list_level(root: str, rel: str, target: str, show_ignored: bool) -> tuple[list[Listed], bool]:
    """The entries of `target` (the real path of folder `rel` of `root`), folders first, then by
    name; ignored ones only with `show_ignored` (marked). Returns (entries, truncated)."""
    sets, all_ignored = rules_for(root, rel)
    out: list[Listed] = []
    truncated = False
    with os.scandir(target) as it:
        children = sorted(it, key=lambda e: e.name)
    for child in children:
        name = child.name
        if not readable_name(name):
            continue
        try:
            info = child.stat(follow_symlinks=False)
        except OSError:
            continue
        is_link = stat.S_ISLNK(info.st_mode)
        is_dir = stat.S_ISDIR(info.st_mode)
        if is_dir and name in VCS_FOLDERS:
            continue
        path = f"{rel}/{name}" if rel else name
        hidden = all_ignored or (bool(sets) and ignored(sets, path, is_dir))
        if hidden and not show_ignored:
            continue
        kind = "symlink" if is_link else "dir" if is_dir else "file"
        if kind == "file" and not stat.S_ISREG(info.st_mode):
            continue  # a socket, FIFO or device: nothing to show
        target_kind = _link_target(root, child.path) if is_link else None
        out.append(Listed(path, kind, 0 if is_dir else info.st_size, hidden, target_kind))
        if len(out) >= MAX_ENTRIES:
            truncated = True
            break
    out.sort(key=lambda e: (e.kind != "dir", e.path.rsplit("/", 1)[-1].lower()))
    return out, truncated
