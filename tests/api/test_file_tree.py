"""`files.tree` and `files.read`: the Files pane's look at a session's folder, over both carriers
(docs/decisions.md, "Terminal and files"). What the tree hides is compared with `git check-ignore`
on a repository with nested `.gitignore` files; git's marks come from a real `git status` (run
through the host's sandboxed git); "changed by this session" from a real turn of the scripted
model; a file changed on disk arrives as a `files/changed` frame."""

from __future__ import annotations

import base64
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from contract.methods import FILES_READ, FILES_TREE
from tests.api.conftest import Host
from tests.api.file_turns import turn_writing, write
from tests.api.support import Frames, err, ftype, ok
from tests.support.scripted_llm import ScriptedLlmServer

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

TREE = {
    ".gitignore": "*.log\n!keep.log\nbuild/\n/secret.txt\ndocs/**/*.bak\n\\#hash\n",
    "a.py": "print(1)\n",
    "app.log": "x",
    "keep.log": "x",
    "secret.txt": "x",
    "#hash": "x",
    "build/out.o": "x",
    "build/inner/more.o": "x",
    "docs/guide.md": "x",
    "docs/a/b/old.bak": "x",
    "docs/top.bak": "x",
    "sub/.gitignore": "*.tmp\n!important.tmp\ndeep/\n",
    "sub/secret.txt": "x",
    "sub/x.tmp": "x",
    "sub/important.tmp": "x",
    "sub/deep/y.txt": "x",
    "sub/nested/z.tmp": "x",
    "sub/nested/w.tmp": "x",
    "sub/nested/.gitignore": "!z.tmp\n",
    "sub/nested/more/q.py": "x",
}


def git_env(home: Path) -> dict[str, str]:
    """No global or system configuration (no excludes file of the machine's user)."""
    return {
        **os.environ,
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
    }


def git(repo: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "-C", str(repo), *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        env=git_env(repo.parent),
    )


def make_repo(root: Path) -> None:
    for rel, text in TREE.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    assert git(root, "init", "-q", "-b", "main").returncode == 0
    git(root, "config", "user.email", "t@example.invalid")
    git(root, "config", "user.name", "Test")
    git(root, "add", ".gitignore", "sub/.gitignore", "sub/nested/.gitignore", "a.py", "docs/guide.md")
    assert git(root, "commit", "-q", "-m", "start").returncode == 0


async def walk(client: Any, sid: str, show_ignored: bool) -> dict[str, Any]:
    """Every entry of the tree, folder by folder (the pane's lazy loading, all of it)."""
    out: dict[str, Any] = {}
    todo = [""]
    while todo:
        level = await ok(
            client, FILES_TREE, {"sessionId": sid, "path": todo.pop(), "showIgnored": show_ignored}
        )
        for entry in level.entries:
            out[entry.path] = entry
            if entry.kind == "dir":
                todo.append(entry.path)
    return out


