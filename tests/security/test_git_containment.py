"""Containment that git cannot carry the agent out of (issue 40, items 1-3; docs/decisions.md,
"The host's git"): the host finds a repository and its branch by reading files, runs git on a
person's repository only inside the sandbox (or, with no sandbox, only when its configuration
names no program), and the sandbox keeps what git reads as configuration or code read-only —
whether it exists yet or not — while ordinary git use keeps working inside it.

Real git and real bubblewrap throughout; folders live under /var/tmp (the sandbox's /tmp is
private)."""

from __future__ import annotations

import ast
import functools
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from host.engine.files.git import config_scan, layout
from host.engine.files.git.runner import FolderGit, GitRefused
from host.engine.files.git.status import git_status
from host.engine.sandbox import Confinement, SandboxPolicy, wrap
from host.engine.tools.permissions.sandboxing import blocked_write
from tests.security.sandboxing import needs_sandbox, sandbox_on
from tests.support.git_repos import IDENTITY
from tests.support.git_repos import git as git_in

__all__ = ["sandbox_on"]

ROOT = Path(__file__).resolve().parents[2]


git = functools.partial(git_in, config=IDENTITY)


@pytest.fixture
def place() -> Iterator[Path]:
    root = Path(tempfile.mkdtemp(prefix="harnessdesk-git-", dir="/var/tmp"))
    try:
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


def make_repo(folder: Path, branch: str = "main") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    git(folder, "init", "-q", "-b", branch)
    (folder / "a.txt").write_text("one\n")
    git(folder, "add", "a.txt")
    git(folder, "commit", "-q", "-m", "start")
    return folder


def plant_filter(config: Path, marker: Path) -> None:
    """A filter driver whose `clean` leaves `marker` when it runs (git runs it to re-hash a file
    whose content changed), used by every file of the work tree."""
    program = marker.with_name(marker.name + ".sh")
    program.write_text(f"#!/bin/sh\ntouch {marker}\nexec cat\n")
    program.chmod(0o755)
    with open(config, "a") as f:
        f.write(f'[filter "x"]\n\tclean = {program}\n')


def changed_under_filter(repo: Path) -> None:
    (repo / ".gitattributes").write_text("* filter=x\n")
    (repo / "a.txt").write_text("two\n")


# ---- reading a repository without running it ---------------------------------------------------


def test_the_layout_and_branch_come_from_the_files(place: Path) -> None:
    repo = make_repo(place / "repo", "feature/x")
    found = layout.find(repo / "sub" / "deeper")  # a folder below the top that does not exist
    assert found is not None and found.top == repo and found.git_dir == repo / ".git"
    assert layout.branch(found) == "feature/x" and not found.dot_git_is_file
    git(repo, "checkout", "-q", "--detach")
    assert layout.branch(found) is None

    linked = place / "linked"
    git(repo, "worktree", "add", "-q", "-b", "side", str(linked))
    other = layout.find(linked)
    assert other is not None and other.dot_git_is_file and other.has_commondir
    assert other.common_dir.resolve() == (repo / ".git").resolve()
    assert layout.branch(other) == "side"
    assert config_scan.findings(other) == []  # a linked worktree is ordinary

    fresh = place / "fresh"
    fresh.mkdir()
    git(fresh, "init", "-q", "-b", "trunk")
    assert layout.branch(layout.find(fresh)) == "trunk"  # type: ignore[arg-type]
    assert layout.find(place / "plain") is None


@pytest.mark.parametrize(
    ("lines", "finding"),
    [
        ('[filter "x"]\n\tclean = cat\n', "filter.x.clean"),
        ("[core]\n\tfsmonitor = /bin/evil\n", "core.fsmonitor"),
        ("[core]\n\thooksPath = /var/evil\n", "core.hookspath"),
        ("[core]\n\tsshCommand = evil\n", "core.sshcommand"),
        ("[core]\n\tpager = evil\n", "core.pager"),
        ('[diff "x"]\n\ttextconv = evil\n', "diff.x.textconv"),
        ('[merge "x"]\n\tdriver = evil\n', "merge.x.driver"),
        ("[credential]\n\thelper = evil\n", "credential.helper"),
        ("[include]\n\tpath = ../elsewhere\n", "include.path"),
        ('[includeIf "gitdir:/"]\n\tpath = ../elsewhere\n', "includeif.gitdir:/.path"),
        ('[remote "origin"]\n\tuploadpack = evil\n', "remote.origin.uploadpack"),
        ("[core] editor = evil\n", "core.editor"),
        ("[core\n", "config: unreadable"),
    ],
)
def test_a_configuration_that_names_a_program_is_found(place: Path, lines: str, finding: str) -> None:
    repo = make_repo(place / "repo")
    with open(repo / ".git" / "config", "a") as f:
        f.write(lines)
    found = config_scan.findings(layout.find(repo))  # type: ignore[arg-type]
    assert any(f.lower().startswith(finding) for f in found), found


