"""`files.gitStatus`: the branch and the number of changed files of a session's folder, from a
real git repository (docs/decisions.md, "Review and context" and "The host's git": a repository
whose configuration names programs shows its branch, but is not counted until it is trusted —
tests/security/test_git_containment.py and test_git_escapes.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from contract.methods import FILES_GIT_STATUS
from tests.api.conftest import Host
from tests.api.support import err, ok
from tests.support.git_repos import git

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def make_repo(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    git(folder, "init", "-q", "-b", "feature/review")
    git(folder, "config", "user.email", "t@example.invalid")
    git(folder, "config", "user.name", "Test")
    (folder / "a.txt").write_text("one\n")
    (folder / "b.txt").write_text("two\n")
    git(folder, "add", "a.txt", "b.txt")
    git(folder, "commit", "-q", "-m", "start")


async def test_branch_and_changed_files_follow_the_work_tree(host: Host, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    make_repo(repo)
    client = host.client()
    sid = await host.create(repo)
    clean = await ok(client, FILES_GIT_STATUS, {"sessionId": sid})
    assert (clean.repo, clean.branch, clean.changed) == (True, "feature/review", 0)

    (repo / "a.txt").write_text("changed\n")  # modified
    (repo / "new.txt").write_text("new\n")  # untracked
    git(repo, "mv", "b.txt", "c.txt")  # a rename counts once
    dirty = await ok(client, FILES_GIT_STATUS, {"sessionId": sid})
    assert (dirty.branch, dirty.changed) == ("feature/review", 3)

    git(repo, "checkout", "-q", "--detach")
    detached = await ok(client, FILES_GIT_STATUS, {"sessionId": sid})
    assert (detached.repo, detached.branch, detached.changed) == (True, None, 3)


async def test_a_repository_without_commits_shows_its_branch(host: Host, tmp_path: Path) -> None:
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    git(fresh, "init", "-q", "-b", "main")
    (fresh / "first.txt").write_text("1\n")
    value = await ok(host.client(), FILES_GIT_STATUS, {"sessionId": await host.create(fresh)})
    assert (value.repo, value.branch, value.changed) == (True, "main", 1)


async def test_a_plain_folder_is_not_a_repo_and_bad_input_is_refused(host: Host, tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    client = host.client()
    sid = await host.create(plain)
    value = await ok(client, FILES_GIT_STATUS, {"sessionId": sid})
    assert (value.repo, value.branch, value.changed) == (False, None, None)
    await err(client, FILES_GIT_STATUS, {}, "bad-request")
    await err(client, FILES_GIT_STATUS, {"sessionId": "nope"}, "session-not-found")


async def test_the_repo_config_cannot_run_an_fsmonitor_hook(host: Host, tmp_path: Path) -> None:
    repo = tmp_path / "hostile"
    make_repo(repo)
    marker = tmp_path / "ran"
    hook = tmp_path / "hook.sh"
    hook.write_text(f"#!/bin/sh\ntouch {marker}\n")
    hook.chmod(0o755)
    git(repo, "config", "core.fsmonitor", str(hook))
    client = host.client()
    sid = await host.create(repo)
    value = await ok(client, FILES_GIT_STATUS, {"sessionId": sid})
    assert value.repo is True and value.branch == "feature/review"
    assert (value.changed, value.withheld, value.findings) == (None, "untrusted-config", ["core.fsmonitor"])
    assert not marker.exists()
