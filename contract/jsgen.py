"""The web client's copy of the contract: one generated ES module, `webui/js/contract.gen.js`.

The browser has no pydantic, so `python -m contract` writes what the client needs as plain
data: each method's facts (privileged, user-paced, and the names of its request and value
schemas), the error codes with their detail fields,
the stream frame and session event type names, and the JSON Schema of every wire message the
client reads or sends. `webui/js/client/json-schema.js` validates against that schema; nothing in
`webui/js` restates a shape. The module is committed (the UI has no build step) and a stale copy
fails `python -m contract --check` (run by `scripts/test.sh` and a foundation test).

The schemas are pydantic's validation-mode JSON Schema with two changes. Annotations (titles,
descriptions, defaults, formats) are dropped. A tag field (a `Literal` whose value is also its
default: `type`, `ok`, `accepted`) becomes required, because the host always writes it and the
client tells messages apart by it. A keyword the JS validator does not implement stops
generation, so a model can never demand a check the client silently skips.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter

from contract import __version__
from contract.errors import ERROR_DETAILS, RPC_ERROR
from contract.events import EVENT_DATA
from contract.frames import ANSWERABLE_FRAMES, STREAMS
from contract.methods import METHODS
from contract.permissions import LOOSENESS_ORDER
from contract.rpc import RPC_RECEIPT, ServerRequest, ServerResponse
from contract.schema import frame_name

JS_MODULE = Path(__file__).resolve().parents[1] / "webui" / "js" / "contract.gen.js"
"""Where the module lives in a source checkout (next to this package)."""

DEFS_REF = "#/$defs/"

# Keywords of JSON Schema 2020-12 and what the client does with each.
_ANNOTATIONS = frozenset({"title", "description", "default", "examples", "format", "deprecated"})
_ASSERTIONS = frozenset(
    {
        "$ref",
        "type",
        "const",
        "enum",
        "required",
        "minLength",
        "maxLength",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "minItems",
        "maxItems",
        "pattern",
        "maxProperties",
        "discriminator",
    }
)
_SCHEMA_MAPS = frozenset({"properties"})
_SCHEMA_LISTS = frozenset({"anyOf", "oneOf", "allOf", "prefixItems"})
_SCHEMA_ONE = frozenset({"items", "additionalProperties"})


class UnsupportedSchema(ValueError):
    """A model produced a JSON Schema keyword that webui/js/client/json-schema.js does not check."""


def compact(schema: Any, where: str) -> Any:
    """`schema` without annotations; raises `UnsupportedSchema` on a keyword the client lacks."""
    if isinstance(schema, bool):
        return schema
    out: dict[str, Any] = {}
    tags = [
        name
        for name, sub in schema.get("properties", {}).items()
        if isinstance(sub, dict) and "const" in sub and sub.get("default") == sub["const"]
    ]
    if tags:
        schema = schema | {"required": [*tags, *schema.get("required", [])]}
    for key, value in schema.items():
        if key in _ANNOTATIONS:
            continue
        if key in _ASSERTIONS:
            out[key] = value
        elif key in _SCHEMA_MAPS:
            out[key] = {name: compact(sub, f"{where}.{name}") for name, sub in value.items()}
        elif key in _SCHEMA_LISTS:
            out[key] = [compact(sub, f"{where}.{key}[{i}]") for i, sub in enumerate(value)]
        elif key in _SCHEMA_ONE:
            out[key] = compact(value, f"{where}.{key}")
        else:
            raise UnsupportedSchema(
                f"{where}: JSON Schema keyword {key!r} is not implemented by"
                " webui/js/client/json-schema.js; implement it there and list it in contract/jsgen.py"
            )
    return out


def _roots() -> dict[str, TypeAdapter[Any]]:
    """The messages the client validates, by the name their schema gets in the table."""
    roots: dict[str, TypeAdapter[Any]] = {
        "ServerRequest": TypeAdapter(ServerRequest),
        "ServerResponse": TypeAdapter(ServerResponse),
        "RpcReceipt": RPC_RECEIPT,
        "RpcError": RPC_ERROR,
    }
    return roots | {frame_name(key): adapter for key, adapter in STREAMS.items()}


def _method_roots() -> dict[str, TypeAdapter[Any]]:
    """Each method's request and value model, keyed `<method> request` / `<method> value`; their
    schemas are `$ref`s into the shared table, so a method row names the def (`_method_refs`)."""
    roots: dict[str, TypeAdapter[Any]] = {}
    for m in METHODS.values():
        roots[f"{m.key} request"] = TypeAdapter(m.request)
        roots[f"{m.key} value"] = TypeAdapter(m.value)
    return roots


def _schemas() -> tuple[dict[str, Any], dict[str, str]]:
    """The `$defs` table (every root under its name) and each method root's def name."""
    inputs = _roots()
    methods = _method_roots()
    tops, defs = TypeAdapter.json_schemas(
        [(name, "validation", adapter) for name, adapter in (inputs | methods).items()],
        by_alias=True,
        ref_template=DEFS_REF + "{model}",
    )
    roots = {name: compact(tops[(name, "validation")], name) for name in inputs}
    table = {name: compact(schema, name) for name, schema in defs.get("$defs", {}).items()}
    refs: dict[str, str] = {}
    for name in methods:
        top = tops[(name, "validation")]
        ref = top.get("$ref", "") if set(top) == {"$ref"} else ""
        if not ref.startswith(DEFS_REF):
            raise UnsupportedSchema(f"{name}: a method's model must be a named model, got {top!r}")
        refs[name] = ref.removeprefix(DEFS_REF)
    return _share_roots(roots, table), refs


