"""The real `harnessdesk` command line: prompt, serve, bad flags (docs/architecture.md,
"Desktop, command line and data")."""

from __future__ import annotations

import http.client
import json
import sqlite3
import threading
import time
import zipfile
from pathlib import Path
from typing import Any

import pytest

from contract.methods import SESSION_HISTORY, SESSION_LIST
from tests.api.conftest import open_test_host
from tests.api.support import ok, page_events, run_cli, run_main, start_serve
from tests.support.scripted_llm import Reply, ScriptedLlmServer


def provider_flags(llm: ScriptedLlmServer, model: str = "m") -> list[str]:
    return ["--provider", "openai-compatible", "--base-url", llm.base_url, "--model", model]


def one_line_error(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr and lines[0].startswith("harnessdesk: "), stderr
    return lines[0]


def test_prompt_streams_the_answer(tmp_path: Path, llm: ScriptedLlmServer) -> None:
    llm.enqueue(Reply(text="The answer, streamed in pieces.", chunk_size=3))
    data = tmp_path / "data"
    result = run_cli("prompt", "what is it?", "--data-dir", str(data), *provider_flags(llm), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "The answer, streamed in pieces.\n"
    assert result.stderr == ""
    assert llm.requests[0]["model"] == "m"
    assert llm.requests[0]["messages"][-1] == {"role": "user", "content": "what is it?"}
    assert str(tmp_path) in llm.requests[0]["messages"][0]["content"]  # the session runs in the cwd


def test_prompt_json_prints_raw_frames_and_session_continues(tmp_path: Path, llm: ScriptedLlmServer) -> None:
    llm.enqueue(Reply(text="first reply"), Reply(text="second reply"))
    data = str(tmp_path / "data")
    first = run_cli("prompt", "hello", "--json", "--data-dir", data, *provider_flags(llm), cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    frames = [json.loads(line) for line in first.stdout.splitlines()]
    assert frames and all(f["type"] == "server-request" and f["rpcId"] for f in frames)
    assert all(f["method"] == f["payload"]["type"] for f in frames)
    events = [f["payload"]["event"] for f in frames if f["method"] == "session/event"]
    # the prompt is logged as queued input; the first turn pins the permissions, then claims it
    pins = ["permission/preset", "sandbox/mode", "approval/policy"]
    assert [e["type"] for e in events[:6]] == [
        "agent/inbox/spliced",
        *pins,
        "agent/inbox/spliced",
        "turn/start",
    ]
    assert events[-1]["type"] == "turn/end"
    assert events[-1]["data"]["reason"] == {"kind": "completed"}
    assert [e["seq"] for e in events] == list(range(len(events)))
    texts = [
        e["data"]["chunk"]["text"]
        for e in events
        if e["type"] == "assistant/chunk" and "text" in e["data"]["chunk"]
    ]
    assert "".join(texts) == "first reply"
    sid = frames[0]["payload"]["sessionId"]
    assert {f["payload"]["sessionId"] for f in frames} == {sid}

    second = run_cli(
        "prompt", "and again", "--session", sid, "--data-dir", data, *provider_flags(llm), cwd=tmp_path
    )
    assert second.returncode == 0, second.stderr
    assert second.stdout == "second reply\n"
    said = [(m["role"], m.get("content")) for m in llm.requests[1]["messages"][1:]]
    assert said == [("user", "hello"), ("assistant", "first reply"), ("user", "and again")]


async def test_prompt_continued_session_is_one_session_on_disk(
    tmp_path: Path, llm: ScriptedLlmServer
) -> None:
    data = tmp_path / "data"
    first = run_cli("prompt", "one", "--json", "--data-dir", str(data), *provider_flags(llm), cwd=tmp_path)
    sid = json.loads(first.stdout.splitlines()[0])["payload"]["sessionId"]
    second = run_cli(
        "prompt", "two", "--session", sid, "--data-dir", str(data), *provider_flags(llm), cwd=tmp_path
    )
    assert second.returncode == 0, second.stderr
    host = await open_test_host("inprocess", tmp_path, llm.base_url, data_dir=data)
    try:
        client = host.client()
        listed = (await ok(client, SESSION_LIST)).items
        assert [s.session_id for s in listed] == [sid] and listed[0].cwd == str(tmp_path)
        events = page_events(await ok(client, SESSION_HISTORY, {"sessionId": sid}))
        ends = [e for e in events if e.type == "turn/end"]
        assert [e.data["turn"] for e in ends] == [0, 1]
        assert all(e.data["reason"] == {"kind": "completed"} for e in ends)
    finally:
        await host.close()


def test_prompt_rejects_tools_without_a_terminal_and_a_failed_turn_exits_1(
    tmp_path: Path, llm: ScriptedLlmServer
) -> None:
    llm.enqueue(
        Reply(tool_calls=[("c1", "bash", '{"command": "touch should-not-exist"}')]), Reply(text="fine")
    )
    data = str(tmp_path / "data")
    result = run_cli("prompt", "make a file", "--data-dir", data, *provider_flags(llm), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "[tool bash]" in result.stderr and result.stdout.strip() == "fine"
    assert not (tmp_path / "should-not-exist").exists()  # no terminal to ask: rejected
    llm.enqueue(Reply(status=400, error_message="bad model name"))
    failed = run_cli("prompt", "boom", "--data-dir", data, *provider_flags(llm), cwd=tmp_path)
    assert failed.returncode == 1
    assert "turn ended" in failed.stderr and "Traceback" not in failed.stderr


BAD_FLAGS = [
    (["serve", "--port", "70000"], "70000"),
    (["prompt", "hi", "--bogus"], "--bogus"),
    (["prompt", "hi", "--provider", "nope"], "nope"),
    (["serve", "--port", "http"], "not a port number"),
    (["serve", "--port", "-1"], "-1"),
    (["--provider", "nope", "serve"], "nope"),
    (["export", "s-1"], "-o/--output"),
    (["frobnicate"], "frobnicate"),
    (["prompt", "hi", "--log-level", "loud"], "loud"),
]


@pytest.mark.parametrize(("args", "needle"), BAD_FLAGS[:3])
def test_bad_flags_exit_2_with_one_line(args: list[str], needle: str, tmp_path: Path) -> None:
    result = run_cli(*args, "--data-dir", str(tmp_path / "data"), timeout=30)
    assert result.returncode == 2
    assert needle in one_line_error(result.stderr)
    assert result.stdout == ""


def test_more_bad_flags_exit_2_with_one_line(tmp_path: Path) -> None:
    """The same parser in-process (the three above prove the installed binary agrees)."""
    for args, needle in BAD_FLAGS:
        result = run_main(*args, "--data-dir", str(tmp_path / "data"))
        assert result.returncode == 2, args
        assert needle in one_line_error(result.stderr), args
        assert result.stdout == ""


def test_unusable_paths_and_unknown_sessions_exit_2_with_one_line(
    tmp_path: Path, llm: ScriptedLlmServer
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    unknown = ["prompt", "hi", "--session", "s-nope", "--data-dir", str(tmp_path / "d"), *provider_flags(llm)]
    result = run_cli(*unknown, cwd=tmp_path, timeout=30)
    assert result.returncode == 2 and "s-nope" in one_line_error(result.stderr)
    cases = [
        unknown,
        ["prompt", "hi", "--data-dir", str(blocker / "data"), *provider_flags(llm)],
        ["export", "s-nope", "-o", str(tmp_path / "x.zip"), "--data-dir", str(tmp_path / "d")],
        ["import", str(tmp_path / "missing.zip"), "--cwd", str(tmp_path), "--data-dir", str(tmp_path / "d")],
        ["serve", "--token-file", str(blocker), "--data-dir", str(tmp_path / "d")],
        ["serve", "--host", "203.0.113.1", "--data-dir", str(tmp_path / "d")],
    ]
    for args in cases:
        ran = run_main(*args)
        assert ran.returncode == 2, (args, ran.stdout, ran.stderr)
        one_line_error(ran.stderr)


def test_a_second_serve_on_the_same_data_dir_exits_2(tmp_path: Path, llm: ScriptedLlmServer) -> None:
    data = tmp_path / "data"
    first = start_serve(data, *provider_flags(llm), cwd=tmp_path)
    try:
        second = run_cli("serve", "--data-dir", str(data), cwd=tmp_path, timeout=30)
        assert second.returncode == 2
        line = one_line_error(second.stderr)
        assert "another HarnessDesk is running" in line and second.stdout == ""
        busy = run_cli(
            "prompt", "hi", "--data-dir", str(data), *provider_flags(llm), cwd=tmp_path, timeout=30
        )
        assert busy.returncode == 2 and "another HarnessDesk" in one_line_error(busy.stderr)
        assert first.proc.poll() is None  # the first one is unharmed
    finally:
        assert first.stop() == 0
    again = start_serve(data, *provider_flags(llm), cwd=tmp_path)  # the lock was released
    assert again.stop() == 0


def _archive(path: Path, files: dict[str, str | bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for name, content in files.items():
            zf.writestr(name, content)
    return path


HEADER = json.dumps({"id": "s-imported", "createdAt": 1, "cwd": "/tmp", "blank": False})


def _event(seq: int, **extra: Any) -> str:
    return json.dumps(
        {"type": "turn/start", "seq": seq, "time": 5, "data": {"turn": 0, "trigger": "user"}, **extra}
    )


CORRUPT: dict[str, dict[str, str | bytes]] = {
    "empty-log": {"session.jsonl": ""},
    "header-not-json": {"session.jsonl": "{not json\n"},
    "header-without-id": {"session.jsonl": json.dumps({"cwd": "/tmp"}) + "\n"},
    "event-not-json": {"session.jsonl": HEADER + "\n" + "[1,\n"},
    "event-missing-fields": {
        "session.jsonl": HEADER + "\n" + json.dumps({"type": "turn/start", "seq": 0}) + "\n"
    },
    "seq-gap": {"session.jsonl": "\n".join([HEADER, _event(0), _event(2)]) + "\n"},
    "media-ref-invalid": {"session.jsonl": HEADER + "\n", "media/x.json": "{}"},
    "media-bytes-missing": {
        "session.jsonl": HEADER + "\n",
        "media/a.json": json.dumps(
            {"attachmentId": "a", "mediaType": "image/png", "bytes": 1, "width": 1, "height": 1}
        ),
    },
}


@pytest.mark.parametrize("case", [*CORRUPT, "not-a-zip"])
async def test_import_of_a_broken_archive_exits_2_and_imports_nothing(
    case: str, tmp_path: Path, llm: ScriptedLlmServer
) -> None:
    archive = tmp_path / f"{case}.zip"
    if case == "not-a-zip":
        archive.write_text("hello, not a zip")
    else:
        _archive(archive, CORRUPT[case])
    data = tmp_path / "data"
    if case == "not-a-zip":  # the installed binary once; the parser's code in-process for the rest
        result: Any = run_cli(
            "import", str(archive), "--cwd", str(tmp_path), "--data-dir", str(data), cwd=tmp_path, timeout=30
        )
    else:
        result = run_main("import", str(archive), "--cwd", str(tmp_path), "--data-dir", str(data))
    assert result.returncode == 2, result.stderr
    assert str(archive) in one_line_error(result.stderr)
    host = await open_test_host("inprocess", tmp_path, llm.base_url, data_dir=data)
    try:
        assert (await ok(host.client(), SESSION_LIST)).items == []  # nothing half-imported
    finally:
        await host.close()


@pytest.mark.parametrize("flags", [True, False], ids=["with-provider-flags", "on-its-defaults"])
def test_serve_stops_cleanly_on_sigterm_right_after_its_first_line(
    tmp_path: Path, llm: ScriptedLlmServer, flags: bool
) -> None:
    """A supervisor may stop the server as soon as it announced itself: that must be graceful.
    On its defaults the line comes before the host is built, so the stop lands during the build."""
    for attempt in range(3):
        served = start_serve(tmp_path / "data", *(provider_flags(llm) if flags else []), cwd=tmp_path)
        assert served.stop() == 0, (attempt, served.later_output)


def test_serve_announces_itself_before_its_host_is_built_and_answers_once_it_is(tmp_path: Path) -> None:
    """The line comes once the port is bound (docs/decisions/cold-start.md): a browser opened at
    once waits in the socket's backlog, not in an error, and is answered when the host is up.
    The host's build is held here by a lock on its database (its busy timeout is 5 s)."""
    data = tmp_path / "data"
    data.mkdir()
    db = sqlite3.connect(data / "harnessdesk.sqlite3", isolation_level=None)
    db.execute("CREATE TABLE held (x)")  # an empty file is not locked by SQLite
    db.execute("BEGIN EXCLUSIVE")
    db.execute("INSERT INTO held VALUES (1)")
    served = start_serve(data, cwd=tmp_path)  # returns at the line: the old order never got here
    answers: list[tuple[float, int]] = []

    def browse() -> None:
        conn = http.client.HTTPConnection("127.0.0.1", served.port, timeout=30)
        conn.request("GET", f"/?token={served.token}")
        status = conn.getresponse().status
        answers.append((time.monotonic(), status))

    browser = threading.Thread(target=browse)
    try:
        browser.start()
        time.sleep(0.5)
        assert answers == [], "answered before the host was built"
        released = time.monotonic()
        db.execute("COMMIT")
        db.close()
        browser.join(30)
        assert len(answers) == 1 and answers[0][0] >= released
        assert answers[0][1] in (200, 303), answers
    finally:
        assert served.stop() == 0, served.later_output
