"""`GET|HEAD /api/session.export`: a session as a streamed ZIP download (no envelope)."""

from __future__ import annotations

import re
from urllib.parse import quote

from pydantic import ValidationError
from starlette.datastructures import QueryParams
from starlette.types import Receive, Scope, Send

from contract.sessions import ExportQuery
from host.fetch.connection import header_list, start_response, stream_body
from host.fetch.inbound import Reject
from host.fetch.proxy import ApiProxy

NOT_FOUND = "session not found"


def export_query(scope: Scope) -> ExportQuery:
    """As the reference reads it: `sessionId` required and non-empty (else 400); only the exact
    `includeDescendants=true` includes descendants (`1`, `TRUE`, `false`, … : root only);
    unknown parameters are ignored and a repeated one's last value wins. An id no session can
    have is a 404, like any unknown id."""
    params = QueryParams(scope.get("query_string", b"").decode("latin-1"))
    values = params.getlist("sessionId")
    session_id = values[-1] if values else ""
    if not session_id:
        raise Reject(400, "missing or invalid sessionId query parameter")
    flags = params.getlist("includeDescendants")
    deep = bool(flags) and flags[-1] == "true"
    try:
        return ExportQuery(session_id=session_id, include_descendants=deep)
    except ValidationError as exc:
        raise Reject(404, NOT_FOUND) from exc


def safe_id(session_id: str) -> str:
    """The id with every character outside `[A-Za-z0-9._-]` replaced by `_` (file names)."""
    return re.sub(r"[^A-Za-z0-9._-]", "_", session_id)


def content_disposition(filename: str, fallback: str | None = None) -> str:
    """`attachment` with an ASCII `filename` (the reference's `dsh-session-<safeId>.zip` when
    given) and the exact UTF-8 name people get (`filename*`, which browsers prefer; RFC 6266)."""
    plain = fallback or re.sub(r"[^A-Za-z0-9._ -]", "_", filename) or "export.zip"
    return f"attachment; filename=\"{plain}\"; filename*=UTF-8''{quote(filename, safe='')}"


async def serve_export(api: ApiProxy, scope: Scope, receive: Receive, send: Send) -> None:
    """404 for an unknown session; else the ZIP streamed chunk by chunk (HEAD: headers only)."""
    query = export_query(scope)
    archive = await api.export_session(query)
    if archive is None:
        raise Reject(404, NOT_FOUND)
    headers = {
        "content-type": "application/zip",
        "content-disposition": content_disposition(
            archive.filename, f"dsh-session-{safe_id(query.session_id)}.zip"
        ),
        "cache-control": "no-store",
    }
    await start_response(send, 200, header_list(headers))
    if scope["method"] == "HEAD":
        await send({"type": "http.response.body", "body": b"", "more_body": False})
        return
    await stream_body(receive, send, archive.chunks())
