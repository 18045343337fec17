"""Opt-in Claude Code and Codex hook files (issue 29, item 4; docs/decisions.md, "Hook
approval"): off by default, turned on in settings `hooks`; a project's files still need
trust and the approval of their exact content. Real processes writing marker files."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from contract.methods import (
    HOOKS_APPROVE,
    MCP_LIST,
    SESSION_CREATE,
    SETTINGS_UPDATE,
    WORKSPACE_CREATE,
    WORKSPACE_SET_TRUST,
)
from tests.api.conftest import Host
from tests.api.support import event, ok, prompt
from tests.support.scripted_llm import Reply, ScriptedLlmServer

WAIT = 60.0
DUMP = (
    f'{sys.executable} -c "import os,sys;d=sys.stdin.buffer.read();'
    "open(sys.argv[1],'wb').write(d);"
    "open(sys.argv[1]+'.env','w').write(os.environ.get('CLAUDE_PROJECT_DIR',''))\" "
)


def write(path: Path, doc: dict[str, object]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc), encoding="utf-8")


def read_env(out: Path) -> str:
    """What the hook saw as CLAUDE_PROJECT_DIR (it writes it beside its stdin dump)."""
    return out.with_name(out.name + ".env").read_text(encoding="utf-8")


def prompt_hook(command: str) -> dict[str, object]:
    return {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": command}]}]}


async def test_claude_and_codex_project_hooks_are_opt_in_trusted_and_approved(
    host: Host, llm: ScriptedLlmServer, tmp_path: Path, carrier: str
) -> None:
    if carrier != "inprocess":
        pytest.skip("one carrier is enough")
    repo = tmp_path / "cloned"
    claude_out, codex_out = repo / "claude.out", repo / "codex.out"
    write(repo / ".claude" / "settings.json", {"model": "x", "hooks": prompt_hook(DUMP + str(claude_out))})
    write(repo / ".codex" / "hooks.json", {"hooks": prompt_hook(DUMP + str(codex_out))})
    client = host.client()
    mux = await host.mux(client)
    wid = (await ok(client, WORKSPACE_CREATE, {"path": str(repo)})).workspace.workspace_id
    await ok(client, WORKSPACE_SET_TRUST, {"workspaceId": wid, "trusted": True})
    sid = (await ok(client, SESSION_CREATE, {"workspaceId": wid})).session_id

    async def turn(text: str) -> None:
        llm.enqueue(Reply(text="ok"))
        await prompt(client, sid, text)
        await mux.next(event("turn/end", sid), within=WAIT)

    await turn("off by default")
    assert not claude_out.exists() and not codex_out.exists()
    assert (await ok(client, MCP_LIST, {"sessionId": sid})).hook_files == []

    await ok(client, SETTINGS_UPDATE, {"ns": "hooks", "patch": {"claudeCode": True, "codex": True}})
    files = {Path(f.path).name: f for f in (await ok(client, MCP_LIST, {"sessionId": sid})).hook_files}
    assert set(files) == {"settings.json", "hooks.json"}
    assert not any(f.approved for f in files.values())
    await turn("on, not approved")
    assert not claude_out.exists() and not codex_out.exists()

    for f in files.values():
        await ok(client, HOOKS_APPROVE, {"workspaceId": wid, "digest": f.digest})
    await turn("approved")
    claude = claude_out.read_bytes()
    codex = codex_out.read_bytes()
    assert claude.endswith(b"\n") and not codex.endswith(b"\n")
    assert json.loads(claude)["transcript_path"] == ""
    c = json.loads(codex)
    assert c["hook_event_name"] == "UserPromptSubmit" and "turn_id" in c and c["transcript_path"] is None
    assert read_env(claude_out) == str(repo)

    await ok(client, SETTINGS_UPDATE, {"ns": "hooks", "patch": {"codex": False}})
    codex_out.unlink()
    await turn("codex off again")
    assert not codex_out.exists()
    assert claude_out.exists()
