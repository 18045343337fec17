"""`git.status` / `git.stage` / `git.unstage` / `git.discard` / `git.undoDiscard` on real git
repositories under /var/tmp (docs/decisions/review-pane.md): every hunk the smallest run of
changed lines, staging and unstaging one hunk read back with `git diff --cached`, a stale hunk
refused with nothing written, a discard put back by its undo, a discard a crash interrupted
finished or rolled back at the next start, the untrusted repository refused before git runs, and
review comments reaching the model as text naming the file and the lines."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from contract.methods import (
    GIT_DISCARD,
    GIT_STAGE,
    GIT_STATUS,
    GIT_UNDO_DISCARD,
    GIT_UNSTAGE,
    SESSION_CREATE,
    SESSION_HISTORY,
    SESSION_LIST,
    SESSION_PROMPT,
    WORKSPACE_CREATE,
)
from host.engine.files import undo_journal
from tests.api.conftest import Host, open_test_host
from tests.api.file_turns import open_session, turn_writing, write
from tests.api.support import cwd_of, err, event, ok, page_events
from tests.support.git_repos import git
from tests.support.scripted_llm import Reply, ScriptedLlmServer

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

LINES = "".join(f"line {i}\n" for i in range(1, 21))


@pytest.fixture
def place() -> Iterator[Path]:
    """A folder under /var/tmp (the sandbox hides /tmp), removed afterwards."""
    folder = Path(tempfile.mkdtemp(prefix="hd-review-", dir="/var/tmp"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def make_repo(folder: Path, branch: str = "main") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    git(folder, "init", "-q", "-b", branch)
    git(folder, "config", "user.email", "t@example.invalid")
    git(folder, "config", "user.name", "Test")
    (folder / "a.txt").write_text(LINES)
    (folder / "b.txt").write_text("bee\n")
    git(folder, "add", "a.txt", "b.txt")
    git(folder, "commit", "-q", "-m", "start")
    return folder


def file_of(value: Any, path: str) -> Any:
    [found] = [f for f in value.files if f.path == path]
    return found


async def status(client: Any, sid: str, scope: str = "uncommitted") -> Any:
    return await ok(client, GIT_STATUS, {"sessionId": sid, "scope": scope})


async def test_nearby_edits_are_separate_hunks_staged_and_unstaged_one_at_a_time(
    host: Host, place: Path
) -> None:
    repo = make_repo(place / "repo")
    (repo / "a.txt").write_text(LINES.replace("line 3\n", "line three\n").replace("line 5\n", "line five\n"))
    # git's own diff joins them: one unchanged line between two edits is one hunk with context
    assert git(repo, "diff").count("\n@@ ") == 1
    client = host.client()
    sid = await host.create(repo)
    a = file_of(await status(client, sid), "a.txt")
    assert (a.status, a.mine, a.staged) == ("modified", True, [])
    assert [h.header for h in a.unstaged] == ["@@ -3 +3 @@", "@@ -5 +5 @@"]
    assert a.unstaged[0].diff.split("\n")[1:] == ["-line 3", "+line three"]
    assert [(h.added, h.removed) for h in a.unstaged] == [(1, 1), (1, 1)]

    done = await ok(client, GIT_STAGE, {"sessionId": sid, "hunkIds": [a.unstaged[1].id]})
    assert done.paths == ["a.txt"]
    cached = git(repo, "diff", "--cached", "-U0")
    assert "+line five" in cached and "line three" not in cached
    assert "+line three" in git(repo, "diff", "-U0") and "line five" not in git(repo, "diff", "-U0")
    assert (repo / "a.txt").read_text().count("line three") == 1  # the work tree is untouched

    a = file_of(await status(client, sid), "a.txt")
    assert [h.header for h in a.staged] == ["@@ -5 +5 @@"]
    assert [h.header for h in a.unstaged] == ["@@ -3 +3 @@"]
    await ok(client, GIT_UNSTAGE, {"sessionId": sid, "hunkIds": [a.staged[0].id]})
    assert git(repo, "diff", "--cached") == ""
    a = file_of(await status(client, sid), "a.txt")
    assert (len(a.staged), len(a.unstaged)) == (0, 2)
    # both at once, then the whole file back by path
    await ok(client, GIT_STAGE, {"sessionId": sid, "hunkIds": [h.id for h in a.unstaged]})
    assert git(repo, "diff") == "" and git(repo, "diff", "--cached", "-U0").count("\n@@ ") == 2
    await ok(client, GIT_UNSTAGE, {"sessionId": sid, "paths": ["a.txt"]})
    assert git(repo, "diff", "--cached") == ""


async def test_a_stale_hunk_is_refused_and_nothing_is_written(host: Host, place: Path) -> None:
    repo = make_repo(place / "repo")
    (repo / "a.txt").write_text(LINES.replace("line 3\n", "line three\n"))
    client = host.client()
    sid = await host.create(repo)
    old = file_of(await status(client, sid), "a.txt").unstaged[0]
    changed = LINES.replace("line 3\n", "line THREE\n")
    (repo / "a.txt").write_text(changed)  # the pane still shows the first edit
    index = (repo / ".git" / "index").read_bytes()
    for method in (GIT_STAGE, GIT_DISCARD):
        wire = await err(client, method, {"sessionId": sid, "hunkIds": [old.id]}, "stale-diff")
        assert wire.details["sessionId"] == sid
    await err(client, GIT_UNSTAGE, {"sessionId": sid, "hunkIds": [old.id]}, "stale-diff")
    await err(client, GIT_STAGE, {"sessionId": sid, "paths": ["gone.txt"]}, "stale-diff")
    assert (repo / ".git" / "index").read_bytes() == index
    assert (repo / "a.txt").read_text() == changed
    assert git(repo, "diff", "--cached") == ""
    await err(client, GIT_STAGE, {"sessionId": sid}, "bad-request")
    await err(client, GIT_STAGE, {"sessionId": sid, "hunkIds": ["xyz"]}, "bad-request")
    await err(client, GIT_STATUS, {"sessionId": sid, "scope": "yesterday"}, "bad-request")


async def test_discard_a_hunk_and_an_untracked_file_then_undo_both(host: Host, place: Path) -> None:
    repo = make_repo(place / "repo")
    edited = LINES.replace("line 3\n", "line three\n").replace("line 9\n", "line nine\n")
    (repo / "a.txt").write_text(edited)
    (repo / "new.txt").write_text("fresh\nfile")  # no newline at the end
    client = host.client()
    sid = await host.create(repo)
    value = await status(client, sid)
    a, new = file_of(value, "a.txt"), file_of(value, "new.txt")
    assert new.status == "untracked" and new.unstaged[0].diff.endswith("\\ No newline at end of file")

    gone = await ok(client, GIT_DISCARD, {"sessionId": sid, "hunkIds": [a.unstaged[0].id]})
    assert (repo / "a.txt").read_text() == LINES.replace("line 9\n", "line nine\n")
    await ok(client, GIT_UNDO_DISCARD, {"sessionId": sid, "undoId": gone.undo_id})
    assert (repo / "a.txt").read_text() == edited
    await err(client, GIT_UNDO_DISCARD, {"sessionId": sid, "undoId": gone.undo_id}, "stale-diff")  # once

    dropped = await ok(client, GIT_DISCARD, {"sessionId": sid, "paths": ["new.txt", "a.txt"]})
    assert sorted(dropped.paths) == ["a.txt", "new.txt"]
    assert not (repo / "new.txt").exists() and (repo / "a.txt").read_text() == LINES
    assert git(repo, "status", "--porcelain") == ""
    (repo / "a.txt").write_text("someone typed here\n")  # changed since: the undo would lose it
    await err(client, GIT_UNDO_DISCARD, {"sessionId": sid, "undoId": dropped.undo_id}, "stale-diff")
    assert (repo / "a.txt").read_text() == "someone typed here\n" and not (repo / "new.txt").exists()
    (repo / "a.txt").write_text(LINES)
    await ok(client, GIT_UNDO_DISCARD, {"sessionId": sid, "undoId": dropped.undo_id})
    assert (repo / "new.txt").read_bytes() == b"fresh\nfile" and (repo / "a.txt").read_text() == edited
    assert not [p for p in repo.rglob("*") if ".hd-revert-" in p.name]


async def test_renames_binaries_deletions_and_whole_files(host: Host, place: Path) -> None:
    repo = make_repo(place / "repo")
    (repo / "pic.bin").write_bytes(b"\x00\x01\x02")
    git(repo, "add", "pic.bin")
    git(repo, "commit", "-q", "-m", "pic")
    git(repo, "mv", "b.txt", "c.txt")
    (repo / "pic.bin").write_bytes(b"\x00\x09\x09\x09")
    (repo / "a.txt").unlink()
    client = host.client()
    sid = await host.create(repo)
    value = await status(client, sid)
    c = file_of(value, "c.txt")
    assert (c.status, c.old_path, c.has_staged) == ("renamed", "b.txt", True)
    pic = file_of(value, "pic.bin")
    assert (pic.status, pic.binary, pic.unstaged, pic.has_unstaged) == ("modified", True, [], True)
    a = file_of(value, "a.txt")
    assert a.status == "deleted" and a.unstaged[0].removed == 20

    await ok(client, GIT_DISCARD, {"sessionId": sid, "paths": ["pic.bin", "a.txt"]})
    assert (repo / "pic.bin").read_bytes() == b"\x00\x01\x02" and (repo / "a.txt").read_text() == LINES
    await ok(client, GIT_UNSTAGE, {"sessionId": sid, "paths": ["c.txt"]})
    assert git(repo, "diff", "--cached", "--name-only") == ""
    assert {f.path: f.status for f in (await status(client, sid)).files} == {
        "c.txt": "untracked",
        "b.txt": "deleted",
    }
    await ok(client, GIT_STAGE, {"sessionId": sid, "paths": ["c.txt", "b.txt"]})
    assert git(repo, "diff", "--cached", "-M", "--name-status").split() == ["R100", "b.txt", "c.txt"]


async def test_the_session_and_last_turn_scopes_and_the_persons_own_edits(
    host: Host, llm: ScriptedLlmServer, place: Path
) -> None:
    repo = make_repo(place / "repo")
    client = host.client()
    mux = await host.mux(client)
    sid = await host.create(repo)
    await turn_writing(host, llm, client, mux, sid, write("w1", "a.txt", "agent one\n"))
    await turn_writing(host, llm, client, mux, sid, write("w2", "made.txt", "agent two\n"))
    (repo / "b.txt").write_text("the person's own edit\n")
    session = await status(client, sid, "session")
    assert [f.path for f in session.files] == ["a.txt", "made.txt"]
    last = await status(client, sid, "last-turn")
    assert [(f.path, f.status) for f in last.files] == [("made.txt", "untracked")]
    everything = await status(client, sid, "uncommitted")
    assert [(f.path, f.mine) for f in everything.files] == [
        ("a.txt", False),
        ("b.txt", True),
        ("made.txt", False),
    ]


async def test_the_branch_scope_compares_with_the_base(host: Host, place: Path) -> None:
    repo = make_repo(place / "repo")
    git(repo, "checkout", "-q", "-b", "feature")
    (repo / "b.txt").write_text("committed on the branch\n")
    git(repo, "commit", "-q", "-am", "on feature")
    (repo / "a.txt").write_text(LINES.replace("line 1\n", "line one\n"))
    client = host.client()
    sid = await host.create(repo)
    value = await status(client, sid, "branch")
    assert value.base == "main"
    b = file_of(value, "b.txt")
    assert "+committed on the branch" in b.staged[0].diff and b.unstaged == []
    assert file_of(value, "a.txt").unstaged[0].diff.startswith("@@ -1 +1 @@")
    # a committed change is not in the index's diff: it cannot be unstaged
    await err(client, GIT_UNSTAGE, {"sessionId": sid, "hunkIds": [b.staged[0].id]}, "stale-diff")
    git(repo, "checkout", "-q", "main")
    git(repo, "branch", "-D", "feature")
    lone = await status(client, sid, "branch")  # on main with no remote: nothing to compare with
    assert (lone.withheld, lone.files) == ("no-base", [])


async def test_an_untrusted_repository_with_programs_is_refused_before_git_runs(
    host: Host, place: Path
) -> None:
    repo = make_repo(place / "repo")
    marker = place / "ran"
    hook = place / "hook.sh"
    hook.write_text(f"#!/bin/sh\ntouch {marker}\n")
    hook.chmod(0o755)
    git(repo, "config", "core.fsmonitor", str(hook))
    (repo / "a.txt").write_text("changed\n")
    client = host.client()
    sid = await host.create(repo)
    value = await status(client, sid)
    assert (value.files, value.withheld, value.findings) == ([], "untrusted-config", ["core.fsmonitor"])
    for method in (GIT_STAGE, GIT_UNSTAGE, GIT_DISCARD):
        wire = await err(client, method, {"sessionId": sid, "paths": ["a.txt"]}, "repository-untrusted")
        assert wire.details["findings"] == ["core.fsmonitor"]
    assert not marker.exists()
    assert (repo / "a.txt").read_text() == "changed\n" and git(repo, "diff", "--cached") == ""
    plain = place / "plain"
    plain.mkdir()
    other = await host.create(plain)
    await err(client, GIT_STATUS, {"sessionId": other, "scope": "uncommitted"}, "not-a-repository")
    await err(client, GIT_STAGE, {"sessionId": other, "paths": ["x"]}, "not-a-repository")


@pytest.mark.parametrize("state", ["staging", "commit"])
async def test_a_discard_a_crash_interrupted_is_finished_or_rolled_back(
    state: str, tmp_path: Path, place: Path, llm_server: ScriptedLlmServer
) -> None:
    """What a kill -9 leaves mid-discard: the journal and its staged copy (before or after the
    commit point); the next start leaves the file whole — all put back or untouched."""
    llm_server.reset()
    repo = make_repo(place / "repo")
    (repo / "a.txt").write_text("edited\n")
    journal = undo_journal.Journal(
        id=undo_journal.new_id(),
        session_id="s",
        turn=0,
        cause="discard",
        root=str(repo.resolve()),
        entries=[],
        at_seq={},
    )
    data = tmp_path / "data"
    undo_journal.stage(data / "review", journal, [("a.txt", LINES.encode())])
    if state == "staging":  # killed before the commit point: as if the journal still said so
        journal.state = "staging"
        undo_journal._save(undo_journal.journal_dir(data / "review"), journal)
    assert (repo / "a.txt").read_text() == "edited\n"
    again = await open_test_host("inprocess", tmp_path, llm_server.base_url)
    try:
        assert (repo / "a.txt").read_text() == (LINES if state == "commit" else "edited\n")
        assert not [p for p in repo.rglob("*") if ".hd-revert-" in p.name]
        assert not list(undo_journal.journal_dir(data / "review").glob("*.json"))
    finally:
        await again.close()


async def test_review_comments_reach_the_model_as_text_naming_file_and_lines(
    host: Host, llm: ScriptedLlmServer
) -> None:
    client, mux, sid = await open_session(host)
    llm.enqueue(Reply(text="I will change it."))
    comment = {
        "type": "review-comment",
        "path": "src/app.py",
        "startLine": 12,
        "endLine": 14,
        "side": "new",
        "body": "Not like this: keep the old name.",
        "excerpt": "+def renamed():\n+    pass",
    }
    one_line = {**comment, "startLine": 3, "endLine": 3, "side": "old", "body": "why removed?", "excerpt": ""}
    content = [comment, one_line]
    assert (
        await ok(client, SESSION_PROMPT, {"sessionId": sid, "mode": "queue", "content": content})
    ).accepted
    await mux.next(event("turn/end", sid))
    user = [m for m in llm.requests[-1]["messages"] if m["role"] == "user"][-1]
    text = (
        user["content"] if isinstance(user["content"], str) else "\n".join(p["text"] for p in user["content"])
    )
    assert "Review comment on src/app.py, lines 12-14 of the new version:" in text
    assert "+def renamed():" in text and "Not like this: keep the old name." in text
    assert "src/app.py, line 3 of the old version" in text and "why removed?" in text
    await err(
        client,
        SESSION_PROMPT,
        {"sessionId": sid, "mode": "queue", "content": [{**comment, "startLine": 9, "endLine": 2}]},
        "bad-request",
    )
    history = await ok(client, SESSION_HISTORY, {"sessionId": sid, "maxMessages": 100})
    parts = [
        b
        for e in page_events(history)
        if e.type == "agent/inbox/spliced"
        for m in e.data["inserted"]
        for b in m["content"]
        if b.get("review")
    ]
    assert [(b["review"]["path"], b["review"]["startLine"], b["review"]["side"]) for b in parts] == [
        ("src/app.py", 12, "new"),
        ("src/app.py", 3, "old"),
    ]


async def test_a_repository_without_commits_stages_and_unstages_a_new_file(host: Host, place: Path) -> None:
    repo = place / "fresh"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "first.txt").write_text("one\ntwo\n")
    client = host.client()
    sid = await host.create(repo)
    first = file_of(await status(client, sid), "first.txt")
    assert (first.status, [h.header for h in first.unstaged]) == ("untracked", ["@@ -0,0 +1,2 @@"])
    await ok(client, GIT_STAGE, {"sessionId": sid, "hunkIds": [first.unstaged[0].id]})
    assert git(repo, "diff", "--cached", "--name-status").split() == ["A", "first.txt"]
    first = file_of(await status(client, sid), "first.txt")
    assert (first.status, first.staged[0].added, first.has_unstaged) == ("added", 2, False)
    await ok(client, GIT_UNSTAGE, {"sessionId": sid, "paths": ["first.txt"]})
    assert git(repo, "diff", "--cached", "--name-only") == ""
    assert file_of(await status(client, sid), "first.txt").status == "untracked"


async def test_a_worktree_session_compares_its_branch_with_its_base_and_stages_there(
    host: Host, llm: ScriptedLlmServer, place: Path
) -> None:
    repo = make_repo(place / "repo", branch="trunk")  # no main, no master: only the row names the base
    wid = str((await ok(host.client(), WORKSPACE_CREATE, {"path": str(repo)})).workspace.workspace_id)
    sid = str(
        (
            await ok(host.client(), SESSION_CREATE, {"workspaceId": wid, "worktree": {"branch": "fix"}})
        ).session_id
    )
    client = host.client()
    tree = cwd_of(next(s for s in (await ok(client, SESSION_LIST, {})).items if s.session_id == sid))
    (tree / "b.txt").write_text("committed on fix\n")
    git(tree, "commit", "-q", "-am", "on fix")
    (tree / "a.txt").write_text(LINES.replace("line 7\n", "line seven\n"))
    value = await status(client, sid, "branch")
    assert value.base == "trunk"
    assert "+committed on fix" in file_of(value, "b.txt").staged[0].diff
    a = file_of(value, "a.txt")
    await ok(client, GIT_STAGE, {"sessionId": sid, "hunkIds": [a.unstaged[0].id]})
    assert "+line seven" in git(tree, "diff", "--cached") and git(repo, "diff", "--cached") == ""
    assert (repo / "a.txt").read_text() == LINES  # the person's checkout is untouched
