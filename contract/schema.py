"""JSON Schema and OpenAPI 3.1 for the wire contract, derived from the models and the method map.

Nothing here restates a shape: every schema comes from a pydantic model or adapter, and the
OpenAPI paths come from iterating `METHODS` and `STREAMS`. A method added to the map shows up
in both outputs with no edit here.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, Field, TypeAdapter, create_model

from contract import __version__
from contract._base import WireModel
from contract.content import CONTENT_BLOCK, STREAM_CHUNK
from contract.errors import RPC_ERROR
from contract.events import EVENT_DATA, SessionEvent
from contract.frames import STREAMS
from contract.methods import METHODS, AnyMethod
from contract.rpc import (
    RPC_MESSAGE,
    RPC_RECEIPT,
    ClientRequest,
    ClientResponse,
    RpcErr,
    RpcOk,
    ServerRequest,
    ServerResponse,
)
from contract.sessions import ExportQuery

JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
COMPONENTS = "#/components/schemas/"


def _pascal(key: str) -> str:
    """`session.selectModel` → `SessionSelectModel`, `events.mux` → `EventsMux`."""
    return "".join(part[:1].upper() + part[1:] for part in re.split(r"[./-]", key) if part)


def frame_name(stream_key: str) -> str:
    """The schema name of a stream's frame union: `events.mux` → `MuxFrame`."""
    return _pascal(stream_key.split(".", 1)[1]) + "Frame"


def named_types() -> dict[str, Any]:
    """Every exported shape under a stable name; values are models or TypeAdapters."""
    out: dict[str, Any] = {}
    for m in METHODS.values():
        out[f"method.{m.key}.request"] = m.request
        out[f"method.{m.key}.value"] = m.value
    out |= {
        "ClientRequest": ClientRequest,
        "ServerResponse": ServerResponse,
        "ServerRequest": ServerRequest,
        "ClientResponse": ClientResponse,
        "RpcMessage": RPC_MESSAGE,
        "RpcError": RPC_ERROR,
        "RpcReceipt": RPC_RECEIPT,
        "SessionEvent": SessionEvent,
        "ContentBlock": CONTENT_BLOCK,
        "StreamChunk": STREAM_CHUNK,
        "ExportQuery": ExportQuery,
    }
    for key, adapter in STREAMS.items():
        out[frame_name(key)] = adapter
    for event_type, model in EVENT_DATA.items():
        out[f"event.{event_type}"] = model
    return out


def _adapter(tp: Any) -> TypeAdapter[Any]:
    return tp if isinstance(tp, TypeAdapter) else TypeAdapter(tp)


def build_models() -> None:
    """Build every contract model (`defer_build`) before schemas are generated from them. A model
    still deferred is generated again inside every schema that nests it, and the OpenAPI
    document's envelopes nest most of the contract: built first, each is generated once and
    reused — the same documents, about five times faster (docs/decisions/contract-and-wire.md).
    One that cannot be built stays deferred, and the schema that needs it says why."""
    pending: list[type[BaseModel]] = [WireModel]
    while pending:
        for sub in pending.pop().__subclasses__():
            sub.model_rebuild(raise_errors=False)
            pending.append(sub)


def json_schema(name: str, tp: Any) -> dict[str, Any]:
    """One self-contained JSON Schema (2020-12) with its own `$defs`."""
    schema = _adapter(tp).json_schema(by_alias=True)
    return {"$schema": JSON_SCHEMA_DIALECT, "$id": schema_file_name(name), "title": name} | {
        k: v for k, v in schema.items() if k != "title"
    }


def json_schemas() -> dict[str, dict[str, Any]]:
    """Every named shape's standalone JSON Schema."""
    build_models()
    return {name: json_schema(name, tp) for name, tp in named_types().items()}


def schema_file_name(name: str) -> str:
    """A portable file name: `event.turn/start` → `event.turn-start.schema.json`."""
    return re.sub(r"[^A-Za-z0-9_.-]", "-", name) + ".schema.json"


# ---- OpenAPI -------------------------------------------------------------------------------


def _method_envelopes(m: AnyMethod) -> tuple[type[BaseModel], type[BaseModel]]:
    """The client-request and server-response of one method, narrowed from the generic ones."""
    name = _pascal(m.key)
    request = create_model(
        f"{name}ClientRequest",
        __base__=ClientRequest,
        method=(Literal[m.key], ...),  # type: ignore[arg-type]
        payload=(m.request, ...),
    )
    result = Annotated[Union[RpcOk[m.value], RpcErr], Field(discriminator="ok")]  # type: ignore[name-defined]
    response = create_model(f"{name}ServerResponse", __base__=ServerResponse, result=(result, ...))
    return request, response


def _ref(name: str) -> dict[str, str]:
    return {"$ref": COMPONENTS + name}


def _text(description: str) -> dict[str, Any]:
    return {"description": description, "content": {"text/plain": {"schema": {"type": "string"}}}}


