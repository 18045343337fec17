"""Ranking a query against a folder index within a keystroke's budget (docs/decisions.md,
"The @ finder").

Every step that touches all entries runs in C: per-letter masks AND-ed as big ints, then
`compress`/`map` over the survivors with `str` methods; Python-level scoring sees only a pool of
a few hundred. A match is a case-insensitive subsequence. Tiers put the obvious ones first: the
name itself, a name that starts with the query, a name that contains it, a path that contains
it, then the query's letters spread over the path; inside a tier word starts and runs of
letters score higher, then shorter paths (entries are stored shortest first).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import compress, repeat
from operator import contains, itemgetter

from host.engine.files.finder.index import FolderIndex

POOL = 120
"""Candidates a query gathers (best tiers first)."""
DENSE = 3
"""Queries shorter than this match most names: their name scans run lazily, never listed whole."""
SCORED = 40
"""The shortest of each tier that get the finer, Python-level score."""


def _pick(items: list[str], ids: list[int]) -> list[str]:
    if len(ids) > 1:
        return list(itemgetter(*ids)(items))
    return [items[i] for i in ids]


def superset(index: FolderIndex, q: str) -> list[int]:
    """Entries holding every letter of q (in any order)."""
    mask: int | None = None
    for ch in set(q):
        m = index.masks.get(ch)
        if m is None:
            return []
        mask = m if mask is None else mask & m
    n = len(index.lower)
    if mask is None:
        return list(range(n))
    return list(compress(range(n), mask.to_bytes(n, "big")))


def _subsequence(q: str) -> re.Pattern[str]:
    """q's letters in order, possessively (no backtracking: linear time)."""
    return re.compile("".join(f"[^{re.escape(c)}]*+{re.escape(c)}" for c in q))


@dataclass(slots=True)
class Scan:
    """How far the subsequence test has gone for `query`: every entry below `upto` was tested
    and `hits` are the ones that matched. The next keystroke usually extends the query, so it
    re-tests only `hits` and resumes at `upto` (docs/decisions.md, "The @ finder")."""

    query: str = ""
    upto: int = 0
    hits: list[int] = field(default_factory=list)


class Memo:
    """The scans of the last few queries (typing on, or backspacing to one of them)."""

    def __init__(self, lower: list[str], keep: int = 8) -> None:
        self.lower = lower
        self.keep = keep
        self.scans: list[Scan] = []
        self.named: list[tuple[str, list[int]]] = []
        """(query, every entry whose name contains it), for the same narrowing."""

    def names_with(self, index: FolderIndex, q: str) -> list[int] | None:
        """Every entry whose name contains q, shortest first; None for a short query with no
        earlier list to narrow (its hits are dense: a lazy scan that stops early is cheaper)."""
        best: tuple[str, list[int]] | None = None
        for query, ids in self.named:
            if query == q:
                return ids
            if q.startswith(query) and (best is None or len(query) > len(best[0])):
                best = (query, ids)
        if best is None and len(q) < DENSE:
            return None
        if best is None:
            hits = list(compress(range(len(index.names)), map(contains, index.names, repeat(q))))
        else:
            hits = list(compress(best[1], map(contains, _pick(index.names, best[1]), repeat(q))))
        self.named.append((q, hits))
        del self.named[: -self.keep]
        return hits

    def start(self, q: str) -> Scan:
        """The scan to continue for q: its own, else the longest earlier query q extends."""
        best: Scan | None = None
        for scan in self.scans:
            if scan.query == q:
                return scan
            if q.startswith(scan.query) and (best is None or len(scan.query) > len(best.query)):
                best = scan
        test = _subsequence(q).match
        if best is None:
            scan = Scan(q, 0, [])
        else:
            hits = best.hits
            scan = Scan(q, best.upto, list(compress(hits, map(test, _pick(self.lower, hits)))))
        self.scans.append(scan)
        del self.scans[: -self.keep]
        return scan


def _subsequence_hits(index: FolderIndex, q: str, memo: Memo, want: int) -> list[int]:
    """At least `want` entries holding q's letters in order, shortest first (fewer when there
    are no more)."""
    scan = memo.start(q)
    if len(scan.hits) >= want or scan.upto >= len(index.lower):
        return scan.hits
    ids = superset(index, q)
    rest = ids[bisect_left(ids, scan.upto) :]
    test = _subsequence(q).match
    step = max(want * 8, 2_000)
    for at in range(0, len(rest), step):
        chunk = rest[at : at + step]
        scan.hits.extend(compress(chunk, map(test, _pick(index.lower, chunk))))
        scan.upto = chunk[-1] + 1
        if len(scan.hits) >= want:
            return scan.hits
    scan.upto = len(index.lower)
    return scan.hits


