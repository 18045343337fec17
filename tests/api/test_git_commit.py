"""Commit, log, push and pull request from a session (issue 42, items 3, 4 and their tests of item
6; docs/decisions/commit-and-push.md), with real git and real bubblewrap: commit and amend
produce the staged tree with the person's identity; a trusted folder's pre-commit hook runs and
its output comes back, an untrusted folder's does not (a marker proves it); no identity, nothing
staged and a configuration that names programs are refused; the log links the turns a commit
covers; push to a bare repository over file:// sets the upstream once, a diverged remote answers
push-rejected and a repository without a remote no-remote; with no `gh`, the pull request is the
hosting site's compare page; the draft comes from the session's model and sees the staged diff;
a push over ssh to a real OpenSSH server on loopback uses the person's own ssh setup, and a key
the server refuses answers `auth-failed` at once, without a prompt."""

from __future__ import annotations

import functools
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from contract.methods import (
    GIT_COMMIT,
    GIT_DRAFT_MESSAGE,
    GIT_LOG,
    GIT_PULL_REQUEST,
    GIT_PUSH,
    SESSION_CREATE,
    SESSION_HISTORY,
    SESSION_LIST,
    WORKSPACE_CREATE,
    WORKSPACE_SET_TRUST,
)
from host.engine.files.git.hosting import compare_url, gh_program, hosted
from tests.api.conftest import Host
from tests.api.file_turns import open_session, turn_writing, write
from tests.api.support import cwd_of, err, ok
from tests.security.sandboxing import needs_sandbox
from tests.support.git_repos import IDENTITY, place
from tests.support.git_repos import git as git_in
from tests.support.scripted_llm import Reply, ScriptedLlmServer
from tests.support.sshd import Sshd

__all__ = ["place"]

PERSON = ("Pat Person", "pat@example.invalid")
START = ("-c", "user.name=Someone Else", "-c", "user.email=else@example.invalid")
pytestmark = needs_sandbox


git = functools.partial(git_in, config=START)


def plain_repo(folder: Path, branch: str = "main") -> Path:
    """A repository with one commit and no identity of its own (the person's comes from HOME)."""
    folder.mkdir(parents=True)
    git(folder, "init", "-q", "-b", branch)
    (folder / "a.txt").write_text("one\n")
    git(folder, "add", "a.txt")
    git(folder, "commit", "-q", "-m", "start")
    return folder


