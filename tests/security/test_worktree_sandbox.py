"""A worktree session's sandbox (issue 41, items 1 and 6; docs/decisions.md, "Worktree
sessions"): real bubblewrap, a real host over HTTP, the scripted provider asking for the
commands. The host makes both worktrees with its git inside the sandbox (one under the masked
data folder, one in a folder the workspace names); the agent of one commits, branches and reads
its log there without an approval, and cannot write to the checkout, to the other worktree, to
what git reads as configuration or code in the shared git directory, or to its worktree's own
`.git` pointer file."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from contract.methods import (
    SESSION_CREATE,
    SESSION_LIST,
    WORKSPACE_CREATE,
    WORKSPACE_SET_TRUST,
    WORKTREE_CONFIGURE,
    WORKTREE_OPTIONS,
)
from tests.api.conftest import Host, open_test_host
from tests.api.support import cwd_of, event, events_of, ok, prompt
from tests.security.sandboxing import needs_sandbox, sandbox_on
from tests.support.git_repos import branches, git, make_repo, place
from tests.support.scripted_llm import Reply, ScriptedLlmServer

pytestmark = [needs_sandbox, pytest.mark.usefixtures("sandbox_on")]
__all__ = ["place", "sandbox_on"]


@pytest.fixture
async def host(place: Path, llm: ScriptedLlmServer, sandbox_on: None) -> AsyncIterator[Host]:
    h = await open_test_host("http", place / "host", llm.base_url)
    try:
        yield h
    finally:
        await h.close()


def bash(call_id: str, command: str) -> Reply:
    return Reply(tool_calls=[(call_id, "bash", json.dumps({"command": command}))])


async def turn(
    host: Host, sid: str, llm: ScriptedLlmServer, *replies: Reply
) -> tuple[dict[str, str], list[str]]:
    """One turn of `replies`: each bash call's output by call id, and the calls that asked, in
    order. Every approval is refused: the only ones asked are Auto's offer to run a command that
    failed writing outside the folder again without the sandbox (docs/decisions.md)."""
    client = host.client()
    mux = await host.mux(client)
    llm.enqueue(*replies, Reply(text="done"))
    start = len(mux.items)
    await prompt(client, sid, "work")
    asked: list[str] = []
    mux.cursor = max(mux.cursor, start)
    while True:
        rpc_id, frame = await mux.next(lambda _frame: True, within=120)
        if getattr(frame, "type", None) == "approval/requested":
            assert frame.arguments.get("outside_sandbox") is True, frame
            value = {"sessionId": frame.session_id, "approvalId": frame.approval_id, "outcome": "rejected"}
            await client.respond(rpc_id, {"ok": True, "value": value})
            asked.append(frame.call_id)
        elif event("turn/end", sid)(frame):
            break
    events = events_of(mux.since(start), sid)
    return {
        e.data["message"]["source"]["callId"]: str(e.data["message"]["content"][0]["content"])
        for e in events
        if e.type == "tool/result"
    }, asked


def plant(config: Path, lines: str) -> None:
    """Append to a repository's configuration (a filter: it runs on every checked-out file)."""
    with open(config, "a") as f:
        f.write(lines)


def snapshot(*folders: Path) -> dict[str, bytes]:
    """Every file below `folders` (a checkout with its .git, a worktree), by path."""
    found = {}
    for folder in folders:
        for path in sorted(folder.rglob("*")):
            if path.is_file() and not path.is_symlink():
                found[str(path)] = path.read_bytes()
    return found