def client_schemas() -> dict[str, Any]:
    """One `$defs` table holding every message the client reads, each root under its name."""
    return _schemas()[0]


def _canonical(schema: Any) -> str:
    return json.dumps(schema, sort_keys=True)


def _share_roots(roots: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    """Every root as a def of its own name. An inline root union (pydantic repeats e.g. the
    RpcError union wherever it is used) moves into `defs` and is referred to, not repeated."""
    shared: dict[str, dict[str, str]] = {}
    for name, schema in roots.items():
        if schema == {"$ref": DEFS_REF + name}:
            continue
        if name in defs:
            raise UnsupportedSchema(f"root {name!r} collides with a model of the same name")
        defs[name] = schema
        shared[_canonical(schema)] = {"$ref": DEFS_REF + name}

    def replace(node: Any) -> Any:
        if isinstance(node, dict):
            ref = shared.get(_canonical(node))
            return ref if ref is not None else {k: replace(v) for k, v in node.items()}
        if isinstance(node, list):
            return [replace(v) for v in node]
        return node

    return {name: {k: replace(v) for k, v in schema.items()} for name, schema in sorted(defs.items())}


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _table(name: str, doc: str, rows: dict[str, Any]) -> list[str]:
    """`export const NAME = {…}` with one row per line, so a diff shows what changed."""
    lines = [f"  {json.dumps(key)}: {_json(value)}," for key, value in rows.items()]
    return [f"/** {doc} */", f"export const {name} = {{", *lines, "};", ""]


def _const(name: str, doc: str, value: str) -> list[str]:
    return [f"/** {doc} */", f"export const {name} = {value};", ""]


METHODS_DOC = (
    "method key → facts; a `userPaced` call waits for the person (no timeout); `request` and"
    " `value` name its schemas in DEFS."
)

HEADER = """\
// GENERATED by `python -m contract` from contract/ -- do not edit: change the models, then
// regenerate. Read by webui/js/client/frames.js, json-schema.js and state/problems.js.
"""


def render() -> str:
    """The whole module's text; the same contract always gives the same bytes."""
    defs, refs = _schemas()
    methods = {
        m.key: {
            "privileged": m.privileged,
            "userPaced": m.user_paced,
            "request": refs[f"{m.key} request"],
            "value": refs[f"{m.key} value"],
        }
        for m in METHODS.values()
    }
    errors = {
        code: {"details": model.__name__, "fields": [f.alias or n for n, f in model.model_fields.items()]}
        for code, model in ERROR_DETAILS.items()
    }
    streams = {}
    for key in STREAMS:
        union = frame_name(key)
        streams[key] = {"frame": union, "types": list(defs[union]["discriminator"]["mapping"])}
    out = [
        HEADER,
        *_const("CONTRACT_VERSION", "The contract package's version.", json.dumps(__version__)),
        *_table("METHODS", METHODS_DOC, methods),
        *_table("ERRORS", "error code → its details schema (in DEFS) and the detail field names.", errors),
        *_const("ERROR_CODES", "Every error code of the contract.", "Object.keys(ERRORS)"),
        *_table("STREAMS", "stream key → its frame union (in DEFS) and the frame types it carries.", streams),
        *_const(
            "FRAME_TYPES", "Every frame type.", "[...new Set(Object.values(STREAMS).flatMap((s) => s.types))]"
        ),
        *_const("ANSWERABLE_FRAMES", "Frames answered through `respond`.", _json(sorted(ANSWERABLE_FRAMES))),
        *_const(
            "PERMISSION_LOOSENESS",
            "Permission presets from strictest to loosest: a move right lets more run unasked.",
            _json(list(LOOSENESS_ORDER)),
        ),
        *_const(
            "EVENT_TYPES",
            "Session event types with a data model (others are valid too).",
            _json(list(EVENT_DATA)),
        ),
        *_table("DEFS", "JSON Schema of what the client reads, by name; `$ref` is `#/$defs/<name>`.", defs),
    ]
    return "\n".join(out).rstrip("\n") + "\n"


def write(path: Path = JS_MODULE) -> Path:
    """Regenerate the module at `path`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render(), encoding="utf-8")
    return path


def is_current(path: Path = JS_MODULE) -> bool:
    """Whether the file at `path` is exactly what the contract generates now."""
    try:
        return path.read_text(encoding="utf-8") == render()
    except FileNotFoundError:
        return False
