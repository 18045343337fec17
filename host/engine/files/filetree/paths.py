"""A path a client names, inside a session's folder or refused (docs/decisions.md, "Terminal and
files"): relative to the folder, no `..` out of it, and resolved (symlinks included) inside it."""

from __future__ import annotations

import os

from host.engine.errors import OutsideFolder
from host.engine.files.finder.index import within


def relative(root: str, raw: str) -> str:
    """`raw` as a "/"-separated path relative to `root` ("" for the root itself); OutsideFolder
    when it climbs out (an absolute path inside the folder is taken relative to it)."""
    text = raw.strip().replace("\\", "/") if os.sep == "\\" else raw.strip()
    if os.path.isabs(text):
        text = os.path.relpath(text, root)
    norm = os.path.normpath(text) if text else "."
    if norm == ".":
        return ""
    if norm == ".." or norm.startswith("../") or os.path.isabs(norm):
        raise OutsideFolder(raw)
    return norm.replace(os.sep, "/")


def resolve(root: str, rel: str, raw: str) -> str:
    """The real path of `rel` below `root` (a real path); OutsideFolder when a symlink on the way
    leads out of it."""
    target = os.path.realpath(os.path.join(root, rel)) if rel else root
    if not within(root, target):
        raise OutsideFolder(raw)
    return target
