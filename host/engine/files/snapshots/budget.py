"""The disk budget of snapshots: per workspace and overall, the oldest turns pruned first
(docs/architecture.md, "Snapshots").

A turn's rows keep the blobs its revert needs; the index keeps the blobs of the folder's current
state (the next step's "before"). Pruning drops whole turns, oldest first, until what is left fits
below the target, then deletes every loose object neither the index nor a kept row refers to.
A pruned turn is not revertable any more (`not-saved`), the newer ones are.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from host.engine.files.snapshots.repo import ShadowRepo
from host.engine.files.snapshots.rows import Unit

HEADROOM = 0.9
"""Prune to this share of the budget, so the next steps do not prune again at once."""


@dataclass(frozen=True)
class Limits:
    workspace_bytes: int = 1 << 30
    total_bytes: int = 5 << 30
    max_file_bytes: int = 10 << 20


@dataclass
class Survey:
    """One repository's objects and what refers to them (blocking to build)."""

    key: str
    repo: ShadowRepo
    sizes: dict[str, int]
    indexed: set[str]

    @classmethod
    def take(cls, key: str, repo: ShadowRepo) -> Survey:
        return cls(key, repo, repo.objects(), repo.indexed() if (repo.git_dir / "index").exists() else set())

    @property
    def used(self) -> int:
        return sum(self.sizes.values())


def choose(surveys: Sequence[Survey], units: Sequence[Unit], target: int) -> list[Unit]:
    """The oldest units to drop so the surveyed repositories fit in `target` bytes together."""
    by_key = {s.key: s for s in surveys}
    refs: Counter[tuple[str, str]] = Counter()
    for u in units:
        refs.update((u.repo, o) for o in u.oids)
    used = sum(s.used for s in surveys)
    dropped: list[Unit] = []
    for u in sorted(units, key=lambda x: x.created):
        if used <= target:
            break
        dropped.append(u)
        survey = by_key[u.repo]
        for oid in u.oids:
            refs[(u.repo, oid)] -= 1
            if refs[(u.repo, oid)] == 0 and oid not in survey.indexed:
                used -= survey.sizes.get(oid, 0)
    return dropped


def sweep(survey: Survey, kept: Sequence[Unit]) -> int:
    """Delete the objects nothing refers to any more; returns the bytes freed (blocking)."""
    wanted = set(survey.indexed)
    for u in kept:
        if u.repo == survey.key:
            wanted.update(u.oids)
    garbage = [oid for oid in survey.sizes if oid not in wanted]
    freed = survey.repo.delete(garbage)
    for oid in garbage:
        survey.sizes.pop(oid, None)
    return freed