def test_an_ordinary_configuration_has_no_findings(place: Path) -> None:
    repo = make_repo(place / "repo")
    git(repo, "remote", "add", "origin", "https://example.invalid/x.git")
    git(repo, "config", "branch.main.remote", "origin")
    git(repo, "config", "core.fsmonitor", "false")
    git(repo, "config", "lfs.repositoryformatversion", "0")
    assert config_scan.findings(layout.find(repo)) == []  # type: ignore[arg-type]


def test_a_planted_commondir_and_a_git_dir_inside_the_work_tree_are_findings(place: Path) -> None:
    repo = make_repo(place / "repo")
    evil = place / "repo" / "evil"
    shutil.copytree(repo / ".git", evil)
    (repo / ".git" / "commondir").write_text("../evil\n")
    found = config_scan.findings(layout.find(repo))  # type: ignore[arg-type]
    assert "commondir" in found and any("inside the work tree" in f for f in found)


# ---- the host's own git --------------------------------------------------------------------------


async def test_untrusted_folders_show_their_branch_and_run_nothing(place: Path) -> None:
    """A received folder whose configuration defines a filter: before trust the host reads its
    branch and runs no git at all; with no sandbox it never runs git there, trusted or not."""
    repo = make_repo(place / "received", "topic")
    marker = place / "RAN"
    plant_filter(repo / ".git" / "config", marker)
    changed_under_filter(repo)
    runner = FolderGit(Confinement(place / "data"))
    value = await git_status(runner, repo, lambda _top: False)
    assert (value.repo, value.branch, value.changed, value.withheld) == (
        True,
        "topic",
        None,
        "untrusted-config",
    )
    assert "filter.x.clean" in value.findings
    assert not marker.exists()
    # trusted, on a machine without a sandbox (the suite's default: tests/conftest.py)
    with pytest.raises(GitRefused):
        runner.argv(layout.find(repo), ["status"])  # type: ignore[arg-type]
    value = await git_status(runner, repo, lambda _top: True)
    assert (value.changed, value.withheld) == (None, "no-sandbox")
    assert not marker.exists()


async def test_a_clean_configuration_is_counted_without_trust(place: Path) -> None:
    repo = make_repo(place / "plain")
    (repo / "new.txt").write_text("n\n")
    value = await git_status(FolderGit(Confinement(place / "data")), repo, lambda _top: False)
    assert (value.repo, value.branch, value.changed, value.withheld) == (True, "main", 1, None)


@needs_sandbox
async def test_trusted_the_host_runs_git_inside_the_sandbox(place: Path, sandbox_on: None) -> None:
    """Trusted, the folder's filter may run — inside the read-only sandbox, where it can write
    nothing: the marker outside the folder never appears, and the count still comes back."""
    repo = make_repo(place / "repo")
    marker = place / "RAN"
    plant_filter(repo / ".git" / "config", marker)
    changed_under_filter(repo)
    runner = FolderGit(Confinement(place / "data"))
    argv = runner.argv(layout.find(repo), ["status"])  # type: ignore[arg-type]
    assert argv[0].endswith("bwrap") and "--unshare-net" in argv
    value = await git_status(runner, repo, lambda _top: True)
    assert (value.changed, value.withheld) == (2, None)
    assert not marker.exists()
    git(repo, "status")
    assert marker.exists()  # proof the filter does run when git runs it unsandboxed