async def test_the_tree_hides_exactly_what_git_check_ignore_ignores(host: Host, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    make_repo(repo)
    client = host.client()
    sid = await host.create(repo)
    everything = await walk(client, sid, show_ignored=True)
    assert set(everything) >= {p for p in TREE if not p.endswith("/")} - set()  # every file is listed
    paths = sorted(everything)
    checked = git(repo, "check-ignore", "--stdin", stdin="\n".join(paths) + "\n")
    assert checked.returncode in (0, 1), checked.stderr
    ignored_by_git = set(checked.stdout.split())
    marked = {p for p, e in everything.items() if e.git == "ignored"}
    assert marked == ignored_by_git
    assert {
        "app.log",
        "secret.txt",
        "#hash",
        "build",
        "build/out.o",
        "sub/x.tmp",
        "sub/deep",
        "docs/a/b/old.bak",
    } <= marked
    assert not {"keep.log", "sub/secret.txt", "sub/important.tmp", "sub/nested/z.tmp"} & marked

    shown = await walk(client, sid, show_ignored=False)
    assert set(shown) == set(everything) - ignored_by_git
    assert ".git" not in everything  # version control's own folder is never listed


async def test_git_marks_and_what_the_session_changed(
    host: Host, llm: ScriptedLlmServer, tmp_path: Path
) -> None:
    repo = tmp_path / "marks"
    make_repo(repo)
    (repo / "b.py").write_text("b\n")
    (repo / "gone.py").write_text("g\n")
    (repo / "old.py").write_text("o\n")
    git(repo, "add", "b.py", "gone.py", "old.py")
    git(repo, "commit", "-q", "-m", "more")
    (repo / "a.py").write_text("print(2)\n")  # modified
    (repo / "gone.py").unlink()  # deleted
    assert git(repo, "mv", "old.py", "renamed.py").returncode == 0  # renamed
    (repo / "staged.py").write_text("s\n")
    git(repo, "add", "staged.py")  # added
    (repo / "fresh").mkdir()
    (repo / "fresh" / "n.py").write_text("n\n")  # an untracked folder

    client = host.client()
    mux = await host.mux(client)
    sid = await host.create(repo)
    await turn_writing(host, llm, client, mux, sid, write("w1", "docs/guide.md", "rewritten\n"))

    top = {e.path: e for e in (await ok(client, FILES_TREE, {"sessionId": sid})).entries}
    assert top["a.py"].git == "modified" and not top["a.py"].changed_by_session
    assert top["gone.py"].git == "deleted"
    assert top["renamed.py"].git == "renamed"
    assert top["staged.py"].git == "added"
    assert top["fresh"].git == "untracked" and top["fresh"].kind == "dir"
    assert top["b.py"].git is None
    assert top["docs"].git == "modified" and top["docs"].changed_by_session  # the turn's edit inside
    assert top["keep.log"].git == "untracked"
    value = await ok(client, FILES_TREE, {"sessionId": sid, "path": "docs"})
    assert value.repo and value.git_withheld is None
    docs = {e.path: e for e in value.entries}
    assert docs["docs/guide.md"].git == "modified" and docs["docs/guide.md"].changed_by_session
    fresh = await ok(client, FILES_TREE, {"sessionId": sid, "path": "fresh"})
    assert [(e.path, e.git) for e in fresh.entries] == [("fresh/n.py", "untracked")]


async def test_a_plain_folder_has_no_marks_and_paths_stay_inside(host: Host, tmp_path: Path) -> None:
    folder = tmp_path / "plain"
    (folder / "dir").mkdir(parents=True)
    (folder / "dir" / "f.txt").write_text("f\n")
    outside = tmp_path / "outside.txt"
    outside.write_text("secret\n")
    (folder / "out-link").symlink_to(outside)
    (folder / "in-link").symlink_to(folder / "dir")
    client = host.client()
    sid = await host.create(folder)
    value = await ok(client, FILES_TREE, {"sessionId": sid})
    assert not value.repo
    entries = {e.path: e for e in value.entries}
    assert (entries["out-link"].kind, entries["out-link"].target) == ("symlink", None)
    assert (entries["in-link"].kind, entries["in-link"].target) == ("symlink", "dir")
    through = await ok(client, FILES_TREE, {"sessionId": sid, "path": "in-link"})
    assert [e.path for e in through.entries] == ["in-link/f.txt"]
    for path in ("..", "../outside.txt", "dir/../../outside.txt", "out-link", str(outside)):
        await err(client, FILES_READ, {"sessionId": sid, "path": path}, "outside-folder")
    await err(client, FILES_TREE, {"sessionId": sid, "path": ".."}, "outside-folder")
    await err(client, FILES_READ, {"sessionId": sid, "path": "dir"}, "not-a-file")
    await err(client, FILES_TREE, {"sessionId": sid, "path": "dir/f.txt"}, "directory-unreadable")
    await err(client, FILES_READ, {"sessionId": sid, "path": "a\x00b"}, "bad-request")
    await err(client, FILES_READ, {"sessionId": sid, "path": "dir/f.txt", "startLine": 0}, "bad-request")
    await err(client, FILES_TREE, {"sessionId": "nope"}, "session-not-found")
    absolute = await ok(client, FILES_READ, {"sessionId": sid, "path": str(folder / "dir" / "f.txt")})
    assert absolute.text == "f"


async def test_read_by_range_binary_images_and_the_limits(host: Host, tmp_path: Path) -> None:
    folder = tmp_path / "files"
    folder.mkdir()
    (folder / "lines.txt").write_text("".join(f"line {i}\n" for i in range(1, 101)))
    (folder / "last.txt").write_text("one\ntwo")  # no newline at the end
    (folder / "blob.bin").write_bytes(b"\x00\x01\x02" * 100)
    png = base64.b64decode(
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
    )
    (folder / "dot.png").write_bytes(png)
    (folder / "big.txt").write_text(("x" * 99 + "\n") * 110_000)  # 11 MB
    client = host.client()
    sid = await host.create(folder)

    whole = await ok(client, FILES_READ, {"sessionId": sid, "path": "lines.txt"})
    assert (whole.start_line, whole.lines, whole.total_lines, whole.truncated, whole.binary) == (
        1,
        100,
        100,
        False,
        False,
    )
    assert whole.text.splitlines()[0] == "line 1"
    part = await ok(
        client, FILES_READ, {"sessionId": sid, "path": "lines.txt", "startLine": 41, "maxLines": 10}
    )
    assert part.text.splitlines() == [f"line {i}" for i in range(41, 51)]
    assert (part.start_line, part.lines, part.total_lines, part.truncated) == (41, 10, 100, True)
    last = await ok(client, FILES_READ, {"sessionId": sid, "path": "last.txt"})
    assert (last.text, last.total_lines) == ("one\ntwo", 2)
    blob = await ok(client, FILES_READ, {"sessionId": sid, "path": "blob.bin"})
    assert blob.binary and blob.text == "" and blob.image is None
    image = await ok(client, FILES_READ, {"sessionId": sid, "path": "dot.png"})
    assert image.image is not None
    assert image.image.mime == "image/png" and base64.b64decode(image.image.data) == png

    await err(client, FILES_READ, {"sessionId": sid, "path": "big.txt"}, "too-large")
    head = await ok(client, FILES_READ, {"sessionId": sid, "path": "big.txt", "startLine": 1, "maxLines": 50})
    assert (head.lines, head.total_lines, head.truncated) == (50, 110_000, True)
    tail = await ok(client, FILES_READ, {"sessionId": sid, "path": "big.txt", "startLine": 109_999})
    assert (tail.lines, tail.truncated) == (2, False)
    wide = await err(
        client,
        FILES_READ,
        {"sessionId": sid, "path": "big.txt", "startLine": 1, "maxLines": 20_000},
        "too-large",
    )
    assert wide.details["limit"] == 1 << 20


async def test_a_file_changed_on_disk_arrives_as_files_changed(host: Host, tmp_path: Path) -> None:
    folder = tmp_path / "watched"
    (folder / "src").mkdir(parents=True)
    client = host.client()
    mux: Frames = await host.mux(client)
    sid = await host.create(folder)
    await ok(client, FILES_TREE, {"sessionId": sid})  # the pane looks: the folder is watched
    (folder / "src" / "new.py").write_text("x = 1\n")
    _, changed = await mux.next(ftype("files/changed", sid))
    assert "src/new.py" in changed.paths or "" in changed.paths
    listed = await ok(client, FILES_TREE, {"sessionId": sid, "path": "src"})
    assert [e.path for e in listed.entries] == ["src/new.py"]
