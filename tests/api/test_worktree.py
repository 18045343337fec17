"""Sessions in git worktrees and the hand-off of their work (issue 41, items 1, 2, 5 and 6;
docs/decisions.md, "Worktree sessions"), over both carriers, with real git: a worktree session
works in its own worktree and leaves the checkout alone; apply brings its changes over (or
refuses, naming the files, and writes nothing); merge; remove (the branch kept or deleted, an
unmerged one refused); adopt moves a local session and its uncommitted changes; New session's
options; a deleted session's worktree goes; the next start prunes and forgets unused ones."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from contract.methods import (
    SESSION_CREATE,
    SESSION_DELETE,
    SESSION_HISTORY,
    SESSION_LIST,
    SESSION_RENAME,
    WORKSPACE_CREATE,
    WORKSPACE_LIST,
    WORKTREE_ADOPT,
    WORKTREE_APPLY,
    WORKTREE_CONFIGURE,
    WORKTREE_LIST,
    WORKTREE_MERGE,
    WORKTREE_OPTIONS,
    WORKTREE_REMOVE,
    WORKTREE_SPACE_USED,
)
from tests.api.conftest import Host, open_test_host
from tests.api.file_turns import answer_approvals, edit, write
from tests.api.support import err, event, ok, prompt, raw
from tests.support.git_repos import branches, commit_all, git, make_repo, place, worktree_paths
from tests.support.scripted_llm import Reply, ScriptedLlmServer

__all__ = ["place"]


def present(path: Path) -> bool:
    return path.exists()


async def workspace(host: Host, folder: Path) -> str:
    made = await ok(host.client(), WORKSPACE_CREATE, {"path": str(folder)})
    return str(made.workspace.workspace_id)


async def worktree_session(host: Host, wid: str, **spec: Any) -> str:
    value = await ok(host.client(), SESSION_CREATE, {"workspaceId": wid, "worktree": spec})
    return str(value.session_id)


async def summary(host: Host, sid: str) -> Any:
    items = (await ok(host.client(), SESSION_LIST, {})).items
    return next(s for s in items if s.session_id == sid)


async def edit_turn(host: Host, llm: ScriptedLlmServer, sid: str, *calls: tuple[str, str, str]) -> None:
    """One turn of the scripted model making `calls` in the session's folder (each approved)."""
    client = host.client()
    mux = await host.mux(client)
    llm.enqueue(Reply(tool_calls=list(calls)), Reply(text="done"))
    await prompt(client, sid, "change the files")
    await answer_approvals(client, mux, sid, len(calls))
    _, end = await mux.next(event("turn/end", sid))
    assert end.event.data["reason"] == {"kind": "completed"}


async def test_a_session_in_a_new_worktree_works_there_and_leaves_the_checkout_alone(
    host: Host, llm: ScriptedLlmServer, place: Path
) -> None:
    repo = make_repo(place / "repo")
    wid = await workspace(host, repo)
    sid = await worktree_session(host, wid, branch="fix-a")
    row = await summary(host, sid)
    tree = Path(row.cwd)
    assert row.worktree is not None and row.worktree.branch == "fix-a" and row.worktree.base == "main"
    assert row.worktree.path == str(tree) and not tree.is_relative_to(repo)
    assert tree.is_relative_to(host.data_dir), "by default worktrees live under the data folder"
    assert worktree_paths(repo) == [str(tree)] and "fix-a" in branches(repo)
    assert (tree / "a.txt").read_text() == "one\ntwo\nthree\n"
    listed = (await ok(host.client(), WORKSPACE_LIST, {})).items
    assert sid in next(w for w in listed if w.workspace_id == wid).session_ids, "listed under its checkout"

    await edit_turn(host, llm, sid, edit("e1", "a.txt", "two", "TWO"), write("w1", "new.txt", "made\n"))
    assert (tree / "a.txt").read_text() == "one\nTWO\nthree\n" and (tree / "new.txt").is_file()
    assert (repo / "a.txt").read_text() == "one\ntwo\nthree\n" and not (repo / "new.txt").exists()
    items = (await ok(host.client(), WORKTREE_LIST, {"workspaceId": wid})).items
    assert [(i.session_id, i.branch, i.dirty, i.ahead, i.behind) for i in items] == [
        (sid, "fix-a", True, 0, 0)
    ]
    history = await ok(host.client(), SESSION_HISTORY, {"sessionId": sid})
    assert history.projections is not None
    assert history.projections.values["worktree"]["branch"] == "fix-a"
    # on the wire, as the issue names it: `worktree` on every item, null for a local session
    local = (await ok(host.client(), SESSION_CREATE, {"workspaceId": wid})).session_id
    body = json.dumps({"type": "client-request", "rpcId": "r-l", "method": "session.list", "payload": {}})
    got = await raw(
        host.client(), "POST", "/api/session.list", {"content-type": "application/json"}, body.encode()
    )
    wire = {i["sessionId"]: i["worktree"] for i in json.loads(got.body)["result"]["value"]["items"]}
    assert wire[local] is None
    assert {k: wire[sid][k] for k in ("path", "branch", "base", "ahead", "behind", "dirty")} == {
        "path": str(tree),
        "branch": "fix-a",
        "base": "main",
        "ahead": 0,
        "behind": 0,
        "dirty": True,
    }


