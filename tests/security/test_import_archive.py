"""Red-team finding (issue 24): `harnessdesk import` of an archive holding deeply nested JSON
ended in a `RecursionError` traceback. Every JSON value of an archive is now bounded in depth
before a parser recurses (`MAX_DEPTH` in host/api/archive.py), and whatever an archive holds, an
import ends in one line (exit code 2) or imports: never a traceback. The deep cases through the
real CLI binary; then hypothesis throws generated archives at the reader and at the whole import
(the CLI's code in this process, a real SQLite file per example)."""

from __future__ import annotations

import io
import json
import tempfile
import warnings
import zipfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from host.api.archive import MAX_DEPTH, ArchiveError, read_archive
from tests.api.support import run_cli, run_main

HEAD = json.dumps({"id": "s-deep", "createdAt": 1, "blank": False})
DEEP = "[" * 50_000 + "]" * 50_000


def write_zip(path: Path, entries: list[tuple[str, str | bytes]]) -> Path:
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # duplicate names are written on purpose
        for name, data in entries:
            zf.writestr(name, data)
    return path


def event(seq: int, etype: str, data: Any) -> str:
    return json.dumps({"type": etype, "seq": seq, "time": 1000 + seq, "data": data})


def one_line_refusal(ran: Any) -> str:
    assert ran.returncode == 2, (ran.returncode, ran.stdout, ran.stderr)
    assert "Traceback" not in ran.stderr
    lines = ran.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("harnessdesk: cannot read"), ran.stderr
    return str(lines[0])


DEEP_CASES: dict[str, list[tuple[str, str | bytes]]] = {
    "event": [
        (
            "session.jsonl",
            HEAD + "\n" + event(0, "turn/start", {"turn": 0, "x": json.loads("[" * 900 + "]" * 900)}),
        )
    ],
    "event-past-json": [
        ("session.jsonl", HEAD + "\n" + '{"type": "turn/start", "seq": 0, "time": 1, "data": ' + DEEP + "}\n")
    ],
    "header": [("session.jsonl", '{"id": "s-deep", "createdAt": 1, "x": ' + DEEP + "}\n")],
    "media": [("session.jsonl", HEAD + "\n"), ("media/sha256-x.json", DEEP)],
}


@pytest.mark.parametrize("case", list(DEEP_CASES))
def test_deeply_nested_json_ends_in_one_line(tmp_path: Path, case: str) -> None:
    archive = write_zip(tmp_path / "deep.zip", DEEP_CASES[case])
    work = tmp_path / "work"
    work.mkdir()
    ran = run_cli("import", str(archive), "--cwd", str(work), "--data-dir", str(tmp_path / "data"))
    line = one_line_refusal(ran)
    assert "nests" in line and f"at most {MAX_DEPTH}" in line, line
    assert not list((tmp_path / "data").glob("*.sqlite3*"))  # checked whole before the store opened


def test_nesting_within_the_bound_imports(tmp_path: Path) -> None:
    nested: Any = "leaf"
    for _ in range(MAX_DEPTH - 4):  # the event's own envelope and data add levels
        nested = [nested]
    archive = write_zip(
        tmp_path / "ok.zip",
        [
            (
                "session.jsonl",
                HEAD + "\n" + event(0, "turn/start", {"turn": 0, "trigger": "user", "x": nested}) + "\n",
            )
        ],
    )
    work = tmp_path / "work"
    work.mkdir()
    ran = run_main("import", str(archive), "--cwd", str(work), "--data-dir", str(tmp_path / "data"))
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.split() == ["s-deep"]


# ---- fuzz ---------------------------------------------------------------------------------------

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
TYPES = [
    "turn/start", "turn/end", "step/start", "step/end", "user/message", "assistant/message",
    "assistant/chunk", "tool/call", "tool/result", "agent/inbox/spliced", "session/end-seed",
    "session/title", "compact/start", "compact/end", "files/restored", "subagent/spawned",
    "approval/asked", "approval/decided", "command/run", "command/done",
]  # fmt: skip
FIELDS = [
    "turn",
    "step",
    "message",
    "source",
    "target",
    "start",
    "inserted",
    "removedCount",
    "content",
    "role",
    "text",
    "title",
    "reason",
]


