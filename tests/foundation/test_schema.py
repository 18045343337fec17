"""`contract.schema` and `python -m contract`: everything derived from the map and the models."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from contract import schema
from contract.events import EVENT_DATA
from contract.frames import STREAMS
from contract.methods import METHODS, Method
from contract.sessions import ListRequest, ListValue

ROOT = Path(__file__).resolve().parents[2]


@cache
def openapi() -> dict[str, Any]:
    """The OpenAPI document, built on first use, not at import: every xdist worker imports this
    module to collect it, and building the document costs seconds of CPU (docs/decisions/
    a-faster-suite.md)."""
    return schema.openapi_document()


def refs(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref":
                yield value
            else:
                yield from refs(value)
    elif isinstance(node, list):
        for item in node:
            yield from refs(item)


@pytest.mark.parametrize("key", sorted(METHODS))
def test_every_method_has_models_and_an_openapi_path(key: str) -> None:
    m = METHODS[key]
    assert issubclass(m.request, BaseModel)
    assert issubclass(m.value, BaseModel)
    assert m.key == key
    op = openapi()["paths"][f"/api/{key}"]["post"]
    assert set(openapi()["paths"][f"/api/{key}"]) == {"post"}
    components = openapi()["components"]["schemas"]
    request = components[op["requestBody"]["content"]["application/json"]["schema"]["$ref"].split("/")[-1]]
    assert request["properties"]["method"]["const"] == key
    payload_ref = request["properties"]["payload"]["$ref"].split("/")[-1]
    assert payload_ref == m.request.__name__
    response = components[
        op["responses"]["200"]["content"]["application/json"]["schema"]["$ref"].split("/")[-1]
    ]
    ok_ref = response["properties"]["result"]["discriminator"]["mapping"]["true"].split("/")[-1]
    assert components[ok_ref]["properties"]["value"]["$ref"].split("/")[-1] == m.value.__name__
    assert {"400", "404", "413", "415", "500"} <= set(op["responses"])


def test_carrier_paths() -> None:
    paths = openapi()["paths"]
    assert openapi()["openapi"].startswith("3.1")
    assert set(paths) == {f"/api/{k}" for k in METHODS} | {
        "/api/respond",
        "/api/events.mux",
        "/api/events.host",
        "/api/session.export",
        "/api/openapi.json",
    }
    respond = paths["/api/respond"]["post"]
    assert respond["requestBody"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/ClientResponse"
    }
    assert respond["responses"]["200"]["content"]["application/json"]["schema"]["$ref"].endswith(
        "/RpcReceipt"
    )
    for key in STREAMS:
        sse = paths[f"/api/{key}"]["get"]["responses"]["200"]["content"]["text/event-stream"]
        frames = sse["x-sse-data"]["allOf"][1]["properties"]["payload"]["$ref"].split("/")[-1]
        assert frames == schema.frame_name(key)
        assert "oneOf" in openapi()["components"]["schemas"][frames]
    export = paths["/api/session.export"]
    assert set(export) == {"get", "head"}
    params = {p["name"]: p for p in export["get"]["parameters"]}
    assert params["sessionId"]["required"] is True
    assert params["includeDescendants"]["schema"]["enum"] == ["true", "false"]
    assert "application/zip" in export["get"]["responses"]["200"]["content"]


def test_every_reference_resolves() -> None:
    components = openapi()["components"]["schemas"]
    targets = set(refs(openapi()))
    assert targets
    assert all(t.startswith("#/components/schemas/") for t in targets)
    assert {t.rsplit("/", 1)[1] for t in targets} <= set(components)


def test_a_method_added_to_the_map_appears_with_no_other_edit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(METHODS, "session.extra", Method("session.extra", ListRequest, ListValue))
    schema._openapi.cache_clear()
    try:
        doc = schema.openapi_document()
        names = schema.named_types()
    finally:
        monkeypatch.undo()
        schema._openapi.cache_clear()
    assert "/api/session.extra" in doc["paths"]
    assert "SessionExtraClientRequest" in doc["components"]["schemas"]
    assert {"method.session.extra.request", "method.session.extra.value"} <= set(names)


def test_named_schemas_cover_the_whole_contract() -> None:
    names = set(schema.named_types())
    expected = {f"method.{k}.{part}" for k in METHODS for part in ("request", "value")}
    expected |= {f"event.{t}" for t in EVENT_DATA}
    expected |= {
        "ClientRequest",
        "ServerResponse",
        "ServerRequest",
        "ClientResponse",
        "RpcError",
        "RpcReceipt",
        "MuxFrame",
        "HostFrame",
        "SessionEvent",
        "ContentBlock",
        "StreamChunk",
    }
    assert expected <= names
    error = schema.json_schema("RpcError", schema.named_types()["RpcError"])
    assert error["$schema"] == schema.JSON_SCHEMA_DIALECT
    assert error["discriminator"]["propertyName"] == "code"
    assert "bad-request" in error["discriminator"]["mapping"]


def test_wire_names_are_camel_case() -> None:
    history = schema.json_schemas()["method.session.history.request"]
    assert set(history["properties"]) == {"sessionId", "beforeSeq", "maxMessages"}
    assert history["additionalProperties"] is False


def test_cli_writes_every_schema_and_the_openapi_document(tmp_path: Path) -> None:
    out = tmp_path / "schemas"
    run = subprocess.run(
        [sys.executable, "-m", "contract", "--out", str(out), "--js", str(tmp_path / "contract.gen.js")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    index = json.loads((out / "index.json").read_text())
    assert set(index) == set(schema.named_types())
    for name, file in index.items():
        written = json.loads((out / file).read_text())
        assert written["title"] == name
    assert json.loads((out / "openapi.json").read_text()) == openapi()


def test_cli_default_directory(tmp_path: Path) -> None:
    js = tmp_path / "contract.gen.js"  # not the repository's copy: a test never rewrites the checkout
    run = subprocess.run(
        [sys.executable, "-m", "contract", "--js", str(js)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "schema-out" / "openapi.json").is_file()
    assert js.is_file()
