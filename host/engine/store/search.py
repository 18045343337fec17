"""`session.search` over the FTS5 (trigram) index of visible message text.

User text is never FTS syntax: each whitespace-separated word becomes a quoted literal phrase
(quotes doubled), words are ANDed. Words shorter than a trigram are checked as substrings.
One hit per session (its newest match), sessions by their newest match, at most `limit`, plus
`has_more`. Newest first rather than by FTS rank: ranking must score every match before the first
row comes back (~300 ms for a common word over 1M events), while FTS5 walks its doclists in rowid
order and stops at the limit (a few ms); a person looks for recent work first
(docs/decisions.md, "Store").
"""

from __future__ import annotations

import sqlite3

from host.engine.store.base import SearchResult

SNIPPET_MAX = 240
SCAN_CAP = 5000


def match_expression(words: list[str]) -> str | None:
    """A safe FTS5 MATCH expression for the words of ≥ 3 characters (None if there are none)."""
    long = [w for w in words if len(w) >= 3]
    if not long:
        return None
    return " AND ".join('"' + w.replace('"', '""') + '"' for w in long)


def snippet(text: str, words: list[str], limit: int = SNIPPET_MAX) -> str:
    """≤ `limit` code points of `text` around the first matched word, whitespace collapsed."""
    flat = " ".join(text.split())
    lower = flat.lower()
    positions = [lower.find(w.lower()) for w in words]
    found = [p for p in positions if p >= 0]
    at = min(found) if found else 0
    if len(flat) <= limit:
        return flat
    start = max(0, at - limit // 3)
    body_len = limit - (1 if start > 0 else 0)
    end = start + body_len
    if end < len(flat):
        end -= 1
    body = flat[start:end]
    return ("…" if start > 0 else "") + body + ("…" if end < len(flat) else "")


def _contains_all(text: str, words: list[str]) -> bool:
    lower = text.lower()
    return all(w.lower() in lower for w in words)


def search(conn: sqlite3.Connection, query: str, limit: int = 20) -> SearchResult:
    words = query.split()
    if not words:
        return SearchResult()
    expr = match_expression(words)
    if expr is not None:
        cursor = conn.execute(
            "SELECT m.session_id, m.text, m.seq FROM search JOIN message_text m ON m.id = search.rowid"
            " WHERE search MATCH ? ORDER BY search.rowid DESC LIMIT ?",
            (expr, SCAN_CAP),
        )
    else:
        cursor = conn.execute(
            "SELECT session_id, text, seq FROM message_text ORDER BY id DESC LIMIT ?", (SCAN_CAP * 4,)
        )
    result = SearchResult()
    seen: set[str] = set()
    for session_id, text, seq in cursor:
        if session_id in seen or not _contains_all(text, words):
            continue
        if len(result.hits) == limit:
            result.has_more = True
            break
        seen.add(session_id)
        result.hits.append((session_id, snippet(text, words), int(seq)))
    return result
