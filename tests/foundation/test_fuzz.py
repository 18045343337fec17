"""Whatever a client sends, the handler answers promptly and never with a 500 (host bugs only)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from contract.methods import METHODS
from host.fetch import to_fetch_handler
from tests.foundation.fake_api import BusinessErrorsApi
from tests.foundation.helpers import Reply, exchange

APP = to_fetch_handler(BusinessErrorsApi(), max_body=64 * 1024)
KEYS = sorted(METHODS)
PATHS = st.sampled_from([f"/api/{k}" for k in KEYS] + ["/api/respond", "/api/nope", "/api/events.mux"])

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=20,
)


WORDS = [
    "s-1",
    "queue",
    "steer",
    "local",
    "x",
    0,
    3,
    True,
    [],
    {"kind": "remove"},
    [{"type": "text", "text": "hi"}],
]
PLAUSIBLE = st.one_of(st.sampled_from(WORDS), json_values)


def payloads_for(key: str) -> st.SearchStrategy[dict[str, Any]]:
    """Payloads over the method's real field names, often plausible, sometimes with junk keys."""
    fields = METHODS[key].request.model_fields.items()
    required = {f.alias or name: PLAUSIBLE for name, f in fields if f.is_required()}
    optional = {f.alias or name: PLAUSIBLE for name, f in fields if not f.is_required()}
    shaped = st.fixed_dictionaries(required, optional=optional)
    junk = st.dictionaries(st.text(max_size=8), json_values, max_size=3)
    return st.one_of(shaped, st.builds(lambda a, b: a | b, shaped, junk), junk)


@st.composite
def envelopes(draw: st.DrawFn) -> tuple[str, bytes]:
    key = draw(st.sampled_from(KEYS))
    # hypothesis favours small draws, so the plain, valid choice is the one at 0
    path_key = draw(st.sampled_from(KEYS)) if draw(st.integers(0, 9)) == 9 else key
    kinds = st.sampled_from(["client-request"] * 6 + ["client-response", "server-request", "other"])
    message: dict[str, Any] = {
        "type": draw(kinds),
        "rpcId": draw(json_values if draw(st.integers(0, 9)) == 9 else st.text(min_size=1, max_size=8)),
        "method": key,
        "payload": draw(json_values if draw(st.integers(0, 9)) == 9 else payloads_for(key)),
    }
    if draw(st.integers(0, 4)) == 4:
        del message[draw(st.sampled_from(list(message)))]
    return f"/api/{path_key}", json.dumps(message).encode()


def run(path: str, body: bytes, content_type: str | None = "application/json") -> Reply:
    async def go() -> Reply:
        async with asyncio.timeout(5):  # a hang fails the test
            return await exchange(APP, "POST", path, body, content_type=content_type)

    return asyncio.run(go())


def check(reply: Reply) -> None:
    assert reply.status in {200, 400, 404, 413, 415}, (reply.status, reply.body[:200])
    if reply.status == 200:
        answer = reply.json()
        assert answer.get("type") == "server-response" or "accepted" in answer


@settings(max_examples=150, deadline=None)
@given(path=PATHS, body=st.binary(max_size=300))
def test_random_bytes(path: str, body: bytes) -> None:
    check(run(path, body))


@settings(max_examples=150, deadline=None)
@given(path=PATHS, value=json_values)
def test_random_json(path: str, value: Any) -> None:
    check(run(path, json.dumps(value).encode()))


@settings(max_examples=300, deadline=None)
@given(case=envelopes())
def test_random_envelopes(case: tuple[str, bytes]) -> None:
    reply = run(*case)
    check(reply)
    assert reply.status == 200


@settings(max_examples=50, deadline=None)
@given(content_type=st.text(max_size=40), body=st.binary(max_size=50))
def test_random_media_types(content_type: str, body: bytes) -> None:
    try:
        content_type.encode("latin-1")
    except UnicodeEncodeError:
        content_type = content_type.encode("latin-1", errors="replace").decode("latin-1")
    reply = run("/api/session.list", body, content_type=content_type)
    check(reply)
    media = content_type.split(";")[0].strip().lower()
    assert (reply.status == 415) == (media != "application/json")
