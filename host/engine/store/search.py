"""`session.search` over the FTS5 (trigram) index of visible message text.

User text is never FTS syntax: each whitespace-separated word becomes a quoted literal phrase
(quotes doubled), words are ANDed. Words shorter than a trigram are checked as substrings.
Every matching message (issue 46: a person steps through the hits of a session), at most
`limit` a page, plus `has_more` and the cursor of the next page. Newest first rather than by FTS
rank: ranking must score every match before the first row comes back (~300 ms for a common word
over 1M events), while FTS5 walks its doclists in rowid order and stops at the limit (a few
ms); a person looks for recent work first (docs/decisions.md, "Store").
"""

from __future__ import annotations

import sqlite3

from host.engine.store.base import SearchResult

SNIPPET_MAX = 240
SCAN_CAP = 5000
SESSION_SPAN_SQL = "SELECT MIN(id), MAX(id) FROM message_text WHERE session_id = ?"
IN_SESSION_SQL = (
    "SELECT m.seq, m.text FROM search CROSS JOIN message_text m ON m.id = search.rowid"
    " WHERE search MATCH ? AND search.rowid BETWEEN ? AND ? AND m.session_id = ? ORDER BY m.seq LIMIT ?"
)
"""One session's matches. FTS5 drives (CROSS JOIN keeps it the outer loop), over the session's
span of `message_text` ids only: left to itself the planner walked the session's messages and
ran the MATCH once per message (~1.5 ms each: 15 s for a 10,000-message session), which is what
made a find bar's count hold a read connection (docs/decisions/search-lane.md)."""


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


def search(
    conn: sqlite3.Connection,
    query: str,
    limit: int = 20,
    session_id: str | None = None,
    after: int | None = None,
) -> SearchResult:
    """Every matching message: across sessions newest first (`after`: the cursor, a
    `message_text` id to continue below), or within one session in reading order (`after`: the
    seq to continue after) with `total`, the number of its matching messages."""
    words = query.split()
    if not words:
        return SearchResult()
    if session_id is not None:
        return _in_session(conn, words, limit, session_id, after)
    expr = match_expression(words)
    below = after if after is not None else 2**63 - 1
    if expr is not None:
        cursor = conn.execute(
            "SELECT m.id, m.session_id, m.text, m.seq FROM search JOIN message_text m ON m.id = search.rowid"
            " WHERE search MATCH ? AND search.rowid < ? ORDER BY search.rowid DESC LIMIT ?",
            (expr, below, SCAN_CAP),
        )
    else:
        cursor = conn.execute(
            "SELECT id, session_id, text, seq FROM message_text WHERE id < ? ORDER BY id DESC LIMIT ?",
            (below, SCAN_CAP * 4),
        )
    result = SearchResult()
    for row_id, sid, text, seq in cursor:
        if not _contains_all(text, words):
            continue
        if len(result.hits) == limit:
            result.has_more = True
            break
        result.hits.append((sid, snippet(text, words), int(seq)))
        result.next_after = int(row_id)
    if not result.has_more:
        result.next_after = None
    return result


def _in_session(
    conn: sqlite3.Connection, words: list[str], limit: int, session_id: str, after: int | None
) -> SearchResult:
    expr = match_expression(words)
    if expr is not None:
        low, high = conn.execute(SESSION_SPAN_SQL, (session_id,)).fetchone()
        if low is None:
            return SearchResult(total=0)
        rows = conn.execute(IN_SESSION_SQL, (expr, low, high, session_id, SCAN_CAP)).fetchall()
    else:
        rows = conn.execute(
            "SELECT seq, text FROM message_text WHERE session_id = ? ORDER BY seq LIMIT ?",
            (session_id, SCAN_CAP * 4),
        ).fetchall()
    matching = [(int(seq), text) for seq, text in rows if _contains_all(text, words)]
    result = SearchResult(total=len(matching))
    start = (
        0 if after is None else next((i for i, (seq, _) in enumerate(matching) if seq > after), len(matching))
    )
    page = matching[start : start + limit]
    result.hits = [(session_id, snippet(text, words), seq) for seq, text in page]
    result.has_more = start + limit < len(matching)
    result.next_after = page[-1][0] if result.has_more and page else None
    return result
