"""Deleting a session for good (`session.delete`), on the store's writer thread, all or nothing.

Goes: the events and every side row derived from them (paging boundaries, turns, search text and
its FTS5 entries), the header, its approval grants, its workspace-account and archive entries, and each
attachment blob and file checkpoint no other session references. Blobs are shared by content (forks
and repeated images reference one row), so a blob another session still uses stays.
"""

from __future__ import annotations

import sqlite3

from host.engine.store import blobs as file_blobs
from host.engine.store.workspaces import savepoint

_PER_SESSION = (
    "DELETE FROM message_text WHERE session_id = ?",
    "DELETE FROM events WHERE session_id = ?",
    "DELETE FROM boundaries WHERE session_id = ?",
    "DELETE FROM turns WHERE session_id = ?",
    "DELETE FROM session_attachments WHERE session_id = ?",
    "DELETE FROM workspace_sessions WHERE session_id = ?",
    "DELETE FROM archived_sessions WHERE session_id = ?",
    "DELETE FROM grants WHERE session_id = ?",
    "DELETE FROM session_policies WHERE session_id = ?",
    "DELETE FROM session_commits WHERE session_id = ?",  # commit, log, push, pull request
    "DELETE FROM sessions WHERE id = ?",
)


def delete_session(conn: sqlite3.Connection, session_id: str) -> int:
    """Remove the session; returns how many attachment blobs went with it."""
    with savepoint(conn):
        blobs = [
            r[0]
            for r in conn.execute(
                "SELECT attachment_id FROM session_attachments WHERE session_id = ?", (session_id,)
            )
        ]
        # FTS5 with external content: an entry is removed by replaying its text as a 'delete'.
        conn.execute(
            "INSERT INTO search (search, rowid, text)"
            " SELECT 'delete', id, text FROM message_text WHERE session_id = ?",
            (session_id,),
        )
        for statement in _PER_SESSION:
            conn.execute(statement, (session_id,))
        removed = file_blobs.drop_unreferenced(conn, "attachments", blobs)
        file_blobs.drop_checkpoints(conn, session_id)
        return removed
