"""The review pane's staging under real bubblewrap (docs/decisions/review-pane.md): `git apply
--cached` writes the index and objects while the work tree stays read-only to git — in a plain
checkout and in a linked worktree whose git directory lives in the shared one — and a discard
is the host's own write, never git's. Folders under /var/tmp (the sandbox's /tmp is private)."""

from __future__ import annotations

import functools
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from host.engine.files.git import layout
from host.engine.files.git.runner import FolderGit
from host.engine.files.review import Review
from host.engine.sandbox import Confinement
from tests.security.sandboxing import needs_sandbox, sandbox_on
from tests.support.git_repos import IDENTITY
from tests.support.git_repos import git as git_in

__all__ = ["sandbox_on"]

pytestmark = needs_sandbox
LINES = "".join(f"line {i}\n" for i in range(1, 11))


git = functools.partial(git_in, config=IDENTITY)


@pytest.fixture
def place() -> Iterator[Path]:
    root = Path(tempfile.mkdtemp(prefix="harnessdesk-review-", dir="/var/tmp"))
    try:
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


def make_repo(folder: Path) -> Path:
    folder.mkdir(parents=True)
    git(folder, "init", "-q", "-b", "main")
    (folder / "a.txt").write_text(LINES)
    git(folder, "add", "a.txt")
    git(folder, "commit", "-q", "-m", "start")
    return folder


def review_of(folder: Path, data: Path) -> Review:
    async def folder_of(_sid: str) -> str:
        return str(folder)

    async def nothing(_sid: str) -> set[str]:
        return set()

    return Review(
        FolderGit(Confinement(data_dir=data)),
        lambda _p: True,
        folder_of,
        nothing,
        nothing,
        lambda _f: None,
        data,
    )


@pytest.mark.parametrize("linked", [False, True])
async def test_staging_writes_the_index_and_never_the_work_tree(
    place: Path, sandbox_on: None, linked: bool
) -> None:
    repo = make_repo(place / "repo")
    folder = repo
    if linked:
        folder = place / "tree"
        git(repo, "worktree", "add", "-q", "-b", "side", str(folder))
    (folder / "a.txt").write_text(LINES.replace("line 2\n", "line two\n").replace("line 8\n", "line eight\n"))
    review = review_of(folder, place / "data")
    value = await review.status("s", "uncommitted")
    [a] = value.files
    assert len(a.unstaged) == 2
    await review.stage("s", None, [a.unstaged[0].id])
    assert "+line two" in git(folder, "diff", "--cached") and "eight" not in git(folder, "diff", "--cached")

    # the same sandbox refuses git a write to the work tree: a plain `git apply` fails read-only
    patch = git(folder, "diff")
    done = await FolderGit(Confinement(data_dir=place / "data")).run(
        layout.find(folder),  # type: ignore[arg-type]
        ["apply", "-R", "-"],
        write=True,
        index_only=True,
        stdin=(patch + "\n").encode(),  # the helper strips the last newline
    )
    assert not done.ok and b"Read-only file system" in done.stderr
    assert "line eight" in (folder / "a.txt").read_text()

    # a discard is the host's write (through the journal), so it still works
    [a] = (await review.status("s", "uncommitted")).files
    gone = await review.discard("s", None, [a.unstaged[0].id])
    assert (folder / "a.txt").read_text() == LINES.replace("line 2\n", "line two\n")
    await review.undo_discard("s", gone.undo_id)
    assert "line eight" in (folder / "a.txt").read_text()