@pytest.fixture
def home(place: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The person's HOME with their git identity in ~/.gitconfig (under /var/tmp: the sandbox
    sees it there)."""
    folder = place / "home"
    folder.mkdir()
    (folder / ".gitconfig").write_text(f"[user]\n\tname = {PERSON[0]}\n\temail = {PERSON[1]}\n")
    monkeypatch.setenv("HOME", str(folder))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)
    yield folder


def hook(repo: Path, name: str, marker: Path, say: str = "", code: int = 0) -> None:
    path = repo / ".git" / "hooks" / name
    path.write_text(f"#!/bin/sh\ntouch {marker}\necho '{say}' >&2\nexit {code}\n")
    path.chmod(0o755)


def tree_of(repo: Path, rev: str = "HEAD") -> dict[str, str]:
    """`git cat-file -p rev^{tree}` read back: name → blob content."""
    out: dict[str, str] = {}
    for line in git(repo, "cat-file", "-p", f"{rev}^{{tree}}").splitlines():
        meta, name = line.split("\t", 1)
        out[name] = git(repo, "cat-file", "-p", meta.split()[2])
    return out


async def trust(host: Host, folder: Path) -> None:
    made = await ok(host.client(), WORKSPACE_CREATE, {"path": str(folder)})
    await ok(
        host.client(), WORKSPACE_SET_TRUST, {"workspaceId": made.workspace.workspace_id, "trusted": True}
    )


@pytest.mark.parametrize("carrier", ["http"])
async def test_commit_and_amend_make_the_staged_tree_as_the_person_without_an_untrusted_hook(
    host: Host, place: Path, home: Path
) -> None:
    repo = plain_repo(place / "repo")
    marker = place / "hook-ran"
    hook(repo, "pre-commit", marker, "untrusted hook")
    sid = await host.create(repo)
    (repo / "a.txt").write_text("one\ntwo\n")
    (repo / "b.txt").write_text("bee\n")
    (repo / "unstaged.txt").write_text("left alone\n")
    git(repo, "add", "a.txt", "b.txt")
    done = await ok(host.client(), GIT_COMMIT, {"sessionId": sid, "message": "Add b and grow a"})
    assert done.hooks_skipped is True and not marker.exists(), "an untrusted folder's hook never runs"
    assert done.sha == git(repo, "rev-parse", "HEAD") and len(done.sha) == 40
    assert tree_of(repo) == {"a.txt": "one\ntwo", "b.txt": "bee"}
    assert git(repo, "log", "-1", "--format=%an <%ae>|%cn <%ce>|%s") == (
        f"{PERSON[0]} <{PERSON[1]}>|{PERSON[0]} <{PERSON[1]}>|Add b and grow a"
    )
    assert git(repo, "status", "--porcelain") == "?? unstaged.txt"

    (repo / "b.txt").write_text("bee\nsea\n")
    git(repo, "add", "b.txt")
    amended = await ok(
        host.client(), GIT_COMMIT, {"sessionId": sid, "message": "Add b, grow a", "amend": True}
    )
    assert amended.sha != done.sha and amended.sha == git(repo, "rev-parse", "HEAD")
    assert tree_of(repo) == {"a.txt": "one\ntwo", "b.txt": "bee\nsea"}
    assert git(repo, "log", "-1", "--format=%s") == "Add b, grow a"
    assert git(repo, "rev-list", "--count", "HEAD") == "2", "amend replaced the commit"
    assert tree_of(repo, "HEAD~1") == {"a.txt": "one"}
    assert not marker.exists()


@pytest.mark.parametrize("carrier", ["inprocess"])
async def test_a_trusted_folders_hook_runs_as_the_persons_git_and_its_output_comes_back(
    host: Host, place: Path, home: Path
) -> None:
    repo = plain_repo(place / "repo")
    marker = place / "hook-ran"
    hook(repo, "pre-commit", marker, "lint: 3 files fine")
    await trust(host, repo)
    sid = await host.create(repo)
    (repo / "a.txt").write_text("changed\n")
    git(repo, "add", "a.txt")
    done = await ok(host.client(), GIT_COMMIT, {"sessionId": sid, "message": "Change a"})
    assert marker.exists() and done.hooks_skipped is False
    assert "lint: 3 files fine" in done.hook_output
    assert tree_of(repo) == {"a.txt": "changed"}
    assert git(repo, "log", "-1", "--format=%an") == PERSON[0]

    marker.unlink()
    hook(repo, "pre-commit", marker, "lint: a.txt is ugly", code=1)
    (repo / "a.txt").write_text("ugly\n")
    git(repo, "add", "a.txt")
    refused = await err(host.client(), GIT_COMMIT, {"sessionId": sid, "message": "Ugly"}, "git-failed")
    assert "lint: a.txt is ugly" in refused.details["output"] and marker.exists()
    assert git(repo, "rev-parse", "HEAD") == done.sha, "the hook refused: nothing committed"

    remote = bare(place / "remote.git")
    git(repo, "remote", "add", "origin", remote.as_uri())
    pushed = place / "pre-push-ran"
    hook(repo, "pre-push", pushed, "pre-push")
    await ok(host.client(), GIT_PUSH, {"sessionId": sid})
    assert pushed.exists(), "a trusted folder's pre-push hook runs, as in the person's terminal"


@pytest.mark.parametrize("carrier", ["inprocess"])
async def test_no_identity_nothing_staged_and_untrusted_configuration_are_refused(
    host: Host, place: Path, home: Path
) -> None:
    repo = plain_repo(place / "repo")
    sid = await host.create(repo)
    before = git(repo, "rev-parse", "HEAD")
    await err(host.client(), GIT_COMMIT, {"sessionId": sid, "message": "Nothing"}, "nothing-staged")
    await err(host.client(), GIT_DRAFT_MESSAGE, {"sessionId": sid}, "nothing-staged")

    (home / ".gitconfig").write_text("")
    (repo / "a.txt").write_text("two\n")
    git(repo, "add", "a.txt")
    missing = await err(
        host.client(), GIT_COMMIT, {"sessionId": sid, "message": "Who"}, "git-identity-missing"
    )
    assert "user.name" in missing.message
    assert git(repo, "rev-parse", "HEAD") == before, "no identity was invented"

    bad = await err(host.client(), GIT_COMMIT, {"sessionId": sid, "message": "   "}, "git-failed")
    assert "message" in bad.message
    await err(host.client(), GIT_COMMIT, {"sessionId": sid, "message": ""}, "bad-request")

    program = place / "monitor.sh"
    marker = place / "monitor-ran"
    program.write_text(f"#!/bin/sh\ntouch {marker}\n")
    program.chmod(0o755)
    config = repo / ".git" / "config"
    config.write_text(config.read_text() + f"[core]\n\tfsmonitor = {program}\n")
    for method, payload in [
        (GIT_COMMIT, {"sessionId": sid, "message": "Untrusted"}),
        (GIT_LOG, {"sessionId": sid}),
        (GIT_PUSH, {"sessionId": sid}),
        (GIT_DRAFT_MESSAGE, {"sessionId": sid}),
    ]:
        refused = await err(host.client(), method, payload, "worktree-untrusted")
        assert "core.fsmonitor" in refused.details["findings"]
    assert not marker.exists() and git(repo, "rev-parse", "HEAD") == before

    outside = place / "not-a-repo"
    outside.mkdir()
    elsewhere = await host.create(outside)
    await err(host.client(), GIT_LOG, {"sessionId": elsewhere}, "not-a-repository")


@pytest.mark.parametrize("carrier", ["inprocess"])
async def test_the_log_links_the_turns_a_commit_covers(
    host: Host, llm: ScriptedLlmServer, place: Path, home: Path
) -> None:
    repo = plain_repo(place / "repo")
    client, mux, sid = await open_session_in(host, repo)
    first = await turn_writing(host, llm, client, mux, sid, write("w1", "n1.txt", "first\n"))
    await turn_writing(host, llm, client, mux, sid)  # a turn that only talks: no commit covers it
    second = await turn_writing(host, llm, client, mux, sid, write("w2", "n2.txt", "second\n"))
    aside = await turn_writing(host, llm, client, mux, sid, write("w4", "aside.txt", "not yet\n"))
    git(repo, "add", "n1.txt", "n2.txt")
    done = await ok(client, GIT_COMMIT, {"sessionId": sid, "message": "Two turns of work"})
    third = await turn_writing(host, llm, client, mux, sid, write("w3", "n3.txt", "third\n"))
    git(repo, "add", "-A")
    later = await ok(client, GIT_COMMIT, {"sessionId": sid, "message": "The third"})

    log = await ok(client, GIT_LOG, {"sessionId": sid})
    assert [i.sha for i in log.items] == [later.sha, done.sha, git(repo, "rev-parse", "HEAD~2")]
    assert [i.subject for i in log.items] == ["The third", "Two turns of work", "start"]
    assert log.items[0].author == PERSON[0] and log.items[2].author == "Someone Else"
    assert [t.turn for t in log.items[1].turns] == [first, second]
    assert [t.turn for t in log.items[0].turns] == [aside, third], "a turn counts where its file went"
    assert log.items[2].turns == [], "a commit made elsewhere links no turn"
    history = await ok(client, SESSION_HISTORY, {"sessionId": sid})
    starts = {e.event.seq for e in history.events if e.event.type == "turn/start"}
    assert {t.seq for i in log.items for t in i.turns} <= starts, "each link scrolls to a turn's start"
    assert log.branch == "main" and log.staged == []
    one = await ok(client, GIT_LOG, {"sessionId": sid, "limit": 1})
    assert [i.sha for i in one.items] == [later.sha]
    await err(client, GIT_LOG, {"sessionId": sid, "limit": 0}, "bad-request")

    (repo / "n3.txt").write_text("third, again\n")
    git(repo, "add", "-A")
    assert (await ok(client, GIT_LOG, {"sessionId": sid})).staged == ["n3.txt"]
    amended = await ok(client, GIT_COMMIT, {"sessionId": sid, "message": "The third, amended", "amend": True})
    top = (await ok(client, GIT_LOG, {"sessionId": sid, "limit": 1})).items[0]
    assert top.sha == amended.sha and [t.turn for t in top.turns] == [aside, third], (
        "an amend keeps its turns"
    )


async def open_session_in(host: Host, folder: Path) -> tuple[Any, Any, str]:
    client, mux, _ = await open_session(host)
    return client, mux, await host.create(folder)


def bare(folder: Path) -> Path:
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(folder)], check=True, timeout=60)
    return folder


@pytest.mark.parametrize("carrier", ["inprocess"])
async def test_push_over_file_sets_the_upstream_once_and_a_diverged_remote_is_rejected(
    host: Host, place: Path, home: Path
) -> None:
    repo = plain_repo(place / "repo")
    sid = await host.create(repo)
    await err(host.client(), GIT_PUSH, {"sessionId": sid}, "no-remote")
    remote = bare(place / "remote.git")
    git(repo, "remote", "add", "origin", remote.as_uri())
    marker = place / "pre-push-ran"
    hook(repo, "pre-push", marker, "pre-push")
    first = await ok(host.client(), GIT_PUSH, {"sessionId": sid})
    assert (first.remote, first.branch, first.upstream_set) == ("origin", "main", True)
    assert not marker.exists(), "the person's git, but not the untrusted folder's hook"
    assert git(remote, "rev-parse", "main") == git(repo, "rev-parse", "HEAD")
    assert git(repo, "rev-parse", "--abbrev-ref", "main@{upstream}") == "origin/main"

    (repo / "a.txt").write_text("pushed twice\n")
    git(repo, "add", "a.txt")
    await ok(host.client(), GIT_COMMIT, {"sessionId": sid, "message": "Second"})
    again = await ok(host.client(), GIT_PUSH, {"sessionId": sid})
    assert again.upstream_set is False and git(remote, "rev-parse", "main") == git(repo, "rev-parse", "HEAD")

    other = place / "other"
    git(place, "clone", "-q", remote.as_uri(), str(other))
    (other / "c.txt").write_text("someone else\n")
    git(other, "add", "c.txt")
    git(other, "commit", "-q", "-m", "theirs")
    git(other, "push", "-q", "origin", "main")
    (repo / "a.txt").write_text("mine\n")
    git(repo, "add", "a.txt")
    await ok(host.client(), GIT_COMMIT, {"sessionId": sid, "message": "Mine"})
    rejected = await err(host.client(), GIT_PUSH, {"sessionId": sid}, "push-rejected")
    assert "rejected" in rejected.details["output"] and "origin" in rejected.message
    assert git(remote, "rev-parse", "main") == git(other, "rev-parse", "HEAD"), "the remote kept theirs"


def path_without_gh() -> str:
    kept = [d for d in os.environ.get("PATH", os.defpath).split(os.pathsep) if not (Path(d) / "gh").exists()]
    return os.pathsep.join(kept)


@pytest.mark.parametrize("carrier", ["inprocess"])
async def test_without_gh_the_pull_request_is_the_compare_page(
    host: Host, place: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", path_without_gh())
    assert gh_program() is None
    repo = plain_repo(place / "repo")
    git(repo, "checkout", "-q", "-b", "fix/login")
    git(repo, "remote", "add", "origin", "git@github.com:octo/widgets.git")
    sid = await host.create(repo)
    payload = {"sessionId": sid, "title": "Fix the login", "body": "It failed on a long name & more."}
    unpushed = await err(host.client(), GIT_PULL_REQUEST, payload, "no-remote")
    assert "fix/login" in unpushed.message
    head = git(repo, "rev-parse", "HEAD")
    git(repo, "update-ref", "refs/remotes/origin/main", head)
    git(repo, "update-ref", "refs/remotes/origin/fix/login", head)
    git(repo, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/main")
    git(repo, "branch", "--set-upstream-to=origin/fix/login")
    done = await ok(host.client(), GIT_PULL_REQUEST, payload)
    assert done.created is False
    parts = urlsplit(done.url)
    assert (parts.scheme, parts.netloc, parts.path) == (
        "https",
        "github.com",
        "/octo/widgets/compare/main...fix%2Flogin",
    )
    assert parse_qs(parts.query) == {"expand": ["1"], "title": ["Fix the login"], "body": [payload["body"]]}


def test_compare_pages_of_the_hosting_sites_keep_no_credentials() -> None:
    site = hosted("https://pat:ghp_SECRET123@github.com/octo/widgets.git")
    assert site is not None and site.web == "https://github.com/octo/widgets" and "SECRET" not in site.web
    lab = hosted("ssh://git@gitlab.example.com:2222/group/sub/proj.git")
    assert lab is not None and (lab.kind, lab.web) == ("gitlab", "https://gitlab.example.com/group/sub/proj")
    url = compare_url(lab, "main", "feat", "T", "B")
    assert url.startswith("https://gitlab.example.com/group/sub/proj/-/merge_requests/new?")
    assert parse_qs(urlsplit(url).query)["merge_request[source_branch]"] == ["feat"]
    bucket = hosted("git@bitbucket.org:team/repo.git")
    assert bucket is not None
    assert compare_url(bucket, "main", "feat", "T", "B") == (
        "https://bitbucket.org/team/repo/pull-requests/new?source=feat&dest=main"
    )
    assert hosted("/srv/git/repo.git") is None and hosted("file:///srv/git/repo.git") is None
    assert hosted("../sibling") is None


@pytest.mark.parametrize("carrier", ["inprocess"])
async def test_the_draft_comes_from_the_sessions_model_and_sees_the_staged_diff(
    host: Host, llm: ScriptedLlmServer, place: Path, home: Path
) -> None:
    repo = plain_repo(place / "repo")
    sid = await host.create(repo)
    (repo / "a.txt").write_text("one\nZEBRA-STAGED-LINE\n")
    (repo / "b.txt").write_text("UNSTAGED-ONLY\n")
    git(repo, "add", "a.txt")
    seen = len(llm.requests)
    llm.enqueue(Reply(text="```\nAdd the zebra line\n\nA line the tests look for.\n```"))
    drafted = await ok(host.client(), GIT_DRAFT_MESSAGE, {"sessionId": sid})
    assert drafted.message == "Add the zebra line\n\nA line the tests look for."
    asked = str(llm.requests[seen]["messages"])
    assert "ZEBRA-STAGED-LINE" in asked and "UNSTAGED-ONLY" not in asked and "a.txt" in asked
    assert llm.requests[seen]["model"] == "scripted-small"
    assert (
        git(repo, "rev-parse", "HEAD") == git(repo, "rev-parse", "main")
        and git(repo, "log", "--format=%s") == "start"
    )


# ---- push over ssh to a loopback sshd ---------------------------------------------------------


@pytest.fixture
def sshd(place: Path) -> Iterator[Sshd]:
    with Sshd.start(place / "sshd") as server:
        server.trust()
        yield server


def _run(*argv: str) -> str:
    return subprocess.run(argv, check=True, capture_output=True, text=True, timeout=120).stdout.strip()


_git = functools.partial(git_in, config=IDENTITY)


def _ssh_command(sshd: Sshd, key: Path) -> str:
    """What the person's own setup says (their ssh configuration and key): here by
    GIT_SSH_COMMAND, since ssh reads the configuration of the account, not of $HOME."""
    known = sshd.client_home / ".ssh" / "known_hosts"
    return f"ssh -F /dev/null -i {key} -o IdentitiesOnly=yes -o UserKnownHostsFile={known} -o BatchMode=yes"


@pytest.mark.parametrize("carrier", ["inprocess"])
async def test_push_over_ssh_uses_the_persons_key_and_a_refused_key_is_auth_failed(
    host: Host, place: Path, sshd: Sshd, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = place / "home"
    home.mkdir()
    (home / ".gitconfig").write_text("[user]\n\tname = Pat\n\temail = pat@example.invalid\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)
    remote = sshd.home / "remote.git"
    _run("git", "init", "-q", "--bare", "-b", "main", str(remote))
    _run("chown", "-R", f"{sshd.user}:{sshd.user}", str(remote))
    repo = place / "repo"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    (repo / "a.txt").write_text("over ssh\n")
    _git(repo, "add", "a.txt")
    _git(repo, "commit", "-q", "-m", "start")
    _git(repo, "remote", "add", "origin", f"ssh://{sshd.user}@127.0.0.1:{sshd.port}{remote}")
    sid = await host.create(repo)

    stranger = place / "stranger"
    _run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(stranger))
    monkeypatch.setenv("GIT_SSH_COMMAND", _ssh_command(sshd, stranger))
    refused = await err(host.client(), GIT_PUSH, {"sessionId": sid}, "auth-failed")
    assert "Permission denied" in refused.details["output"] and "origin" in refused.message

    monkeypatch.setenv("GIT_SSH_COMMAND", _ssh_command(sshd, sshd.client_home / ".ssh" / "id_ed25519"))
    done = await ok(host.client(), GIT_PUSH, {"sessionId": sid})
    assert (done.remote, done.branch, done.upstream_set) == ("origin", "main", True)
    pushed = _run("git", "--git-dir", str(remote), "-c", f"safe.directory={remote}", "rev-parse", "main")
    assert pushed == _git(repo, "rev-parse", "HEAD")
    assert os.stat(remote / "refs" / "heads" / "main").st_uid != 0, "written by the server's user"


@pytest.mark.parametrize("carrier", ["inprocess"])
async def test_a_worktree_session_commits_into_the_shared_repository_in_the_sandbox(
    host: Host, place: Path, home: Path
) -> None:
    repo = plain_repo(place / "repo")
    made = await ok(host.client(), WORKSPACE_CREATE, {"path": str(repo)})
    created = await ok(
        host.client(),
        SESSION_CREATE,
        {"workspaceId": made.workspace.workspace_id, "worktree": {"branch": "feature"}},
    )
    sid = created.session_id
    tree = cwd_of(next(s for s in (await ok(host.client(), SESSION_LIST, {})).items if s.session_id == sid))
    assert tree != repo and (tree / ".git").is_file()
    (tree / "f.txt").write_text("feature\n")
    git(tree, "add", "f.txt")
    done = await ok(host.client(), GIT_COMMIT, {"sessionId": sid, "message": "Feature work"})
    assert done.hooks_skipped is True
    assert git(repo, "rev-parse", "feature") == done.sha, "the branch moved in the shared repository"
    assert tree_of(repo, "feature") == {"a.txt": "one", "f.txt": "feature"}
    assert git(repo, "rev-parse", "main") != done.sha and git(repo, "status", "--porcelain") == ""
    log = await ok(host.client(), GIT_LOG, {"sessionId": sid})
    assert log.branch == "feature" and [i.subject for i in log.items] == ["Feature work", "start"]


@pytest.mark.parametrize("carrier", ["inprocess"])
async def test_a_failed_push_never_shows_the_password_of_the_remotes_address(
    host: Host, place: Path, home: Path
) -> None:
    repo = plain_repo(place / "repo")
    git(repo, "remote", "add", "origin", "https://pat:hunter2-SECRET@127.0.0.1:9/nowhere.git")
    sid = await host.create(repo)
    response = await host.client().call(GIT_PUSH, {"sessionId": sid})
    assert not response.result.ok
    wire = response.result.error.model_dump_json(by_alias=True)
    assert "hunter2-SECRET" not in wire and response.result.error.code in ("git-failed", "auth-failed")
