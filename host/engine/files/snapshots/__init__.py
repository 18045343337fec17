"""Snapshots of a workspace before the steps that can change files, so Revert puts back what any
tool changed, shell commands included, within a disk budget (docs/architecture.md, "Snapshots")."""

from host.engine.files.snapshots.budget import Limits
from host.engine.files.snapshots.repo import SnapshotError
from host.engine.files.snapshots.snapshotter import RepoUsage, Snapshotter, may_change_files

__all__ = ["Limits", "RepoUsage", "SnapshotError", "Snapshotter", "may_change_files"]
