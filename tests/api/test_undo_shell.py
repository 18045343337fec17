"""Undo of what shell commands changed, over both carriers (docs/architecture.md, "Snapshots"):
`sed -i`, `rm` and a formatter run through `bash` by the scripted model are listed with their
diffs on the tool result, and Revert (and a fork's restore) puts every file back; a file changed
outside the app since is refused, naming it; ignored and build-output files are never kept."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from contract.methods import (
    FILES_RESTORE_PREVIEW,
    FILES_REVERT_TURN,
    FILES_SPACE_USED,
    SESSION_CANCEL,
    SESSION_FORK,
    SETTINGS_UPDATE,
)
from tests.api.conftest import Host, open_test_host
from tests.api.file_turns import answer_approvals, bash, history, sha, shell_turn
from tests.api.support import err, event, ok, prompt, run_cli
from tests.support.scripted_llm import Reply, ScriptedLlmServer

FORMATTER = (
    "import pathlib\n"
    "for p in sorted(pathlib.Path('src').glob('*.py')):\n"
    "    p.write_text(p.read_text().replace('    ', '\\t').rstrip() + '\\n# formatted\\n')\n"
)


def seed(host: Host) -> dict[str, bytes]:
    work = host.workdir
    (work / "src").mkdir()
    (work / "src" / "a.py").write_text("def f():\n    return 1\n")
    (work / "src" / "b.py").write_text("def g():\n    return 2\n")
    (work / "notes.txt").write_text("colour\ncolour again\n")
    (work / "old.txt").write_text("keep me\n")
    (work / ".gitignore").write_text("*.log\n")
    (work / "run.log").write_text("ignored\n")
    (work / "node_modules").mkdir()
    (work / "node_modules" / "dep.js").write_text("x\n")
    return {
        str(p.relative_to(work)): p.read_bytes()
        for p in sorted(work.rglob("*"))
        if p.is_file() and "node_modules" not in p.parts and p.suffix != ".log"
    }


async def test_sed_rm_and_a_formatter_run_by_bash_are_listed_and_reverted(
    host: Host, llm: ScriptedLlmServer
) -> None:
    before = seed(host)
    work = host.workdir
    (work / "fmt.py").write_text(FORMATTER)
    before["fmt.py"] = (work / "fmt.py").read_bytes()
    client = host.client()
    mux = await host.mux(client)
    sid = await host.create()
    turn = await shell_turn(
        host,
        llm,
        client,
        mux,
        sid,
        "sed -i 's/colour/color/g' notes.txt",
        "rm old.txt && echo made > new.txt",
        f"{sys.executable} fmt.py && echo changed >> run.log && echo y >> node_modules/dep.js",
    )
    assert (work / "notes.txt").read_text() == "color\ncolor again\n" and not (work / "old.txt").exists()
    results = [e for e in await history(client, sid) if e.type == "tool/result"]
    changes = {c["path"]: c for r in results for c in r.data.get("changes") or []}
    assert sorted(changes) == ["new.txt", "notes.txt", "old.txt", "src/a.py", "src/b.py"]
    assert "-colour again\n+color\n+color again" in changes["notes.txt"]["diff"]
    assert changes["old.txt"].get("after") is None and changes["old.txt"]["before"]["sha256"] == sha(
        "keep me\n"
    )
    assert changes["new.txt"].get("before") is None and "+made" in changes["new.txt"]["diff"]
    assert "+# formatted" in changes["src/a.py"]["diff"]
    tool_messages = [m for m in llm.requests[-1]["messages"] if m["role"] == "tool"]
    assert all("+++" not in m["content"] for m in tool_messages)  # the model never sees them

    value = await ok(client, FILES_REVERT_TURN, {"sessionId": sid, "turn": turn})
    assert {f.path: f.action for f in value.files} == {
        "new.txt": "removed",
        "notes.txt": "restored",
        "old.txt": "restored",
        "src/a.py": "restored",
        "src/b.py": "restored",
    }
    for rel, data in before.items():
        assert (work / rel).read_bytes() == data, rel
    assert not (work / "new.txt").exists()
    assert (work / "run.log").read_text() == "ignored\nchanged\n"  # ignored: never kept, not put back
    assert (work / "node_modules" / "dep.js").read_text() == "x\ny\n"
    leftovers = [p.name for p in work.rglob("*") if ".hd-revert-" in p.name or p.name.endswith(".tmp")]
    assert leftovers == []
    assert not list((host.data_dir / "undo-journal").glob("*.json"))
    await err(client, FILES_REVERT_TURN, {"sessionId": sid, "turn": turn}, "revert-unavailable")


async def test_a_file_the_shell_changed_and_someone_edited_since_is_refused_by_name(
    host: Host, llm: ScriptedLlmServer
) -> None:
    seed(host)
    work = host.workdir
    client = host.client()
    mux = await host.mux(client)
    sid = await host.create()
    turn = await shell_turn(
        host, llm, client, mux, sid, "sed -i 's/colour/color/' notes.txt src/a.py; rm old.txt"
    )
    (work / "notes.txt").write_text("edited by hand\n")
    error = await err(client, FILES_REVERT_TURN, {"sessionId": sid, "turn": turn}, "revert-conflict")
    assert [(c["path"], c["reason"]) for c in error.details["conflicts"]] == [("notes.txt", "changed")]
    assert (work / "notes.txt").read_text() == "edited by hand\n" and not (work / "old.txt").exists()


async def test_a_later_shell_turn_blocks_and_then_both_revert_in_order(
    host: Host, llm: ScriptedLlmServer
) -> None:
    seed(host)
    work = host.workdir
    client = host.client()
    mux = await host.mux(client)
    sid = await host.create()
    first = await shell_turn(host, llm, client, mux, sid, "echo one >> notes.txt")
    second = await shell_turn(host, llm, client, mux, sid, "echo two >> notes.txt")
    error = await err(client, FILES_REVERT_TURN, {"sessionId": sid, "turn": first}, "revert-conflict")
    assert [(c["path"], c["reason"]) for c in error.details["conflicts"]] == [("notes.txt", "later-turn")]
    await ok(client, FILES_REVERT_TURN, {"sessionId": sid, "turn": second})
    assert (work / "notes.txt").read_text() == "colour\ncolour again\none\n"
    await ok(client, FILES_REVERT_TURN, {"sessionId": sid, "turn": first})
    assert (work / "notes.txt").read_text() == "colour\ncolour again\n"


async def test_a_fork_restores_what_later_shell_turns_changed(host: Host, llm: ScriptedLlmServer) -> None:
    seed(host)
    work = host.workdir
    client = host.client()
    mux = await host.mux(client)
    sid = await host.create()
    await shell_turn(host, llm, client, mux, sid, "echo kept > kept.txt")
    await shell_turn(host, llm, client, mux, sid, "rm notes.txt; echo later > later.txt")
    events = await history(client, sid)
    anchor = next(e.seq for e in events if e.type == "turn/end")
    preview = await ok(client, FILES_RESTORE_PREVIEW, {"sessionId": sid, "atSeq": anchor})
    assert sorted((f.path, f.action) for f in preview.files) == [
        ("later.txt", "removed"),
        ("notes.txt", "restored"),
    ]
    await ok(client, SESSION_FORK, {"sessionId": sid, "atSeq": anchor, "restoreFiles": True})
    assert (work / "notes.txt").read_text() == "colour\ncolour again\n"
    assert not (work / "later.txt").exists() and (work / "kept.txt").read_text() == "kept\n"


async def test_harnessdesk_revert_in_the_terminal_does_the_same(
    tmp_path: Path, llm_server: ScriptedLlmServer
) -> None:
    """`harnessdesk revert SESSION TURN`: the same operation without the window (one line per
    file), a refusal is one line and exit code 1 with nothing written, bad input exit code 2."""
    data = tmp_path / "data"
    host = await open_test_host("inprocess", tmp_path, llm_server.base_url, data_dir=data)
    try:
        seed(host)
        client = host.client()
        mux = await host.mux(client)
        sid = await host.create()
        first = await shell_turn(host, llm_server, client, mux, sid, "rm old.txt")
        second = await shell_turn(host, llm_server, client, mux, sid, "sed -i 's/colour/color/' notes.txt")
    finally:
        await host.close()
    work = host.workdir
    (work / "notes.txt").write_text("mine\n")
    refused = await asyncio.to_thread(run_cli, "revert", sid, str(second), "--data-dir", str(data))
    assert refused.returncode == 1 and "notes.txt" in refused.stderr and "Traceback" not in refused.stderr
    assert (work / "notes.txt").read_text() == "mine\n"
    done = await asyncio.to_thread(run_cli, "revert", sid, str(first), "--data-dir", str(data))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["restored\told.txt"]
    assert (work / "old.txt").read_text() == "keep me\n"
    again = await asyncio.to_thread(run_cli, "revert", sid, str(first), "--data-dir", str(data))
    assert again.returncode == 1 and "already reverted" in again.stderr
    for bad in (["revert", sid, "-3"], ["revert", "s-nope", "0"]):
        ran = await asyncio.to_thread(run_cli, *bad, "--data-dir", str(data))
        assert ran.returncode == 2 and len(ran.stderr.strip().splitlines()) == 1, ran.stderr


async def test_what_a_command_stopped_mid_run_had_changed_is_reverted_too(
    host: Host, llm: ScriptedLlmServer
) -> None:
    seed(host)
    work = host.workdir
    client = host.client()
    mux = await host.mux(client)
    sid = await host.create()
    llm.enqueue(Reply(tool_calls=[bash("b1", "echo stopped > notes.txt; rm old.txt; sleep 60")]))
    await prompt(client, sid, "change and hang")
    await answer_approvals(client, mux, sid, 1)
    for _ in range(600):
        if not (work / "old.txt").exists():
            break
        await asyncio.sleep(0.05)
    await ok(client, SESSION_CANCEL, {"sessionId": sid})
    _, end = await mux.next(event("turn/end", sid))
    assert end.event.data["reason"]["kind"] == "aborted"
    [result] = [e for e in await history(client, sid) if e.type == "tool/result"]
    assert sorted(c["path"] for c in result.data["changes"]) == ["notes.txt", "old.txt"]
    await ok(client, FILES_REVERT_TURN, {"sessionId": sid, "turn": int(end.event.data["turn"])})
    assert (work / "notes.txt").read_text() == "colour\ncolour again\n"
    assert (work / "old.txt").read_text() == "keep me\n"


async def test_over_the_budget_the_oldest_turns_go_and_the_newest_still_revert(
    host: Host, llm: ScriptedLlmServer
) -> None:
    work = host.workdir
    client = host.client()
    await ok(client, SETTINGS_UPDATE, {"ns": "undo", "patch": {"workspaceBudgetMb": 2}})
    mux = await host.mux(client)
    sid = await host.create()
    write = f"{sys.executable} -c \"import os; open('big.bin', 'wb').write(os.urandom(1 << 19))\""
    contents = []
    turns = []
    for _ in range(8):
        turns.append(await shell_turn(host, llm, client, mux, sid, write))
        contents.append((work / "big.bin").read_bytes())
        used = await ok(client, FILES_SPACE_USED, {})
        assert used.total_bytes <= 2 << 20 and used.folder_budget_bytes == 2 << 20
    [folder] = used.folders
    assert folder.turns < len(turns)  # the oldest were pruned
    reverted = 0
    for n in range(len(turns) - 1, 0, -1):  # newest first, until a pruned turn
        payload = {"sessionId": sid, "turn": turns[n]}
        if n < len(turns) - folder.turns:
            error = await err(client, FILES_REVERT_TURN, payload, "revert-conflict")
            assert error.details["conflicts"] == [{"path": "big.bin", "reason": "not-saved"}]
            break
        await ok(client, FILES_REVERT_TURN, payload)
        assert (work / "big.bin").read_bytes() == contents[n - 1]
        reverted += 1
    assert reverted == folder.turns >= 2