def pool(index: FolderIndex, q: str, memo: Memo) -> list[tuple[int, int]]:
    """(tier, entry) for up to POOL candidates, best tiers first."""
    out: list[tuple[int, int]] = []
    taken: set[int] = set()

    def take(tier: int, ids: Iterable[int]) -> bool:
        for i in ids:
            if i not in taken:
                taken.add(i)
                out.append((tier, i))
                if len(out) >= POOL:
                    return True
        return False

    if "/" not in q:
        if take(0, index.name_ids.get(q, ())):
            return out
        names = index.names
        named = memo.names_with(index, q)
        every: Iterable[int] = range(len(names)) if named is None else named
        # lazily, so that a scan over dense hits stops once the pool is full
        if take(1, compress(every, map(str.startswith, map(names.__getitem__, every), repeat(q)))):
            return out
        if take(2, compress(every, map(contains, map(names.__getitem__, every), repeat(q)))):
            return out
    hits = _subsequence_hits(index, q, memo, POOL + len(taken))
    texts = _pick(index.lower, hits)
    if take(3, compress(hits, map(contains, texts, repeat(q)))):
        return out
    take(4, hits)
    return out


def _starts_word(path: str, i: int) -> bool:
    if i <= 0:
        return True
    before = path[i - 1]
    return before in "/_-. " or (path[i].isupper() and before.islower())


def positions(path: str, q: str) -> list[int]:
    """Where q's letters sit in `path`: contiguous in the name, else contiguous anywhere, else
    spread, each letter at the next word start when there is one before the next plain hit."""
    low = path.lower()
    name_at = low.rstrip("/").rfind("/") + 1
    at = low.find(q, name_at)
    if at < 0:
        at = low.find(q)
    if at >= 0:
        return list(range(at, at + len(q)))
    out: list[int] = []
    pos = 0
    for k, ch in enumerate(q):
        p = low.find(ch, pos)
        if p < 0:
            return []
        w = p
        while w >= 0 and not _starts_word(path, w):
            w = low.find(ch, w + 1)
        # jump to a word start only if the rest of the query still fits after it
        if w > p and _fits(low, q[k + 1 :], w + 1) and (not out or out[-1] + 1 != p):
            p = w
        out.append(p)
        pos = p + 1
    return out


def _fits(low: str, rest: str, pos: int) -> bool:
    for ch in rest:
        pos = low.find(ch, pos)
        if pos < 0:
            return False
        pos += 1
    return True


def score(path: str, hits: list[int]) -> int:
    """Word starts and runs of letters earn points; gaps cost; letters in the name count more."""
    name_at = path.rstrip("/").rfind("/") + 1
    total, prev = 0, -2
    for p in hits:
        if p == prev + 1:
            total += 4
        elif prev >= 0:
            total -= min(p - prev - 1, 8)
        if _starts_word(path, p):
            total += 8
        if p >= name_at:
            total += 3
        prev = p
    return total


Row = tuple[int, int, int, str, list[int]]
"""(tier, -score, length, path, hits): rows of two indexes sort together (files and resources)."""


def rank(index: FolderIndex, query: str, limit: int, memo: Memo) -> list[tuple[str, list[int]]]:
    """The best `limit` entries for `query`, each with the positions its letters matched."""
    q = "".join(query.lower().split())
    if not q:
        return [(p, []) for p in index.entries[:limit]]
    return [(path, hits) for _, _, _, path, hits in rows(index, q, limit, memo)]


def rows(index: FolderIndex, q: str, limit: int, memo: Memo) -> list[Row]:
    """The best `limit` rows for the normalized, non-empty query `q`, best first."""
    # by tier, then shortest; only the first few of each tier get the finer (Python) score
    picked = sorted(pool(index, q, memo), key=lambda t: (t[0], t[1]))
    per_tier: dict[int, int] = {}
    out: list[Row] = []
    for tier, i in picked:
        seen = per_tier.get(tier, 0)
        if seen >= SCORED:
            continue
        per_tier[tier] = seen + 1
        path = index.entries[i]
        hits = positions(path, q)
        out.append((tier, -score(path, hits), len(path), path, hits))
        if len(out) >= limit + SCORED:
            break
    out.sort(key=itemgetter(0, 1, 2, 3))
    return out[:limit]
