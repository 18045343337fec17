"""The client's SSE parser: the same events whatever the chunking, per the SSE line rules."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from host.fetch.sse import HEARTBEAT, encode_event
from host.fetch.sse_parser import SseEvent, SseParser, SseTooLong


def parse_all(chunks: list[bytes]) -> tuple[list[SseEvent], SseParser]:
    parser = SseParser()
    events = [event for chunk in chunks for event in parser.feed(chunk)]
    return events, parser


def split(data: bytes, points: list[int]) -> list[bytes]:
    edges = [0, *sorted({p % (len(data) + 1) for p in points}), len(data)]
    return [data[a:b] for a, b in itertools.pairwise(edges)]


texts = st.text(
    alphabet=st.characters(blacklist_characters="\r\n", blacklist_categories=["Cs"]), min_size=0, max_size=30
)
newlines = st.sampled_from([b"\n", b"\r\n", b"\r"])


@st.composite
def streams(draw: st.DrawFn) -> tuple[bytes, list[tuple[str, str | None]]]:
    """A stream of events (multi-line data, ids, comments) with mixed line endings."""
    wire = b"\xef\xbb\xbf" if draw(st.booleans()) else b""
    expected: list[tuple[str, str | None]] = []
    last_id: str | None = None
    for _ in range(draw(st.integers(0, 6))):
        if draw(st.booleans()):
            wire += b":" + draw(texts).encode() + draw(newlines)
        if draw(st.booleans()):
            last_id = draw(texts.filter(lambda t: "\0" not in t))
            wire += b"id: " + last_id.encode() + draw(newlines)
        lines = draw(st.lists(texts, min_size=1, max_size=3))
        for line in lines:
            wire += b"data: " + line.encode() + draw(newlines)
        # the blank line: after a bare "\r", a "\n" would only complete that "\r\n"
        wire += draw(st.sampled_from([b"\r", b"\r\n"]) if wire.endswith(b"\r") else newlines)
        expected.append(("\n".join(lines), last_id))
    return wire, expected


@given(stream=streams(), points=st.lists(st.integers(0, 10_000), max_size=30))
def test_any_chunking_gives_the_same_events(
    stream: tuple[bytes, list[tuple[str, str | None]]], points: list[int]
) -> None:
    wire, expected = stream
    events, _ = parse_all(split(wire, points))
    assert [(e.data, e.id) for e in events] == expected


@given(stream=streams())
def test_byte_at_a_time(stream: tuple[bytes, list[tuple[str, str | None]]]) -> None:
    wire, expected = stream
    events, _ = parse_all([wire[i : i + 1] for i in range(len(wire))])
    assert [(e.data, e.id) for e in events] == expected


def test_crlf_split_between_cr_and_lf_is_one_line_break() -> None:
    events, _ = parse_all([b"data: a\r", b"\n", b"\r", b"\n"])
    assert [e.data for e in events] == ["a"]
    events, _ = parse_all([b"data: a\r", b"\n", b"\n"])
    assert [e.data for e in events] == ["a"]
    events, _ = parse_all([b"data: a\r", b"", b"\ndata: b\n", b"\n"])
    assert [e.data for e in events] == ["a\nb"]


def test_utf8_split_inside_a_character() -> None:
    wire = "data: é🎉\n\n".encode()
    events, _ = parse_all([wire[:7], wire[7:9], wire[9:]])
    assert [e.data for e in events] == ["é🎉"]


def test_field_rules() -> None:
    events, parser = parse_all(
        [b": hi\n", b"event: custom\ndata:no-space\ndata:  two\nretry: 5\nunknown: x\n\n", b"id\ndata\n\n"]
    )
    assert events == [SseEvent(data="no-space\n two", event="custom"), SseEvent(data="", id="")]
    assert parser.comments == 1


def test_events_without_data_and_unterminated_events_are_not_dispatched() -> None:
    events, _ = parse_all([b"id: 1\n\n", b"event: x\n\n", b"data: tail-without-blank-line\n"])
    assert events == []


def test_host_encoding_round_trips() -> None:
    wire = HEARTBEAT + encode_event(0, b'{"a":1}') + HEARTBEAT + encode_event(1, "é".encode())
    events, parser = parse_all([wire])
    assert [(e.id, e.data) for e in events] == [("0", '{"a":1}'), ("1", "é")]
    assert parser.comments == 2


def test_host_refuses_multiline_data() -> None:
    with pytest.raises(ValueError, match="single line"):
        encode_event(0, b"a\nb")


def test_endless_line_is_refused() -> None:
    parser = SseParser(max_line=100)
    parser.feed(b"data: " + b"x" * 90)
    with pytest.raises(SseTooLong):
        parser.feed(b"x" * 20)