@st.composite
def event_data(draw: st.DrawFn) -> Any:
    if draw(st.booleans()):
        return draw(JSON)
    return {k: draw(JSON) for k in draw(st.lists(st.sampled_from(FIELDS), max_size=5, unique=True))}


@st.composite
def session_log(draw: st.DrawFn) -> str:
    header: dict[str, Any] = {"id": "s-fuzz", "createdAt": 1, "blank": draw(st.booleans())}
    if draw(st.booleans()):
        header.update(
            draw(
                st.dictionaries(
                    st.sampled_from(
                        ["title", "seedLength", "agentPreset", "parentSession", "origin", "lastActivity"]
                    ),
                    JSON,
                    max_size=3,
                )
            )
        )
    lines = [json.dumps(header)]
    for seq in range(draw(st.integers(0, 6))):
        etype = draw(st.sampled_from(TYPES))
        ev: dict[str, Any] = {
            "type": etype,
            "seq": seq,
            "time": draw(st.integers(0, 2**40)),
            "data": draw(event_data()),
        }
        if draw(st.integers(0, 4)) == 0:
            ev[draw(st.sampled_from(["surfaceOp", "sourceEventSeqs", "seq", "time"]))] = draw(JSON)
        lines.append(json.dumps(ev))
    text = "\n".join(lines) + "\n"
    if draw(st.integers(0, 5)) == 0:  # a mangled byte somewhere
        at = draw(st.integers(0, len(text) - 1))
        text = (
            text[:at]
            + draw(st.sampled_from(["", "{", "]", '"', "\\", "\x00", "\ud800", "é"]))
            + text[at + 1 :]
        )
    return text


@st.composite
def archive_bytes(draw: st.DrawFn) -> bytes:
    """Mostly zips with plausible entries; sometimes their bytes damaged or random bytes."""
    if draw(st.integers(0, 9)) == 0:
        return draw(st.binary(max_size=300))
    entries: list[tuple[str, bytes]] = []
    if draw(st.integers(0, 7)):
        entries.append(("session.jsonl", draw(session_log()).encode("utf-8", "surrogatepass")))
    for _ in range(draw(st.integers(0, 2))):
        name = draw(
            st.sampled_from(
                [
                    "media/x.json",
                    "media/sha256-a.png",
                    "subagents/s-k/session.jsonl",
                    "other",
                    "session.jsonl",
                ]
            )
        )
        data = (
            draw(st.sampled_from([b"", b"{}", b'{"attachmentId": "sha256-a", "mediaType": "image/png"}']))
            if draw(st.booleans())
            else draw(session_log()).encode("utf-8", "surrogatepass")
        )
        entries.append((name, data))
    buffer = io.BytesIO()
    method = draw(
        st.sampled_from([zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA])
    )
    with zipfile.ZipFile(buffer, "w", compression=method) as zf, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, data in entries:
            zf.writestr(name, data)
    raw = bytearray(buffer.getvalue())
    for _ in range(draw(st.integers(0, 3)) if raw and draw(st.booleans()) else 0):
        raw[draw(st.integers(0, len(raw) - 1))] = draw(st.integers(0, 255))
    return bytes(raw)


FUZZ = settings(
    deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)


@settings(FUZZ, max_examples=200)
@given(data=archive_bytes())
def test_the_reader_only_refuses_in_one_line(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "fuzz.zip"
    path.write_bytes(data)
    try:
        read_archive(path)
    except ArchiveError as exc:
        assert "\n" not in str(exc)


@settings(FUZZ, max_examples=60)
@given(data=archive_bytes())
def test_the_whole_import_ends_in_one_line_or_imports(data: bytes) -> None:
    with tempfile.TemporaryDirectory(prefix="hd-import-fuzz-") as scratch:
        root = Path(scratch)
        (root / "work").mkdir()
        (root / "fuzz.zip").write_bytes(data)
        ran = run_main(
            "import", str(root / "fuzz.zip"), "--cwd", str(root / "work"), "--data-dir", str(root / "data")
        )
        assert "Traceback" not in ran.stderr, ran.stderr
        if ran.returncode != 0:
            one_line_refusal(ran)
