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

_FLAGS = {"true": True, "false": False}


def export_query(scope: Scope) -> ExportQuery:
    """`sessionId` (required) and `includeDescendants=true|false`; anything else is a 400."""
    params = QueryParams(scope.get("query_string", b"").decode("latin-1"))
    session_id = params.get("sessionId")
    if not session_id:
        raise Reject(400, "missing sessionId")
    flag = params.get("includeDescendants", "false")
    if flag not in _FLAGS:
        raise Reject(400, "includeDescendants must be true or false")
    try:
        return ExportQuery(session_id=session_id, include_descendants=_FLAGS[flag])
    except ValidationError as exc:
        raise Reject(400, "invalid sessionId") from exc


def content_disposition(filename: str) -> str:
    """`attachment` with an ASCII fallback and the exact UTF-8 name (RFC 6266)."""
    fallback = re.sub(r"[^A-Za-z0-9._ -]", "_", filename) or "export.zip"
    return f"attachment; filename=\"{fallback}\"; filename*=UTF-8''{quote(filename, safe='')}"


async def serve_export(api: ApiProxy, scope: Scope, receive: Receive, send: Send) -> None:
    """404 for an unknown session; else the ZIP streamed chunk by chunk (HEAD: headers only)."""
    archive = await api.export_session(export_query(scope))
    if archive is None:
        raise Reject(404, "unknown session")
    headers = {
        "content-type": "application/zip",
        "content-disposition": content_disposition(archive.filename),
        "cache-control": "no-store",
    }
    await start_response(send, 200, header_list(headers))
    if scope["method"] == "HEAD":
        await send({"type": "http.response.body", "body": b"", "more_body": False})
        return
    await stream_body(receive, send, archive.chunks())
