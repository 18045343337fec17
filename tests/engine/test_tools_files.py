"""read_file, write_file, edit_file, list_dir — and the path confinement every tool shares."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from contract.questions import AnswerSet, Question
from host.engine.sessions.events import NewEvent
from host.engine.tools import ToolContext, build_tools

TOOLS = build_tools()


async def _no_questions(questions: list[Question]) -> AnswerSet:
    raise AssertionError("no questions expected")


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    events: list[tuple[str, dict[str, Any]]] = []

    async def emit(new: NewEvent[Any]) -> None:
        events.append((new.type, new.data.dump()))

    work = tmp_path / "work"
    work.mkdir()
    return ToolContext(session_id="s1", cwd=work, ask_user=_no_questions, emit=emit)


async def run(name: str, ctx: ToolContext, **arguments: Any) -> Any:
    return await TOOLS[name].run(arguments, ctx)


def test_tool_set_and_approval_flags() -> None:
    assert list(TOOLS) == [
        "bash",
        "read_file",
        "write_file",
        "edit_file",
        "list_dir",
        "glob",
        "grep",
        "job_output",
        "job_stop",
        "todo_write",
        "ask_user",
        "task",
    ]
    assert {n for n, t in TOOLS.items() if t.needs_approval} == {"bash", "write_file", "edit_file"}
    for tool in TOOLS.values():
        assert tool.parameters["type"] == "object" and "$defs" not in str(tool.parameters)
        assert tool.name == tool.name.strip() and tool.description
    assert TOOLS["edit_file"].parameters["required"] == ["path", "old_string", "new_string"]


@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("read_file", {}),
        ("read_file", {"path": "a", "offset": 0}),
        ("read_file", {"file_path": "a"}),
        ("write_file", {"path": "a"}),
        ("edit_file", {"path": "a", "old_string": "", "new_string": "x"}),
        ("bash", {"command": "true", "timeout": 601}),
        ("todo_write", {"todos": [{"content": "x", "status": "done"}]}),
        ("ask_user", {"questions": []}),
    ],
)
async def test_bad_arguments_return_an_error(ctx: ToolContext, name: str, arguments: dict[str, Any]) -> None:
    out = await TOOLS[name].run(arguments, ctx)
    assert out.is_error and out.error_code == "BAD_ARGUMENTS"
    assert f"Invalid arguments for {name}" in out.content and "Expected fields" in out.content


async def test_non_object_arguments(ctx: ToolContext) -> None:
    out = await TOOLS["read_file"].run(["a"], ctx)  # type: ignore[arg-type]
    assert out.is_error and out.error_code == "BAD_ARGUMENTS"


async def test_write_then_read_with_line_numbers(ctx: ToolContext) -> None:
    out = await run("write_file", ctx, path="dir/sub/notes.txt", content="alpha\nbeta\ngamma\n")
    assert not out.is_error and out.content.startswith("Created dir/sub/notes.txt")
    assert (ctx.cwd / "dir/sub/notes.txt").read_text() == "alpha\nbeta\ngamma\n"
    out = await run("read_file", ctx, path="dir/sub/notes.txt")
    assert out.content == "     1\talpha\n     2\tbeta\n     3\tgamma"
    again = await run("write_file", ctx, path="dir/sub/notes.txt", content="new")
    assert again.content.startswith("Overwrote") and (ctx.cwd / "dir/sub/notes.txt").read_text() == "new"


async def test_write_keeps_permissions(ctx: ToolContext) -> None:
    script = ctx.cwd / "run.sh"
    script.write_text("echo old\n")
    script.chmod(0o755)
    await run("write_file", ctx, path="run.sh", content="echo new\n")
    assert script.stat().st_mode & 0o777 == 0o755
    assert [p.name for p in ctx.cwd.iterdir()] == ["run.sh"]  # no temporary file left behind


async def test_read_offset_limit_and_paging_hint(ctx: ToolContext) -> None:
    (ctx.cwd / "long.txt").write_text("".join(f"line {i}\n" for i in range(1, 101)))
    out = await run("read_file", ctx, path="long.txt", offset=10, limit=3)
    assert out.content.splitlines()[:3] == ["    10\tline 10", "    11\tline 11", "    12\tline 12"]
    assert "showing lines 10-12 of 100; use offset=13" in out.content
    past = await run("read_file", ctx, path="long.txt", offset=500)
    assert past.is_error and "only 100 lines" in past.content


async def test_read_caps_long_lines_and_refuses_binary(ctx: ToolContext) -> None:
    (ctx.cwd / "wide.txt").write_text("x" * 5000 + "\n")
    out = await run("read_file", ctx, path="wide.txt")
    assert len(out.content) < 2100 and "line cut, 5000 characters" in out.content
    (ctx.cwd / "blob.bin").write_bytes(b"\x89PNG\x00\x01\x02")
    out = await run("read_file", ctx, path="blob.bin")
    assert out.is_error and out.error_code == "BINARY_FILE"
    missing = await run("read_file", ctx, path="nope.txt")
    assert missing.error_code == "NOT_FOUND"
    (ctx.cwd / "empty.txt").write_text("")
    assert (await run("read_file", ctx, path="empty.txt")).content == "(empty file: empty.txt)"
    assert (await run("read_file", ctx, path=".")).error_code == "IS_DIRECTORY"


async def test_edit_unique_ambiguous_missing_and_replace_all(ctx: ToolContext) -> None:
    target = ctx.cwd / "code.py"
    target.write_text("a = 1\nb = 1\nprint(a)\n")
    out = await run("edit_file", ctx, path="code.py", old_string="print(a)", new_string="print(a, b)")
    assert not out.is_error and out.content == "Replaced 1 occurrence in code.py."
    assert target.read_text() == "a = 1\nb = 1\nprint(a, b)\n"

    ambiguous = await run("edit_file", ctx, path="code.py", old_string="= 1", new_string="= 2")
    assert ambiguous.is_error and ambiguous.error_code == "AMBIGUOUS" and "2 times" in ambiguous.content
    assert target.read_text() == "a = 1\nb = 1\nprint(a, b)\n"

    missing = await run("edit_file", ctx, path="code.py", old_string="c = 3", new_string="c = 4")
    assert missing.is_error and missing.error_code == "NOT_FOUND"

    every = await run("edit_file", ctx, path="code.py", old_string="= 1", new_string="= 2", replace_all=True)
    assert every.content == "Replaced 2 occurrences in code.py."
    assert target.read_text() == "a = 2\nb = 2\nprint(a, b)\n"

    same = await run("edit_file", ctx, path="code.py", old_string="a", new_string="a")
    assert same.error_code == "BAD_ARGUMENTS"
    nofile = await run("edit_file", ctx, path="other.py", old_string="a", new_string="b")
    assert nofile.error_code == "NOT_FOUND"


async def test_list_dir(ctx: ToolContext) -> None:
    (ctx.cwd / "src").mkdir()
    (ctx.cwd / "b.txt").write_text("b")
    (ctx.cwd / ".hidden").write_text("h")
    os.symlink("b.txt", ctx.cwd / "link")
    out = await run("list_dir", ctx)
    assert out.content.splitlines() == ["./ (4 entries)", "src/", ".hidden", "b.txt", "link -> b.txt"]
    assert (await run("list_dir", ctx, path="src")).content == "src/ is empty."
    assert (await run("list_dir", ctx, path="b.txt")).error_code == "NOT_A_DIRECTORY"
    assert (await run("list_dir", ctx, path="missing")).error_code == "NOT_FOUND"


@pytest.mark.parametrize(
    ("name", "extra"),
    [
        ("read_file", {}),
        ("write_file", {"content": "x"}),
        ("edit_file", {"old_string": "a", "new_string": "b"}),
        ("list_dir", {}),
        ("glob", {"pattern": "*"}),
        ("grep", {"pattern": "x"}),
    ],
)
@pytest.mark.parametrize("where", ["dotdot", "absolute", "symlink-dir", "symlink-file"])
async def test_paths_cannot_escape_cwd(
    ctx: ToolContext, name: str, extra: dict[str, Any], where: str
) -> None:
    outside = ctx.cwd.parent / "outside"
    outside.mkdir(exist_ok=True)
    (outside / "secret.txt").write_text("a secret\n")
    os.symlink(outside, ctx.cwd / "escape_dir")
    os.symlink(outside / "secret.txt", ctx.cwd / "escape_file")
    path = {
        "dotdot": "../outside/secret.txt",
        "absolute": str(outside / "secret.txt"),
        "symlink-dir": "escape_dir/secret.txt",
        "symlink-file": "escape_file",
    }[where]
    if name in ("list_dir", "glob") or (name == "grep" and where == "symlink-dir"):
        path = {
            "dotdot": "..",
            "absolute": str(outside),
            "symlink-dir": "escape_dir",
            "symlink-file": "escape_dir",
        }[where]
    out = await TOOLS[name].run({"path": path, **extra}, ctx)
    assert out.is_error and out.error_code == "PATH_ESCAPE", out.content
    assert "secret" not in out.content.replace("secret.txt", "")
    assert (outside / "secret.txt").read_text() == "a secret\n"
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]


async def test_inside_paths_with_dotdot_and_absolute_are_fine(ctx: ToolContext) -> None:
    (ctx.cwd / "a").mkdir()
    (ctx.cwd / "b.txt").write_text("bee\n")
    assert (await run("read_file", ctx, path="a/../b.txt")).content == "     1\tbee"
    assert (await run("read_file", ctx, path=str(ctx.cwd / "b.txt"))).content == "     1\tbee"