async def test_a_worktree_sessions_agent_commits_there_and_reaches_nothing_else(
    host: Host, llm: ScriptedLlmServer, place: Path
) -> None:
    repo = make_repo(place / "repo")
    client = host.client()
    wid = (await ok(client, WORKSPACE_CREATE, {"path": str(repo)})).workspace.workspace_id
    mine = (await ok(client, SESSION_CREATE, {"workspaceId": wid, "worktree": {"branch": "mine"}})).session_id
    await ok(client, WORKTREE_CONFIGURE, {"workspaceId": wid, "location": str(place / "beside")})
    other = (
        await ok(client, SESSION_CREATE, {"workspaceId": wid, "worktree": {"branch": "other"}})
    ).session_id
    listed = {s.session_id: s for s in (await ok(client, SESSION_LIST, {})).items}
    tree, beside = cwd_of(listed[mine]), cwd_of(listed[other])
    assert tree.is_relative_to(host.data_dir) and beside.parent == place / "beside"
    gitdir = Path(git(tree, "rev-parse", "--absolute-git-dir"))
    other_gitdir = Path(git(beside, "rev-parse", "--absolute-git-dir"))
    (repo / ".git" / "hooks").mkdir(exist_ok=True)
    (repo / ".git" / "info").mkdir(exist_ok=True)
    before = snapshot(repo, beside, other_gitdir)
    pointers = {p: p.read_bytes() for p in (gitdir / "commondir", gitdir / "gitdir", tree / ".git")}

    out, asked = await turn(
        host,
        mine,
        llm,
        bash(
            "c1",
            "echo from the agent > made.txt && git add made.txt && git commit -qm 'agent work'"
            " && git branch mine-too && git log --oneline -1 && echo GIT-OK",
        ),
        bash("x1", f"echo x > {repo}/a.txt; echo x > {repo}/new.txt; echo x > {repo}/.git/index"),
        bash("x2", f"echo x > {beside}/a.txt; echo x > {other_gitdir}/HEAD"),
        bash(
            "x3",
            f"echo evil >> {repo}/.git/config; echo evil > {repo}/.git/hooks/pre-commit;"
            f" echo '* filter=x' > {repo}/.git/info/attributes",
        ),
        bash(
            "x4",
            f"echo {repo}/.git > {gitdir}/commondir; echo /elsewhere > {gitdir}/gitdir;"
            f" echo '[filter \"x\"]' > {gitdir}/config.worktree; echo 'gitdir: /elsewhere' > .git",
        ),
        bash("x5", "git config core.hooksPath /var/tmp; git config --worktree core.fsmonitor /bin/evil"),
    )
    assert "GIT-OK" in out["c1"] and "agent work" in out["c1"], out["c1"]
    # the work in its own worktree asks nothing; each write outside it failed, and Auto's offer to
    # run it again without the sandbox was refused
    assert asked == ["x1", "x2", "x3", "x4", "x5"], asked
    assert git(repo, "log", "-1", "--format=%s", "mine") == "agent work"
    assert {"mine", "mine-too", "other"} <= set(branches(repo))
    for name, writes in (("x1", 3), ("x2", 2), ("x3", 3), ("x4", 4)):
        assert out[name].count("Read-only file system") == writes, (name, out[name])
    assert "could not lock config file" in out["x5"] or "Read-only" in out["x5"], out["x5"]
    after = snapshot(repo, beside, other_gitdir)
    outside_git = {p for p in before | after if "/.git/" not in p or p.startswith(str(other_gitdir))}
    assert {p: after.get(p) for p in outside_git} == {p: before.get(p) for p in outside_git}
    for kept in ("config", "info/attributes", "hooks/pre-commit", "index"):
        path = str(repo / ".git" / kept)
        assert after.get(path) == before.get(path), kept
    assert {p: p.read_bytes() for p in pointers} == pointers
    assert (gitdir / "config.worktree").read_bytes() == b""
    assert git(beside, "status", "--porcelain") == "" and git(repo, "status", "--porcelain") == ""


async def test_the_hosts_worktree_git_runs_in_the_sandbox_before_trust_only_when_nothing_runs(
    host: Host, place: Path
) -> None:
    repo = make_repo(place / "repo")
    plant(repo / ".git" / "config", f'[filter "x"]\n\tsmudge = "touch .smudged; touch {place}/ran; cat"\n')
    client = host.client()
    wid = (await ok(client, WORKSPACE_CREATE, {"path": str(repo)})).workspace.workspace_id
    response = await client.call(SESSION_CREATE, {"workspaceId": wid, "worktree": {}})
    assert not response.result.ok and response.result.error.code == "worktree-untrusted"
    assert "filter.x.smudge" in response.result.error.message and "trust" in response.result.error.message
    options = await ok(client, WORKTREE_OPTIONS, {"workspaceId": wid})
    assert options.withheld == "untrusted-config" and options.branches == []
    assert not (place / "ran").exists() and git(repo, "worktree", "list").count("\n") == 0
    await ok(client, WORKSPACE_SET_TRUST, {"workspaceId": wid, "trusted": True})
    (repo / ".gitattributes").write_text("*.txt filter=x\n")
    git(repo, "add", ".gitattributes")
    git(repo, "commit", "-qm", "attributes")
    made = await ok(client, SESSION_CREATE, {"workspaceId": wid, "worktree": {"branch": "trusted"}})
    tree = cwd_of(
        next(s for s in (await ok(client, SESSION_LIST, {})).items if s.session_id == made.session_id)
    )
    assert (tree / ".smudged").exists(), "trusted: the filter ran, in the new worktree"
    assert not (place / "ran").exists(), "inside the sandbox: the rest of the machine was read-only to it"


