"""Fuzzing with hypothesis: the HTTP handler never answers 500 or logs a traceback for any input
(bad payloads get `bad-request` with issues), and both SSE parsers (Python, JS) read any split of
a valid stream exactly and survive any bytes."""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import shutil
import subprocess
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contract.methods import METHODS
from host.api import HostRuntime, open_host
from host.engine.llm.overrides import RuntimeOverrides
from host.fetch.asgi_driver import drive
from host.fetch.sse import encode_event
from host.fetch.sse_parser import SseParser, SseTooLong
from tests.api.support import ROOT
from tests.support.machine import needs

FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**63), 2**63), st.floats(allow_nan=False), st.text(max_size=30)
)
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=12), inner, max_size=4)
    ),
    max_leaves=12,
)
FIELDS = sorted(
    {name for m in METHODS.values() for name in getattr(m.request, "model_fields", {})}
    | {
        "sessionId",
        "cwd",
        "content",
        "mode",
        "maxMessages",
        "beforeSeq",
        "title",
        "query",
        "itemId",
        "action",
    }
)
payloads = st.one_of(
    json_values,
    st.dictionaries(st.sampled_from(FIELDS), json_values, max_size=5),
)


def envelope(method: str) -> st.SearchStrategy[Any]:
    return st.one_of(
        json_values,
        st.fixed_dictionaries(
            {"type": st.just("client-request"), "rpcId": st.text(max_size=20), "method": st.just(method)},
            optional={"payload": payloads},
        ),
        st.fixed_dictionaries(
            {
                "type": st.sampled_from(["client-request", "client-response", "x"]),
                "rpcId": json_values,
                "method": st.sampled_from([*METHODS, "nope"]),
                "payload": payloads,
            }
        ),
    )


class Captured(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture
def host(tmp_path: Path, scripted_llm: Any) -> Iterator[tuple[asyncio.AbstractEventLoop, HostRuntime]]:
    loop = asyncio.new_event_loop()
    overrides = RuntimeOverrides(provider="openai-compatible", base_url=scripted_llm.base_url, model="m")
    runtime = loop.run_until_complete(open_host(tmp_path / "data", overrides))
    try:
        yield loop, runtime
    finally:
        loop.run_until_complete(runtime.close())
        loop.close()


async def exchange(
    runtime: HostRuntime, verb: str, path: str, ctype: str | None, body: bytes
) -> tuple[int, bytes]:
    headers = {"content-type": ctype} if ctype is not None else {}
    ex = await drive(runtime.app, verb, path, headers, body)
    try:
        out = b"".join([chunk async for chunk in ex.body()])
    finally:
        await ex.aclose()
    return ex.status, out


def test_the_http_handler_never_fails_on_any_input(
    host: tuple[asyncio.AbstractEventLoop, HostRuntime],
) -> None:
    loop, runtime = host
    captured = Captured()
    root = logging.getLogger()
    root.addHandler(captured)

    @FUZZ
    @given(
        name=st.sampled_from([*METHODS, "respond", "nope", "session.export", "openapi.json", "../x"]),
        verb=st.sampled_from(["POST", "POST", "POST", "GET", "PUT", "DELETE"]),
        ctype=st.sampled_from(["application/json", "application/json; charset=utf-8", "text/plain", None]),
        raw=st.one_of(st.binary(max_size=64), st.just(b"")),
        data=st.data(),
    )
    def check(name: str, verb: str, ctype: str | None, raw: bytes, data: st.DataObject) -> None:
        as_json = data.draw(st.booleans())
        body = json.dumps(data.draw(envelope(name))).encode() if as_json else raw
        query = data.draw(
            st.sampled_from(["", "?sessionId=nope", "?sessionId=&includeDescendants=maybe", "?x=%ff"])
        )
        captured.records.clear()
        status, out = loop.run_until_complete(exchange(runtime, verb, f"/api/{name}{query}", ctype, body))
        assert status != 500, out
        assert status in (200, 400, 404, 405, 413, 415), (status, out)
        assert not [r for r in captured.records if r.exc_info or r.levelno >= logging.ERROR], [
            r.getMessage() for r in captured.records
        ]
        seen[status] += 1
        if status == 200 and verb == "POST" and name in METHODS:
            answer = json.loads(out)
            assert answer["type"] == "server-response"
            result = answer["result"]
            seen["ok" if result["ok"] else result["error"]["code"]] += 1
            if not result["ok"] and result["error"]["code"] == "bad-request":
                issues = result["error"]["details"]["issues"]
                assert isinstance(issues, list) and issues

    seen: Counter[Any] = Counter()
    try:
        check()
    finally:
        root.removeHandler(captured)
    for outcome in (200, 400, 404, 415, "bad-request"):  # the fuzzer reached every rule
        assert seen[outcome] > 0, seen


# ---- the SSE parsers ---------------------------------------------------------------------------

SURROGATES: Literal["Cs"] = "Cs"
texts = st.text(st.characters(blacklist_categories=(SURROGATES,), blacklist_characters="\r\n"), max_size=40)
events = st.lists(st.tuples(texts, st.integers(0, 10**6)), max_size=12)


def stream_of(items: list[tuple[str, int]]) -> bytes:
    return b": hello\n\n" + b"".join(encode_event(n, data.encode()) for data, n in items)


def splits(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts})
    edges = [0, *points, len(data)]
    return [data[a:b] for a, b in itertools.pairwise(edges)]


