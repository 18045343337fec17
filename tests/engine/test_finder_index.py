"""The `@` finder's .gitignore reader and index walk on real folders (docs/architecture.md,
"The @ finder"): git's pattern grammar, rules from above the folder, the entry cap."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from host.engine.finder import index as index_module
from host.engine.finder.ignore import RuleSet, ignored, parse
from host.engine.finder.index import build


def rules(text: str) -> tuple[RuleSet, ...]:
    return (RuleSet(parse(text)),)


@pytest.mark.parametrize(
    ("pattern", "path", "is_dir", "expected"),
    [
        ("*.log", "a/b/x.log", False, True),
        ("*.log", "x.logs", False, False),
        ("/top.txt", "top.txt", False, True),
        ("/top.txt", "sub/top.txt", False, False),  # a leading slash anchors
        ("doc/*.md", "doc/a.md", False, True),
        ("doc/*.md", "doc/sub/a.md", False, False),  # * stays within a segment
        ("a/**/b", "a/b", False, True),  # zero folders
        ("a/**/b", "a/x/y/b", False, True),
        ("**/cache", "deep/er/cache", True, True),
        ("out/**", "out/a/b.js", False, True),
        ("out/**", "out", True, False),  # "out/**" is what is inside, not out itself
        ("build/", "build", True, True),
        ("build/", "build", False, False),  # a trailing slash: folders only
        ("file?.txt", "file1.txt", False, True),
        ("file?.txt", "file12.txt", False, False),
        ("[ab]*.c", "b_main.c", False, True),
        ("[!ab]*.c", "b_main.c", False, False),
        ("\\#hash", "#hash", False, True),
        ("# a comment", "# a comment", False, False),
        ("trailing.txt   ", "trailing.txt", False, True),  # unescaped trailing spaces go
        ("*.tmp\n!keep.tmp", "keep.tmp", False, False),  # the last rule wins
    ],
)
def test_gitignore_grammar(pattern: str, path: str, is_dir: bool, expected: bool) -> None:
    assert ignored(rules(pattern), path, is_dir) is expected


def test_rules_above_the_folder_apply_up_to_the_work_tree(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git" / "info").mkdir(parents=True)
    (repo / ".git" / "info" / "exclude").write_text("*.secret\n")
    (repo / ".gitignore").write_text("pkg/generated/\n")
    folder = repo / "pkg"
    for rel in ("generated/out.py", "src/a.py", "src/key.secret"):
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text("")
    (tmp_path / ".gitignore").write_text("*.py\n")  # outside the work tree: not read
    found = build(folder)
    assert found.entries == ["src/", "src/a.py"]


def test_a_huge_folder_is_cut_and_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(index_module, "MAX_ENTRIES", 10)
    for i in range(30):
        (tmp_path / f"f{i:02d}.txt").write_text("")
    cut = build(tmp_path)
    assert cut.partial is True and len(cut.entries) == 10


def test_a_name_that_is_not_utf8_is_left_out(tmp_path: Path) -> None:
    (tmp_path / "fine.txt").write_text("")
    Path(os.fsdecode(bytes(tmp_path) + b"/caf\xe9.txt")).write_text("")  # a lone surrogate once decoded
    (tmp_path / "new\nline.txt").write_text("")
    assert build(tmp_path).entries == ["fine.txt"]