async def test_apply_brings_the_changes_over_or_refuses_naming_the_files(
    host: Host, llm: ScriptedLlmServer, place: Path
) -> None:
    repo = make_repo(place / "repo")
    wid = await workspace(host, repo)
    sid = await worktree_session(host, wid)
    tree = Path((await summary(host, sid)).cwd)
    (tree / "a.txt").write_text("one\nTWO\nthree\n")
    commit_all(tree, "committed in the worktree")
    (tree / "b.txt").unlink()  # and uncommitted: a deletion, a new file
    (tree / "c.txt").write_text("sea\n")
    (repo / "a.txt").write_text("local edit\n")  # the checkout changed a.txt too
    refused = await err(host.client(), WORKTREE_APPLY, {"sessionId": sid}, "worktree-conflict")
    assert refused.details["paths"] == ["a.txt"] and "a.txt" in refused.message
    assert (repo / "a.txt").read_text() == "local edit\n" and (repo / "b.txt").exists()
    assert not (repo / "c.txt").exists(), "nothing was written"

    git(repo, "checkout", "--", "a.txt")
    done = await ok(host.client(), WORKTREE_APPLY, {"sessionId": sid})
    assert sorted(done.files) == ["a.txt", "c.txt"] and done.removed == ["b.txt"]
    assert (repo / "a.txt").read_text() == "one\nTWO\nthree\n" and (repo / "c.txt").read_text() == "sea\n"
    assert not (repo / "b.txt").exists()
    assert git(repo, "rev-parse", "HEAD") == git(repo, "rev-parse", "main"), "uncommitted: no commit"
    assert git(repo, "status", "--porcelain") != ""
    assert not any(p.name.startswith(".") and "hd-revert" in p.name for p in repo.iterdir())
    again = await ok(host.client(), WORKTREE_APPLY, {"sessionId": sid})
    assert again.files == [] and again.removed == [], "applying twice changes nothing more"


async def test_merge_brings_the_branch_into_its_base(host: Host, place: Path) -> None:
    repo = make_repo(place / "repo")
    wid = await workspace(host, repo)
    sid = await worktree_session(host, wid, branch="feature")
    tree = Path((await summary(host, sid)).cwd)
    (tree / "a.txt").write_text("one\ntwo\nthree\nfour\n")
    (tree / "d.txt").write_text("dee\n")
    dirty = await err(host.client(), WORKTREE_MERGE, {"sessionId": sid}, "worktree-dirty")
    assert dirty.details["where"] == "worktree"
    tip = commit_all(tree, "feature work")
    ff = await ok(host.client(), WORKTREE_MERGE, {"sessionId": sid})
    assert ff.fast_forward and ff.commit == tip == git(repo, "rev-parse", "main")
    assert (repo / "d.txt").read_text() == "dee\n" and git(repo, "status", "--porcelain") == ""

    (repo / "b.txt").write_text("bee, changed on main\n")
    main = commit_all(repo, "main moves on")
    (tree / "e.txt").write_text("ee\n")
    commit_all(tree, "more feature work")
    (repo / "scratch.txt").write_text("local\n")
    local = await err(host.client(), WORKTREE_MERGE, {"sessionId": sid}, "worktree-dirty")
    assert local.details["where"] == "local" and local.details["paths"] == ["scratch.txt"]
    (repo / "scratch.txt").unlink()
    merged = await ok(host.client(), WORKTREE_MERGE, {"sessionId": sid})
    assert not merged.fast_forward and git(repo, "rev-parse", "main") == merged.commit
    parents = git(repo, "log", "-1", "--format=%P", "main").split()
    assert (
        parents[0] == main
        and (repo / "e.txt").is_file()
        and (repo / "b.txt").read_text().startswith("bee, changed")
    )
    listed = (await ok(host.client(), WORKTREE_LIST, {})).items
    assert listed[0].ahead == 0 and listed[0].behind == 2, (
        "the merge commit and main's own are not on the branch"
    )


