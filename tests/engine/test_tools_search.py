"""glob and grep."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from contract.questions import AnswerSet, Question
from host.engine.sessions.events import NewEvent
from host.engine.tools import ToolContext, build_tools
from host.engine.tools.search import MAX_GLOB_RESULTS, MAX_GREP_MATCHES, glob_regex

TOOLS = build_tools()


async def _no_questions(questions: list[Question]) -> AnswerSet:
    raise AssertionError("no questions expected")


async def _no_events(new: NewEvent[Any]) -> None:
    raise AssertionError("no events expected")


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    root = tmp_path / "repo"
    files = {
        "README.md": "# Demo\nTODO: write docs\n",
        "src/app.py": "import os\n\ndef main():\n    # TODO: handle errors\n    return os.getcwd()\n",
        "src/util/helpers.py": "def helper():\n    return 42\n",
        "src/web/index.ts": "export const todo = 1;\n",
        "tests/test_app.py": "def test_main():\n    assert True\n",
        ".git/config": "TODO inside git\n",
    }
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (root / "src/logo.png").write_bytes(b"\x89PNG\r\n\x00\x00TODO")
    return ToolContext(session_id="s", cwd=root, ask_user=_no_questions, emit=_no_events)


async def run(name: str, ctx: ToolContext, **arguments: Any) -> Any:
    return await TOOLS[name].run(arguments, ctx)


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    [
        ("**/*.py", "a.py", True),
        ("**/*.py", "x/y/a.py", True),
        ("*.py", "x/a.py", False),
        ("src/**", "src/a/b.c", True),
        ("src/*.ts", "src/web/a.ts", False),
        ("?.md", "a.md", True),
        ("[ab].txt", "b.txt", True),
        ("[!ab].txt", "b.txt", False),
        ("a+b.txt", "a+b.txt", True),
    ],
)
def test_glob_regex(pattern: str, path: str, matches: bool) -> None:
    assert bool(glob_regex(pattern).match(path)) is matches


async def test_glob_recursive_and_scoped(ctx: ToolContext) -> None:
    out = await run("glob", ctx, pattern="**/*.py")
    assert out.content.splitlines() == ["src/app.py", "src/util/helpers.py", "tests/test_app.py"]
    scoped = await run("glob", ctx, pattern="*.py", path="src")
    assert scoped.content.splitlines() == ["src/app.py"]
    assert (await run("glob", ctx, pattern="**/config")).content.startswith("No files match")
    assert (await run("glob", ctx, pattern="src/web/*.ts")).content == "src/web/index.ts"


async def test_glob_rejects_escaping_patterns(ctx: ToolContext) -> None:
    out = await run("glob", ctx, pattern="../*")
    assert out.is_error and out.error_code == "PATH_ESCAPE"
    out = await run("glob", ctx, pattern="/etc/*")
    assert out.is_error and out.error_code == "BAD_ARGUMENTS"


async def test_glob_caps_results(ctx: ToolContext) -> None:
    many = ctx.cwd / "many"
    many.mkdir()
    for i in range(MAX_GLOB_RESULTS + 20):
        (many / f"f{i:04}.txt").write_text("")
    out = await run("glob", ctx, pattern="many/*.txt")
    lines = out.content.splitlines()
    assert len([ln for ln in lines if ln.startswith("many/")]) == MAX_GLOB_RESULTS
    assert f"stopped at {MAX_GLOB_RESULTS} files" in out.content


async def test_grep_finds_lines_skips_binary_and_git(ctx: ToolContext) -> None:
    out = await run("grep", ctx, pattern="TODO")
    assert out.content.splitlines() == [
        "README.md:2: TODO: write docs",
        "src/app.py:4:     # TODO: handle errors",
    ]
    insensitive = await run("grep", ctx, pattern="(?i)todo", glob="*.ts")
    assert insensitive.content == "src/web/index.ts:1: export const todo = 1;"
    by_path = await run("grep", ctx, pattern="def ", glob="src/**/*.py")
    assert by_path.content.splitlines() == [
        "src/app.py:3: def main():",
        "src/util/helpers.py:1: def helper():",
    ]
    one_file = await run("grep", ctx, pattern=r"return \d+", path="src/util/helpers.py")
    assert one_file.content == "src/util/helpers.py:2:     return 42"
    none = await run("grep", ctx, pattern="nothing-like-this")
    assert not none.is_error and none.content.startswith("No matches") and "1 binary" in none.content


async def test_grep_bad_regex_and_missing_path(ctx: ToolContext) -> None:
    out = await run("grep", ctx, pattern="(unclosed")
    assert out.is_error and out.error_code == "BAD_ARGUMENTS" and "Invalid regular expression" in out.content
    missing = await run("grep", ctx, pattern="x", path="nope")
    assert missing.is_error and missing.error_code == "NOT_FOUND"


async def test_grep_caps_matches_and_long_lines(ctx: ToolContext) -> None:
    (ctx.cwd / "big.txt").write_text(
        "".join(f"hit {i} " + "y" * 1000 + "\n" for i in range(MAX_GREP_MATCHES + 50))
    )
    out = await run("grep", ctx, pattern="^hit", path="big.txt")
    hits = [ln for ln in out.content.splitlines() if ln.startswith("big.txt:")]
    assert len(hits) == MAX_GREP_MATCHES
    assert all(len(ln) < 350 and ln.endswith("…") for ln in hits)
    assert f"stopped at {MAX_GREP_MATCHES} matches" in out.content


async def test_grep_ignores_symlinks_leading_outside(ctx: ToolContext, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TODO secret outside\n")
    os.symlink(secret, ctx.cwd / "sneaky.txt")
    out = await run("grep", ctx, pattern="secret outside")
    assert out.content.startswith("No matches")