def py_parse(chunks: list[bytes]) -> list[tuple[str, str, str]]:
    parser = SseParser()
    out = []
    for chunk in chunks:
        out += [(e.data, e.event, e.id or "") for e in parser.feed(chunk)]
    return out


@FUZZ
@given(items=events, cuts=st.lists(st.integers(0, 10**6), max_size=20))
def test_python_sse_parser_reads_any_split_exactly(items: list[tuple[str, int]], cuts: list[int]) -> None:
    data = stream_of(items)
    assert py_parse(splits(data, cuts)) == [(text, "message", str(n)) for text, n in items]


@FUZZ
@given(chunks=st.lists(st.binary(max_size=50), max_size=20))
def test_python_sse_parser_survives_any_bytes(chunks: list[bytes]) -> None:
    parser = SseParser(max_line=200)
    for chunk in chunks:
        try:
            for event in parser.feed(chunk):
                assert isinstance(event.data, str)
        except SseTooLong:
            return


def js_parse(cases: list[list[bytes]]) -> list[list[list[str]]]:
    """Run webui/js/client/sse.js on each case (a list of byte chunks) in one node process."""
    module = (ROOT / "webui/js/client/sse.js").as_uri()
    script = f"""
      import {{ SseParser }} from {json.dumps(module)};
      let input = "";
      process.stdin.setEncoding("utf8");
      for await (const part of process.stdin) input += part;
      const out = JSON.parse(input).map((chunks) => {{
        const got = [];
        const p = new SseParser({{ onEvent: (e) => got.push([e.data, e.event, e.id]) }});
        for (const hex of chunks) p.push(Uint8Array.from(Buffer.from(hex, "hex")));
        p.end();
        return got;
      }});
      process.stdout.write(JSON.stringify(out));
    """
    payload = json.dumps([[c.hex() for c in chunks] for chunks in cases])
    done = subprocess.run(
        ["node", "--input-type=module", "-e", script],
        input=payload,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return list(json.loads(done.stdout))


needs_node = needs(shutil.which("node") is not None, "node is not installed")


@needs_node
@settings(max_examples=5, deadline=None)
@given(
    batch=st.lists(st.tuples(events, st.lists(st.integers(0, 10**6), max_size=20)), min_size=1, max_size=40)
)
def test_js_sse_parser_reads_any_split_exactly(batch: list[tuple[list[tuple[str, int]], list[int]]]) -> None:
    cases = [splits(stream_of(items), cuts) for items, cuts in batch]
    got = js_parse(cases)
    for (items, _), found in zip(batch, got, strict=True):
        assert [tuple(e) for e in found] == [(text, "message", str(n)) for text, n in items]


@needs_node
@settings(max_examples=5, deadline=None)
@given(batch=st.lists(st.lists(st.binary(max_size=40), max_size=12), min_size=1, max_size=40))
def test_js_sse_parser_survives_any_bytes_like_the_python_one(batch: list[list[bytes]]) -> None:
    got = js_parse(batch)  # no exception in node (the harness would exit non-zero)
    for chunks, found in zip(batch, got, strict=True):
        text = b"".join(chunks)
        try:
            text.decode("utf-8")
        except UnicodeDecodeError:
            continue  # replacement characters may differ between decoders; only crashes matter
        assert [tuple(e) for e in found] == py_parse(chunks)