async def test_merge_refuses_when_the_branches_change_the_same_lines(host: Host, place: Path) -> None:
    repo = make_repo(place / "repo")
    sid = await worktree_session(host, await workspace(host, repo), branch="clash")
    tree = Path((await summary(host, sid)).cwd)
    (tree / "a.txt").write_text("theirs\n")
    commit_all(tree, "theirs")
    (repo / "a.txt").write_text("ours\n")
    before = commit_all(repo, "ours")
    refused = await err(host.client(), WORKTREE_MERGE, {"sessionId": sid}, "worktree-conflict")
    assert refused.details["paths"] == ["a.txt"]
    assert git(repo, "rev-parse", "main") == before and (repo / "a.txt").read_text() == "ours\n"
    assert git(repo, "status", "--porcelain") == ""


async def test_remove_keeps_or_deletes_the_branch_and_refuses_to_lose_commits(
    host: Host, place: Path
) -> None:
    repo = make_repo(place / "repo")
    wid = await workspace(host, repo)
    kept = await worktree_session(host, wid, branch="kept")
    gone = await worktree_session(host, wid, branch="gone")
    tree = Path((await summary(host, gone)).cwd)
    (tree / "z.txt").write_text("zed\n")
    dirty = await err(
        host.client(), WORKTREE_REMOVE, {"sessionId": gone, "keepBranch": False}, "worktree-dirty"
    )
    assert dirty.details["paths"] == ["z.txt"]
    commit_all(tree, "work")
    refused = await err(
        host.client(), WORKTREE_REMOVE, {"sessionId": gone, "keepBranch": False}, "worktree-unmerged"
    )
    assert refused.details == {"sessionId": gone, "branch": "gone", "base": "main", "commits": 1}
    assert present(tree) and "gone" in branches(repo)
    done = await ok(host.client(), WORKTREE_REMOVE, {"sessionId": gone, "keepBranch": False, "force": True})
    assert done.removed_worktree and done.deleted_branch and done.cwd == str(repo)
    assert not present(tree) and "gone" not in branches(repo)
    row = await summary(host, gone)
    assert row.cwd == str(repo) and row.worktree is None, "the session works in the checkout now"

    kept_tree = Path((await summary(host, kept)).cwd)
    done = await ok(host.client(), WORKTREE_REMOVE, {"sessionId": kept, "keepBranch": True})
    assert done.removed_worktree and not done.deleted_branch
    assert not present(kept_tree) and "kept" in branches(repo) and worktree_paths(repo) == []
    listed = (await ok(host.client(), WORKSPACE_LIST, {})).items[0].session_ids
    assert {kept, gone} <= set(listed), "both stay in their workspace"


async def test_adopt_moves_a_local_session_and_its_uncommitted_changes(
    host: Host, llm: ScriptedLlmServer, place: Path
) -> None:
    repo = make_repo(place / "repo")
    wid = await workspace(host, repo)
    sid = str((await ok(host.client(), SESSION_CREATE, {"workspaceId": wid})).session_id)
    await edit_turn(host, llm, sid, edit("e1", "a.txt", "one", "ONE"), write("w1", "notes.txt", "n\n"))
    git(repo, "add", "notes.txt")  # staged, and one more untracked
    (repo / "more.txt").write_text("more\n")
    moved = await ok(host.client(), WORKTREE_ADOPT, {"sessionId": sid, "branch": "moved-here"})
    tree = Path(moved.path)
    assert moved.branch == "moved-here" and moved.base == "main" and moved.dirty
    assert (tree / "a.txt").read_text().startswith("ONE") and (tree / "notes.txt").is_file()
    assert (tree / "more.txt").is_file()
    assert git(repo, "status", "--porcelain") == "", "the changes left the checkout"
    assert (repo / "a.txt").read_text() == "one\ntwo\nthree\n"
    row = await summary(host, sid)
    assert row.cwd == str(tree) and row.worktree.branch == "moved-here"
    await edit_turn(host, llm, sid, write("w2", "after.txt", "x\n"))
    assert (tree / "after.txt").is_file() and not (repo / "after.txt").exists(), "its next turn works there"