async def test_two_worktree_sessions_edit_the_same_file_at_once_on_two_branches(
    host: Host, llm: ScriptedLlmServer, place: Path
) -> None:
    repo = make_repo(place / "repo")
    main = git(repo, "rev-parse", "main")
    client = host.client()
    mux = await host.mux(client)
    wid = (await ok(client, WORKSPACE_CREATE, {"path": str(repo)})).workspace.workspace_id
    sids = {}
    for name in ("a", "b"):
        spec = {"branch": f"task-{name}"}
        sids[name] = (await ok(client, SESSION_CREATE, {"workspaceId": wid, "worktree": spec})).session_id
        change = json.dumps({"path": "a.txt", "old_string": "two", "new_string": f"two by {name}"})
        commit = json.dumps({"command": f"git commit -qam 'task {name}' && echo COMMITTED"})
        llm.enqueue(
            Reply(
                when=f"TASK-{name}",
                text="Editing a.txt " * 20,
                delay=0.02,
                tool_calls=[(f"e{name}", "edit_file", change)],
            ),
            Reply(when=f"TASK-{name}", tool_calls=[(f"c{name}", "bash", commit)]),
            Reply(when=f"TASK-{name}", text=f"task {name} done"),
        )
    start = len(mux.items)
    for name, sid in sids.items():
        await prompt(client, sid, f"TASK-{name}: change line two")
    for sid in sids.values():  # in whichever order they end
        await mux.seen(event("turn/end", sid), within=120)
    seen = [
        (f.event.type, f.session_id)
        for f in mux.since(start)
        if getattr(f, "type", None) == "session/event" and f.event.type in ("turn/start", "turn/end")
    ]
    assert seen.index(("turn/start", sids["b"])) < seen.index(("turn/end", sids["a"])), (
        "the two turns overlapped"
    )
    for name in ("a", "b"):
        assert git(repo, "log", "-1", "--format=%s", f"task-{name}") == f"task {name}"
        assert git(repo, "show", f"task-{name}:a.txt") == f"one\ntwo by {name}\nthree"
    assert git(repo, "rev-parse", "main") == main and git(repo, "status", "--porcelain") == ""
    assert (repo / "a.txt").read_text() == "one\ntwo\nthree\n", "the checkout is untouched"


async def test_the_setup_command_runs_in_the_sandbox_before_the_first_turn(
    host: Host, llm: ScriptedLlmServer, place: Path
) -> None:
    repo = make_repo(place / "repo")
    client = host.client()
    mux = await host.mux(client)
    wid = (await ok(client, WORKSPACE_CREATE, {"path": str(repo)})).workspace.workspace_id
    setup = (
        f"sleep 1; echo installed > deps.txt; echo x > {repo}/escaped.txt; git status --short > status.txt"
    )
    await ok(client, WORKTREE_CONFIGURE, {"workspaceId": wid, "setup": setup})
    sid = (
        await ok(client, SESSION_CREATE, {"workspaceId": wid, "worktree": {"branch": "set-up"}})
    ).session_id
    tree = cwd_of(next(s for s in (await ok(client, SESSION_LIST, {})).items if s.session_id == sid))
    llm.enqueue(Reply(tool_calls=[("b1", "bash", json.dumps({"command": "cat deps.txt"}))]), Reply(text="ok"))
    start = len(mux.items)
    await prompt(client, sid, "first")
    await mux.next(event("turn/end", sid), within=120)
    results = [e for e in events_of(mux.since(start), sid) if e.type == "tool/result"]
    assert "installed" in str(results[0].data["message"]["content"]), "the first turn saw the setup's work"
    assert (tree / "deps.txt").read_text() == "installed\n" and not (repo / "escaped.txt").exists()

    await ok(client, WORKTREE_CONFIGURE, {"workspaceId": wid, "setup": "echo it broke; exit 3"})
    broken = (await ok(client, SESSION_CREATE, {"workspaceId": wid, "worktree": {}})).session_id
    start = len(mux.items)
    await prompt(client, broken, "first")
    await mux.next(event("turn/end", broken), within=120)
    blocked = [e for e in events_of(mux.since(start), broken) if e.type == "prompt/blocked"]
    assert (
        blocked and "exit status 3" in blocked[0].data["reason"] and "it broke" in blocked[0].data["reason"]
    )
    llm.enqueue(Reply(text="second turn ran"))
    start = len(mux.items)
    await prompt(client, broken, "second")
    _, end = await mux.next(event("turn/end", broken), within=120)
    assert end.event.data["reason"] == {"kind": "completed"}, "the failure refused the first prompt only"