def _json(description: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


_POST_FAILURES = {
    "400": _text("the body is not JSON"),
    "404": _text("unknown path"),
    "413": _text("the body exceeds the size cap"),
    "415": _text("the media type is not application/json"),
    "500": _text("the implementation failed (a host bug, never a business error)"),
}


def _export_parameters(schema: dict[str, Any]) -> list[dict[str, Any]]:
    """Query parameters of `session.export`, one per field of `ExportQuery`."""
    params = []
    for name, field in ExportQuery.model_fields.items():
        alias = field.alias or name
        prop = schema["properties"][alias]
        if field.annotation is bool:
            prop = {"type": "string", "enum": ["true", "false"], "default": json.dumps(field.default)}
        params.append(
            {"name": alias, "in": "query", "required": alias in schema.get("required", []), "schema": prop}
        )
    return params


def _sse(stream_key: str, frames: str) -> dict[str, Any]:
    envelope = {"allOf": [_ref("ServerRequest"), {"properties": {"payload": _ref(frames)}}]}
    return {
        "operationId": stream_key,
        "tags": ["streams"],
        "summary": f"Server-sent events: one server-request per frame ({frames})",
        "description": (
            "Each event is `id: <n>` and `data: <server-request JSON>` ended by a blank line; its"
            " `method` equals the frame's `type`. A `: heartbeat` comment arrives every 15 s of"
            " quiet. A host-side failure ends the stream with one `stream/error` frame."
        ),
        "responses": {
            "200": {
                "description": "an endless text/event-stream",
                "headers": {
                    "Cache-Control": {"schema": {"type": "string", "const": "no-cache"}},
                    "X-Accel-Buffering": {"schema": {"type": "string", "const": "no"}},
                },
                "content": {
                    "text/event-stream": {
                        "schema": {"type": "string", "description": "SSE framing of the data below"},
                        "x-sse-data": envelope,
                    }
                },
            },
            "404": _text("unknown path or not a GET"),
        },
    }


def _export_operation(op: str, params: list[dict[str, Any]]) -> dict[str, Any]:
    body = {"schema": {"type": "string", "format": "binary"}} if op == "get" else {}
    return {
        "operationId": f"session.export.{op}",
        "tags": ["session"],
        "summary": "Download a session (and optionally its descendants) as a ZIP"
        + (" (headers only)" if op == "head" else ""),
        "parameters": params,
        "responses": {
            "200": {
                "description": "application/zip, streamed",
                "headers": {"Content-Disposition": {"schema": {"type": "string"}}},
                "content": {"application/zip": body},
            },
            "400": _text("missing sessionId or a bad includeDescendants flag"),
            "404": _text("unknown session"),
        },
    }


@cache
def _openapi() -> str:
    build_models()
    inputs: list[tuple[str, Any, TypeAdapter[Any]]] = [
        (name, "validation", _adapter(tp)) for name, tp in named_types().items()
    ]
    envelopes = {m.key: _method_envelopes(m) for m in METHODS.values()}
    for key, (req, resp) in envelopes.items():
        inputs += [(f"{key}#request", "validation", TypeAdapter(req))]
        inputs += [(f"{key}#response", "validation", TypeAdapter(resp))]
    tops, defs = TypeAdapter.json_schemas(inputs, by_alias=True, ref_template=COMPONENTS + "{model}")
    components: dict[str, Any] = dict(defs.get("$defs", {}))
    refs: dict[str, dict[str, Any]] = {}
    for (name, _mode), schema in tops.items():
        if "$ref" in schema:
            refs[name] = schema
            continue
        if name in components:
            raise ValueError(f"schema name {name!r} collides with a model name")
        components[name] = schema
        refs[name] = _ref(name)

    paths: dict[str, Any] = {}
    for m in METHODS.values():
        paths[f"/api/{m.key}"] = {
            "post": {
                "operationId": m.key,
                "tags": [m.domain],
                "summary": f"{m.key}: {m.request.__name__} → {m.value.__name__}",
                "x-privileged": m.privileged,
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": refs[f"{m.key}#request"]}},
                },
                "responses": {
                    "200": _json(
                        "server-response; business errors are typed results", refs[f"{m.key}#response"]
                    ),
                    **_POST_FAILURES,
                    "501": _text("the host does not implement this method yet"),
                },
            }
        }
    paths["/api/respond"] = {
        "post": {
            "operationId": "respond",
            "tags": ["carrier"],
            "summary": "Answer an answerable server-request (approval or question)",
            "requestBody": {
                "required": True,
                "content": {"application/json": {"schema": refs["ClientResponse"]}},
            },
            "responses": {"200": _json("the carrier receipt", refs["RpcReceipt"]), **_POST_FAILURES},
        }
    }
    for key in STREAMS:
        paths[f"/api/{key}"] = {"get": _sse(key, frame_name(key))}
    params = _export_parameters(TypeAdapter(ExportQuery).json_schema(by_alias=True))
    paths["/api/session.export"] = {op: _export_operation(op, params) for op in ("get", "head")}
    paths["/api/openapi.json"] = {
        "get": {
            "operationId": "openapi",
            "tags": ["carrier"],
            "summary": "This document",
            "responses": {"200": _json("OpenAPI 3.1", {"type": "object"})},
        }
    }
    doc = {
        "openapi": "3.1.0",
        "jsonSchemaDialect": JSON_SCHEMA_DIALECT,
        "info": {
            "title": "HarnessDesk API",
            "version": __version__,
            "description": "Four-quadrant RPC over HTTP/SSE; the models in `contract/` are the authority.",
        },
        "paths": paths,
        "components": {"schemas": dict(sorted(components.items()))},
    }
    return json.dumps(doc, ensure_ascii=False)


def openapi_document() -> dict[str, Any]:
    """The OpenAPI 3.1 document the host serves at `GET /api/openapi.json` (a fresh copy)."""
    doc: dict[str, Any] = json.loads(_openapi())
    return doc


def write_all(out_dir: Path) -> list[Path]:
    """Write every JSON Schema, an index and `openapi.json` into `out_dir`; return the files."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    index = {}
    for name, schema in json_schemas().items():
        path = out_dir / schema_file_name(name)
        path.write_text(json.dumps(schema, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        index[name] = path.name
        written.append(path)
    index_path = out_dir / "index.json"
    index_path.write_text(json.dumps(index, indent=2) + "\n", encoding="utf-8")
    api_path = out_dir / "openapi.json"
    api_path.write_text(json.dumps(openapi_document(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return [*written, index_path, api_path]