async def test_outside_a_repository_a_worktree_is_refused(host: Host, place: Path) -> None:
    plain = place / "plain"
    plain.mkdir()
    wid = await workspace(host, plain)
    refused = await err(
        host.client(), SESSION_CREATE, {"workspaceId": wid, "worktree": {}}, "not-a-repository"
    )
    assert refused.details["path"] == str(plain)
    assert [s for s in (await ok(host.client(), SESSION_LIST, {})).items] == []
    options = await ok(host.client(), WORKTREE_OPTIONS, {"workspaceId": wid})
    assert options.repository is False
    bad = await err(
        host.client(), SESSION_CREATE, {"cwd": str(plain), "worktree": {"branch": "a..b"}}, "bad-request"
    )
    assert "branch" in str(bad.details)


async def test_new_session_options_settings_and_starting_in_an_existing_worktree(
    host: Host, place: Path
) -> None:
    repo = make_repo(place / "repo")
    wid = await workspace(host, repo)
    git(repo, "branch", "side")
    mine = place / "mine"
    git(repo, "worktree", "add", "-q", str(mine), "side")
    (repo / "a.txt").write_text("edited\n")
    (repo / ".gitignore").write_text(".env\n")
    commit_all(repo, "ignore .env")
    (repo / ".env").write_text("SECRET=local\n")
    (repo / "b.txt").write_text("changed\n")
    options = await ok(host.client(), WORKTREE_OPTIONS, {"workspaceId": wid})
    assert (
        options.repository and options.current_branch == "main" and set(options.branches) == {"main", "side"}
    )
    assert [(w.path, w.branch, w.owned) for w in options.worktrees] == [(str(mine), "side", False)]
    assert options.local_changes == 1 and options.settings.enabled is False

    where = place / "elsewhere"
    configured = await ok(
        host.client(),
        WORKTREE_CONFIGURE,
        {"workspaceId": wid, "enabled": True, "location": str(where), "copyFiles": [".env"]},
    )
    assert configured.enabled and configured.location == str(where) and configured.copy_files == [".env"]
    inside = await err(
        host.client(),
        WORKTREE_CONFIGURE,
        {"workspaceId": wid, "location": str(repo / "wt")},
        "worktree-failed",
    )
    assert "inside the checkout" in inside.message
    sid = await worktree_session(host, wid, branch="with-env", carryChanges=True)
    tree = Path((await summary(host, sid)).cwd)
    assert tree.parent == where and (tree / ".env").read_text() == "SECRET=local\n"
    assert (tree / "b.txt").read_text() == "changed\n", "the uncommitted change came along"
    assert (repo / "b.txt").read_text() == "changed\n", "and stayed"

    theirs = await worktree_session(host, wid, path=str(mine))
    row = await summary(host, theirs)
    assert row.cwd == str(mine) and row.worktree.owned is False and row.worktree.branch == "side"
    await ok(host.client(), SESSION_DELETE, {"sessionId": theirs})
    assert present(mine) and sorted(worktree_paths(repo)) == sorted([str(mine), str(tree)]), (
        "a person's own worktree stays"
    )


async def test_a_deleted_sessions_worktree_goes_and_its_branch_stays(host: Host, place: Path) -> None:
    repo = make_repo(place / "repo")
    sid = await worktree_session(host, await workspace(host, repo), branch="short-lived")
    tree = Path((await summary(host, sid)).cwd)
    (tree / "wip.txt").write_text("work in progress\n")
    space = await ok(host.client(), WORKTREE_SPACE_USED, {})
    assert [i.path for i in space.items] == [str(tree)] and space.total_bytes > 0
    await ok(host.client(), SESSION_DELETE, {"sessionId": sid})
    assert not present(tree) and worktree_paths(repo) == [] and "short-lived" in branches(repo)
    assert (await ok(host.client(), WORKTREE_SPACE_USED, {})).items == []


@pytest.mark.parametrize("carrier", ["inprocess"])
async def test_the_next_start_prunes_and_removes_worktrees_nobody_works_in(
    carrier: str, tmp_path: Path, llm: ScriptedLlmServer, place: Path
) -> None:
    repo = make_repo(place / "repo")
    host = await open_test_host(carrier, tmp_path, llm.base_url)
    try:
        wid = await workspace(host, repo)
        used = await worktree_session(host, wid, branch="used")
        client = host.client()
        mux = await host.mux(client)
        await prompt(client, used, "hello")  # written: it survives a restart
        await mux.next(event("turn/end", used))
        unused = await worktree_session(host, wid, branch="unused")  # never written (a blank session)
        unused_tree = Path((await summary(host, unused)).cwd)
        used_tree = Path((await summary(host, used)).cwd)
        stale = place / "stale"
        git(repo, "worktree", "add", "-q", "-b", "stale", str(stale))
    finally:
        await host.close()
    shutil.rmtree(stale)  # a worktree folder deleted by hand: prune forgets it
    again = await open_test_host(carrier, tmp_path, llm.base_url, data_dir=host.data_dir)
    try:
        assert worktree_paths(repo) == [str(used_tree)]
        assert not present(unused_tree) and "unused" not in branches(repo), "an untouched branch goes with it"
        row = await summary(again, used)
        assert row.worktree.branch == "used"
    finally:
        await again.close()