def test_no_code_outside_the_git_module_starts_git() -> None:
    """Every git process the host starts goes through host/engine/files/git/runner.py: no other module
    of the product names `git` as the program of a command line."""
    offenders = []
    for base in ("host", "desktop"):
        for path in (ROOT / base).rglob("*.py"):
            if path.is_relative_to(ROOT / "host" / "engine" / "files" / "git"):
                continue
            tree = ast.parse(path.read_text(), str(path))
            for node in ast.walk(tree):
                if isinstance(node, ast.List | ast.Tuple) and node.elts:
                    first = node.elts[0]
                    if isinstance(first, ast.Constant) and first.value in ("git", "/usr/bin/git"):
                        offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
                if isinstance(node, ast.Call) and node.args:
                    first = node.args[0]
                    named = getattr(node.func, "attr", getattr(node.func, "id", ""))
                    if named in ("create_subprocess_exec", "Popen", "run", "call", "check_output", "execvp"):
                        if isinstance(first, ast.Constant) and first.value == "git":
                            offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert offenders == []


# ---- the sandbox keeps git's configuration read-only ---------------------------------------------


def sandboxed(folder: Path, script: str, data: Path) -> subprocess.CompletedProcess[str]:
    argv = wrap(["/bin/sh", "-c", script], SandboxPolicy(workspace=folder, write=True, data_dir=data))
    return subprocess.run(argv, cwd=folder, capture_output=True, text=True, timeout=120)


@needs_sandbox
def test_what_git_reads_as_configuration_is_read_only_whether_it_exists_or_not(
    place: Path, sandbox_on: None
) -> None:
    repo = make_repo(place / "repo")
    shutil.rmtree(repo / ".git" / "hooks")  # a repository cloned without git's sample hooks
    attempts = {
        "config": "echo '[core] fsmonitor = evil' >> .git/config",
        "hooks": "echo evil > .git/hooks/pre-commit",
        "info": "echo '* filter=x' > .git/info/attributes",
        "worktrees": "mkdir .git/worktrees/evil",
        "modules": "mkdir .git/modules/evil",
    }
    for name, script in attempts.items():
        done = sandboxed(repo, f"{script} && echo WROTE", place / "data")
        assert "WROTE" not in done.stdout and "Read-only file system" in done.stderr, (name, done.stderr)
    assert not (repo / ".git" / "hooks" / "pre-commit").exists()
    assert "fsmonitor" not in (repo / ".git" / "config").read_text()
    # the folders made to be protected are empty and harmless to git
    assert sorted(os.listdir(repo / ".git" / "worktrees")) == []
    git(repo, "status")

    # a commondir cannot be made in advance: one planted inside is moved aside before anything
    # else runs, so neither the host's git nor the person's sees it
    done = sandboxed(repo, "echo ../evil > .git/commondir && echo PLANTED", place / "data")
    assert "PLANTED" in done.stdout
    sandboxed(repo, "true", place / "data")
    assert not (repo / ".git" / "commondir").exists()
    assert [p.name for p in (repo / ".git").iterdir() if p.name.startswith("commondir.")]


@needs_sandbox
def test_ordinary_git_use_keeps_working_in_the_sandbox(place: Path, sandbox_on: None) -> None:
    repo = make_repo(place / "repo")
    script = " && ".join(
        [
            "export GIT_AUTHOR_NAME=A GIT_AUTHOR_EMAIL=a@x GIT_COMMITTER_NAME=A GIT_COMMITTER_EMAIL=a@x",
            "echo more >> a.txt",
            "git add a.txt",
            "git commit -q -m more",
            "git branch topic",
            "echo wip >> a.txt",
            "git stash -q",
            "git log --oneline | wc -l",
        ]
    )
    done = sandboxed(repo, script, place / "data")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "2"
    assert "topic" in git(repo, "branch")
    assert git(repo, "stash", "list")


@needs_sandbox
def test_a_linked_worktrees_git_file_cannot_be_rewritten(place: Path, sandbox_on: None) -> None:
    repo = make_repo(place / "repo")
    linked = place / "linked"
    git(repo, "worktree", "add", "-q", "-b", "side", str(linked))
    before = (linked / ".git").read_text()
    done = sandboxed(linked, "echo 'gitdir: /var/tmp/evil' > .git && echo WROTE", place / "data")
    assert "WROTE" not in done.stdout
    assert (linked / ".git").read_text() == before


def test_file_tools_may_not_write_anything_of_git(place: Path) -> None:
    repo = make_repo(place / "repo")
    paths = (".git/commondir", ".git/config", ".git/objects/info/alternates", ".git/info/attributes", ".git")
    for path in paths:
        refusal = blocked_write("write_file", {"path": path, "content": "x"}, repo)
        assert refusal is not None and refusal.startswith("blocked by the sandbox"), path
    assert blocked_write("write_file", {"path": "src/.gitkeep", "content": ""}, repo) is None
