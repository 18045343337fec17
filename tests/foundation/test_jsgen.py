"""`webui/js/contract.gen.js`: generated from the contract, current, and read by the real JS client.

The last tests hand frames and responses exactly as the host encodes them to the client's
validators (webui/js/client/frames.js under Node), so a schema the generator gets wrong shows up
as a real frame the client would drop.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import types
import typing
from pathlib import Path
from typing import Any

import pytest

from contract import jsgen
from contract.approvals import ApprovalRequested, ApprovalResolved
from contract.content import AttachmentRef, ImageBlock, Message, MessageSource, TextBlock
from contract.errors import ERROR_DETAILS, ERROR_MODELS, rpc_error
from contract.events import SessionEvent
from contract.file_tree import FilesChanged
from contract.frames import (
    STREAMS,
    HostAgentError,
    HostCommandsChanged,
    HostConfigFileChanged,
    HostCredentialsChanged,
    HostModelDownload,
    HostModelsChanged,
    HostModelStatus,
    HostSessionAdded,
    HostSessionAttention,
    HostSessionPresetChanged,
    HostSessionRemoved,
    HostSessionStatus,
    HostSettingsChanged,
    QueuedInboxItem,
    SessionEventFrame,
    SessionJobs,
    SessionProjection,
    SessionQueue,
    SessionSubscribed,
    StreamError,
    StreamOpened,
)
from contract.jobs import JobView
from contract.mcp import HostMcpChanged
from contract.methods import METHODS, Method
from contract.questions import Question, QuestionOption, QuestionRequested, QuestionResolved
from contract.remotes import HostRemoteStatus, RemoteSecretRequested, RemoteSecretResolved
from contract.rpc import RpcRequest, ServerResponse, fail, ok
from contract.schema import frame_name
from contract.sessions import Attention, ListRequest, ListValue
from contract.terminals import TerminalClosed, TerminalOutput
from contract.workspaces import (
    HostArchivedSessionsChanged,
    HostWorkspaceChanged,
    HostWorkspaceRemoved,
    WorkspaceView,
)
from host.fetch.streams import to_server_request

ROOT = Path(__file__).resolve().parents[2]
FRAMES_JS = ROOT / "webui" / "js" / "client" / "frames.js"


def run_contract(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "contract", *args], cwd=cwd, capture_output=True, text=True, timeout=120
    )


def test_the_committed_module_is_current() -> None:
    """The check CI relies on: regenerate in memory, compare with the committed file."""
    assert jsgen.is_current(), "webui/js/contract.gen.js is stale: run `python -m contract`"
    run = run_contract("--check")
    assert run.returncode == 0, run.stderr


def test_check_fails_on_a_stale_or_missing_module(tmp_path: Path) -> None:
    stale = tmp_path / "contract.gen.js"
    stale.write_text(jsgen.render().replace('"session.list"', '"session.lister"'), encoding="utf-8")
    run = run_contract("--check", "--js", str(stale))
    assert run.returncode == 1
    assert "is stale" in run.stderr and "python -m contract" in run.stderr
    assert run_contract("--check", "--js", str(tmp_path / "absent.js")).returncode == 1
    assert not (tmp_path / "absent.js").exists(), "--check writes nothing"


def test_cli_writes_the_module(tmp_path: Path) -> None:
    target = tmp_path / "js" / "contract.gen.js"
    run = run_contract("--out", str(tmp_path / "schemas"), "--js", str(target), cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert target.read_text(encoding="utf-8") == jsgen.render()
    assert (tmp_path / "schemas" / "openapi.json").is_file()
    assert jsgen.render() == jsgen.render(), "the same contract gives the same bytes"


def test_a_method_added_to_the_map_appears_with_its_facts(monkeypatch: pytest.MonkeyPatch) -> None:
    extra = Method("host.pickSomething", ListRequest, ListValue, privileged=True, user_paced=True)
    monkeypatch.setitem(METHODS, extra.key, extra)
    facts = '"privileged":true,"userPaced":true,"request":"ListRequest","value":"ListValue"'
    assert f'  "host.pickSomething": {{{facts}}},' in jsgen.render().splitlines()


def test_every_method_row_names_its_request_and_value_schema() -> None:
    """The web client validates each value against `DEFS[METHODS[key].value]` in tests."""
    defs = jsgen.client_schemas()
    text = jsgen.render()
    for m in METHODS.values():
        row = f'"request":{json.dumps(m.request.__name__)},"value":{json.dumps(m.value.__name__)}}}'
        assert any(
            line.startswith(f"  {json.dumps(m.key)}: ") and line.endswith(row + ",")
            for line in text.splitlines()
        ), m.key
        assert defs[m.request.__name__]["type"] == "object"
        assert defs[m.value.__name__]["type"] == "object"


def test_every_error_code_is_listed_with_its_detail_fields() -> None:
    text = jsgen.render()
    for code, model in ERROR_DETAILS.items():
        fields = [f.alias or name for name, f in model.model_fields.items()]
        row = {"details": model.__name__, "fields": fields}
        assert f'  "{code}": {json.dumps(row, separators=(",", ":"))},' in text


def test_annotations_are_dropped_and_tags_required() -> None:
    defs = jsgen.client_schemas()

    def keywords(schema: Any) -> set[str]:
        if not isinstance(schema, dict):
            return set()
        found = set(schema)
        for key, value in schema.items():
            subs = value.values() if key == "properties" else value if isinstance(value, list) else [value]
            for sub in subs:
                found |= keywords(sub)
        return found

    used = set().union(*(keywords(d) for d in defs.values()))
    assert used.isdisjoint({"title", "description", "default", "format"}), used
    assert {"type", "required", "discriminator", "$ref"} <= used
    assert defs["ServerRequest"]["required"][0] == "type"
    assert "accepted" in defs["ReceiptAccepted"]["required"]
    # a *field* named like an annotation keyword survives (only keywords are dropped)
    probe = jsgen.compact(
        {"type": "object", "title": "X", "properties": {"title": {"type": "string", "title": "T"}}}, "p"
    )
    assert probe == {"type": "object", "properties": {"title": {"type": "string"}}}


def test_a_keyword_the_client_cannot_check_stops_generation() -> None:
    with pytest.raises(jsgen.UnsupportedSchema, match=r"'multipleOf'.*json-schema\.js"):
        jsgen.compact({"type": "object", "properties": {"n": {"type": "integer", "multipleOf": 2}}}, "Model")
    with pytest.raises(jsgen.UnsupportedSchema, match="uniqueItems"):
        jsgen.compact({"type": "array", "uniqueItems": True}, "Model")


# ---- real host encoding → the JS client's validators ----------------------------------------


def _sample(annotation: Any) -> Any:
    """A value of `annotation` for error details (str, int, lists, optionals)."""
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        return None
    if origin is list:
        return []
    if origin is typing.Literal:
        return typing.get_args(annotation)[0]
    return {str: "x", int: 7}[annotation]


def _frames() -> list[tuple[str, Any]]:
    attachment = AttachmentRef(attachment_id="a1", media_type="image/png", bytes=3, width=1, height=1)
    event = SessionEvent(type="turn/start", seq=0, time=1, data={"turn": 0, "trigger": "user"})
    unknown = SessionEvent(type="future/thing", seq=1, time=2, data={"x": [1]})
    mux = [
        HostRemoteStatus(host_id="h-1", state="connected"),
        SessionEventFrame(session_id="s", event=event),
        SessionEventFrame(session_id="s", event=unknown),
        SessionSubscribed(session_id="s", last_seq=-1),
        ApprovalRequested(session_id="s", approval_id="ap", tool_name="bash", arguments={"command": "ls"}),
        ApprovalResolved(session_id="s", approval_id="ap", outcome="rejected"),
        QuestionRequested(
            session_id="s", questions=[Question(id="q", question="?", options=[QuestionOption(label="a")])]
        ),
        QuestionResolved(session_id="s", question_rpc_id="r", outcome="answered"),
        SessionQueue(
            session_id="s",
            items=[
                QueuedInboxItem(
                    id="m",
                    placement="queued",
                    message=Message(
                        id="m",
                        role="user",
                        content=[TextBlock(text="hi"), ImageBlock(attachment=attachment)],
                        source=MessageSource(kind="user", rpc_id="r"),
                    ),
                )
            ],
        ),
        SessionJobs(
            session_id="s",
            jobs=[JobView(id="bash-1", kind="bash", label="sleep 9", status="running", started_at=1)],
        ),
        SessionJobs(session_id="s", jobs=[]),
        SessionProjection(session_id="s", key="title", value=None, seq=3),
        TerminalOutput(terminal_id="t-1", session_id="s", seq=3, data="aGkK"),
        TerminalClosed(terminal_id="t-1", session_id="s", exit_code=0),
        TerminalClosed(terminal_id="t-1", session_id="s"),
        FilesChanged(session_id="s", paths=["src/a.py", ""]),
        StreamError(error=rpc_error("internal", "boom")),
        StreamOpened(stream_id="mux-0123"),
    ]
    host = [
        HostSessionAdded(session_id="s", blank=True),
        HostSessionAdded(session_id="s", blank=False, parent_session_id="p", cwd="/w"),
        HostSessionRemoved(session_id="s"),
        HostSessionStatus(session_id="s", running=True),
        HostSessionAttention(session_id="s", attention=Attention(state="needs-you", pending=2)),
        HostSessionAttention(session_id="s", attention=Attention(state="waiting", ahead=0)),
        HostAgentError(session_id="s", message="m"),
        HostSettingsChanged(ns="llm"),
        HostCredentialsChanged(ref="deepseek"),
        HostConfigFileChanged(file="settings.json", problem="settings.json is not valid JSON."),
        HostConfigFileChanged(file="credentials.json"),
        HostModelsChanged(),
        HostModelStatus(model="smollm2-135m-instruct", state="loading"),
        HostWorkspaceChanged(
            workspace=WorkspaceView(
                workspace_id="w", path="/w", title="w", session_ids=["s"], created_at="t", updated_at="t"
            )
        ),
        HostWorkspaceRemoved(workspace_id="w"),
        HostArchivedSessionsChanged(archived_session_ids=["s"]),
        HostCommandsChanged(),
        HostSessionPresetChanged(session_id="s", agent_preset="read-only"),
        HostMcpChanged(project="/w"),
        HostModelDownload(download_id="dl-1", state="running", received_bytes=10, total_bytes=100),
        HostSessionAdded(session_id="s", blank=True, agent_preset="chat"),
        HostSessionAdded(session_id="s", blank=True, host_id="h-1"),
        HostRemoteStatus(host_id="h-1", state="reconnecting", detail="the SSH connection ended"),
        RemoteSecretRequested(host_id="h-1", prompt="Enter passphrase for key 'id_ed25519': "),
        RemoteSecretResolved(host_id="h-1", request_rpc_id="r"),
        StreamError(error=rpc_error("internal", "boom")),
    ]
    return [("events.mux", f) for f in mux] + [("events.host", f) for f in host]


def _responses() -> list[dict[str, Any]]:
    out = [ServerResponse(rpc_id="r", result=ok("r", {"items": []}).result).dump()]
    for code, model in ERROR_DETAILS.items():
        details = {name: _sample(f.annotation) for name, f in model.model_fields.items() if f.is_required()}
        error = ERROR_MODELS[code](code=code, message="m", details=model(**details))
        out.append(ServerResponse(rpc_id="r", result=fail("r", error).result).dump())
    return out


def _run_js(script: str, data: Any) -> Any:
    node = shutil.which("node")
    assert node, "node is needed for the JS client (scripts/test.sh runs it too)"
    run = subprocess.run(
        [node, "--input-type=module", "-e", script],
        input=json.dumps(data),
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


JS_CHECK = f"""
import {{ validateServerRequest, checkServerResponse }} from {json.dumps(FRAMES_JS.as_uri())};
let input = "";
for await (const chunk of process.stdin) input += chunk;
const {{ frames, responses }} = JSON.parse(input);
console.log(JSON.stringify({{
  frames: frames.map(([key, msg]) => validateServerRequest(key, msg).reason ?? null),
  responses: responses.map((r) => checkServerResponse(r)),
}}));
"""


def test_every_frame_and_error_as_the_host_encodes_it_passes_the_js_client() -> None:
    frames = _frames()
    defs = jsgen.client_schemas()
    expected = {(key, t) for key in STREAMS for t in defs[frame_name(key)]["discriminator"]["mapping"]}
    assert {(key, f.type) for key, f in frames} == expected, "add a sample for each new frame type"
    wire = [
        (key, json.loads(to_server_request(key, RpcRequest[Any](rpc_id="r", payload=f), dev_validate=True)))
        for key, f in frames
    ]
    got = _run_js(JS_CHECK, {"frames": wire, "responses": _responses()})
    assert got["frames"] == [None] * len(frames), list(
        zip([f.type for _, f in frames], got["frames"], strict=True)
    )
    assert got["responses"] == [None] * (1 + len(ERROR_DETAILS))