def plant_step(data_dir: Path, op: str, state: str, **data: Any) -> Path:
    """A hand-off journal as a kill -9 in the middle of that operation leaves it."""
    folder = data_dir / "worktree-journal" / "steps"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"planted-{op}.json"
    path.write_text(json.dumps({"id": f"planted-{op}", "op": op, "state": state, "data": data}))
    return path


@pytest.mark.parametrize("carrier", ["inprocess"])
async def test_a_merge_or_a_remove_a_crash_cut_short_is_settled_at_the_next_start(
    carrier: str, tmp_path: Path, llm: ScriptedLlmServer, place: Path
) -> None:
    repo = make_repo(place / "repo")
    host = await open_test_host(carrier, tmp_path, llm.base_url)
    try:
        wid = await workspace(host, repo)
        half, none, gone = [await worktree_session(host, wid, branch=b) for b in ("half", "none", "gone")]
        for sid in (half, none, gone):
            await ok(host.client(), SESSION_RENAME, {"sessionId": sid, "title": "written"})
        trees = {sid: Path((await summary(host, sid)).cwd) for sid in (half, none, gone)}
        for n, sid in enumerate((half, none)):
            (trees[sid] / f"new{n}.txt").write_text(f"new {n}\n")
            (trees[sid] / "a.txt").write_text(f"changed by {n}\n")
            commit_all(trees[sid], f"work {n}")
        gone_row = (await ok(host.client(), WORKTREE_LIST, {})).items
    finally:
        await host.close()
    orig = git(repo, "rev-parse", "main")
    tip = git(repo, "rev-parse", "half")
    (repo / "new0.txt").write_text("new 0\n")  # the switch had written one file of two
    plant_step(host.data_dir, "merge", "switching", local=str(repo), base="main", orig=orig, commit=tip)
    row = next(i for i in gone_row if i.session_id == gone)
    record = {
        "path": row.path, "local": str(repo), "common": str(repo / ".git"),
        "gitdir": git(Path(row.path), "rev-parse", "--absolute-git-dir"), "branch": "gone", "base": "main",
        "start": orig, "owned": True, "created_branch": True, "session_id": gone, "created_at": 1,
    }  # fmt: skip
    plant_step(
        host.data_dir, "remove", "removing", row=record, delete_branch=True, sessions=[[gone, str(repo)]]
    )
    again = await open_test_host(carrier, tmp_path, llm.base_url, data_dir=host.data_dir)
    try:
        assert git(repo, "rev-parse", "main") == tip, "the merge a crash interrupted was completed"
        assert (repo / "a.txt").read_text() == "changed by 0\n" and git(repo, "status", "--porcelain") == ""
        assert not present(Path(row.path)) and "gone" not in branches(repo), "the remove was finished"
        assert (await summary(again, gone)).cwd == str(repo)
        assert not list((host.data_dir / "worktree-journal" / "steps").iterdir())
    finally:
        await again.close()
    other = git(repo, "rev-parse", "none")  # a switch to it that was journaled and never began
    plant_step(host.data_dir, "merge", "switching", local=str(repo), base="main", orig=tip, commit=other)
    third = await open_test_host(carrier, tmp_path, llm.base_url, data_dir=host.data_dir)
    try:
        assert git(repo, "rev-parse", "main") == tip, "a switch that never began is dropped, nothing changed"
        assert git(repo, "status", "--porcelain") == "" and (repo / "a.txt").read_text() == "changed by 0\n"
        assert not list((host.data_dir / "worktree-journal" / "steps").iterdir())
    finally:
        await third.close()


async def test_a_create_that_fails_after_the_worktree_leaves_no_worktree(host: Host, place: Path) -> None:
    repo = make_repo(place / "repo")
    wid = await workspace(host, repo)
    payload = {"workspaceId": wid, "worktree": {"branch": "doomed"}, "agentPreset": "no-such-preset"}
    await err(host.client(), SESSION_CREATE, payload, "agent-preset-not-found")
    assert worktree_paths(repo) == [] and "doomed" not in branches(repo)
    assert (await ok(host.client(), WORKTREE_SPACE_USED, {})).items == []
