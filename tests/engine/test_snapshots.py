"""Snapshots around the steps that can change files, and their disk budget (docs/architecture.md,
"Snapshots"), on real engines: a real SQLite file and the real shadow git repositories."""

from __future__ import annotations

import os
import random
import stat
import subprocess
from pathlib import Path
from typing import Any

from host.engine.files.snapshots import rows
from host.engine.tools.base import ToolOutput

MIB = 1 << 20
TURNS = int(os.environ.get("HARNESSDESK_BUDGET_TURNS", "200"))


def disk(folder: Path) -> int:
    """Bytes of every file under `folder` (what the snapshots really take on disk): one `stat`
    per entry (`os.walk`, not `rglob` with `is_file` and `stat`: it runs 600 times)."""
    total = 0
    for top, _dirs, names in os.walk(folder):
        for name in names:
            info = os.stat(os.path.join(top, name))
            total += info.st_size if stat.S_ISREG(info.st_mode) else 0
    return total


def ten_mb(rng: random.Random) -> bytes:
    """10 MB whose first 64 KiB are random (every turn's file is new content, ~70 KB on disk
    once compressed) and the rest zeros: the budget is exercised in a small setting at a cost
    the shared test machine can pay for 200 turns."""
    return rng.randbytes(64 << 10).ljust(10_000_000, b"\0")


def writer(path: Path, data: bytes) -> Any:
    async def run() -> ToolOutput:
        path.write_bytes(data)  # noqa: ASYNC240 (the step: a tool writing a file)
        return ToolOutput("wrote it")

    return run


async def test_200_turns_of_10_mb_each_stay_within_the_budget_and_the_newest_stay_revertable(
    engine_factory: Any, tmp_path: Path
) -> None:
    engine = await engine_factory()
    await engine.config.update_settings("undo", {"workspaceBudgetMb": 1, "totalBudgetMb": 2}, None)
    rng = random.Random(28)
    folders = [tmp_path / "one", tmp_path / "two"]
    for folder in folders:
        folder.mkdir()
        (folder / "big.bin").write_bytes(b"start\n")
    previous = {f: b"start\n" for f in folders}
    kept: dict[tuple[Path, int], bytes] = {}
    root = engine.parts.data_dir / "snapshots"
    for turn in range(TURNS):
        folder = folders[turn % 2]
        data = ten_mb(rng)
        step = writer(folder / "big.bin", data)
        out = await engine.files.snapshots.around(f"s-{folder.name}", folder, turn, step)
        assert [c.path for c in out.changes] == ["big.bin"]
        kept[(folder, turn)] = previous[folder]
        previous[folder] = data
        repos = [p for p in root.iterdir() if p.is_dir()]
        assert all(disk(p / "git" / "objects") <= MIB for p in repos), [disk(p) for p in repos]
        assert disk(root) <= 2 * MIB, disk(root)
    for folder in folders:
        mine = sorted(t for f, t in kept if f == folder)
        for turn in mine[-2:]:  # the newest turns of each folder: their earlier content is there
            row = await engine.files.snapshots.kept(f"s-{folder.name}", turn, "big.bin")
            assert row is not None and await engine.files.snapshots.content(row) == kept[(folder, turn)]
        assert len(mine) == TURNS // 2
        for turn in mine[: len(mine) // 2]:  # the oldest were pruned first
            assert await engine.files.snapshots.kept(f"s-{folder.name}", turn, "big.bin") is None
    usage = await engine.files.snapshots.usage()
    assert sorted(u.path for u in usage) == sorted(str(f.resolve()) for f in folders)
    assert sum(u.bytes for u in usage) <= 2 * MIB and all(u.turns >= 2 for u in usage)


async def test_gitignored_build_output_large_and_nested_repository_files_are_never_kept(
    engine_factory: Any, tmp_path: Path
) -> None:
    engine = await engine_factory()
    await engine.config.update_settings("undo", {"maxFileMb": 1}, None)
    work = tmp_path / "w"
    (work / "node_modules" / "x").mkdir(parents=True)
    (work / "vendor").mkdir()
    subprocess.run(["git", "init", "-q", str(work / "vendor")], check=True)  # noqa: ASYNC221
    (work / ".gitignore").write_text("secret.env\n")

    async def run() -> ToolOutput:
        (work / "secret.env").write_text("TOKEN=1\n")
        (work / "node_modules" / "x" / "i.js").write_text("1\n")
        (work / "vendor" / "v.c").write_text("int v;\n")
        (work / "huge.bin").write_bytes(b"\1" * (2 * MIB))
        (work / "app.py").write_text("print(1)\n")
        return ToolOutput("ok")

    out = await engine.files.snapshots.around("s", work, 0, run)
    assert [c.path for c in out.changes] == ["app.py"]
    assert not (work / ".git").exists()  # the person's folder gets no repository of ours
    assert (engine.parts.data_dir / "snapshots").stat().st_mode & 0o077 == 0  # copies: the owner's only


async def test_changes_made_outside_a_step_are_not_the_steps(engine_factory: Any, tmp_path: Path) -> None:
    engine = await engine_factory()
    work = tmp_path / "w"
    work.mkdir()
    (work / "a.txt").write_text("1\n")
    await engine.files.snapshots.around("s", work, 0, writer(work / "b.txt", b"b\n"))
    (work / "a.txt").write_text("edited by the person\n")  # between steps
    out = await engine.files.snapshots.around("s", work, 1, writer(work / "c.txt", b"c\n"))
    assert [c.path for c in out.changes] == ["c.txt"]


async def test_free_space_deletes_every_snapshot_and_the_next_step_starts_afresh(
    engine_factory: Any, tmp_path: Path
) -> None:
    engine = await engine_factory()
    work = tmp_path / "w"
    work.mkdir()
    (work / "a.txt").write_bytes(random.Random(1).randbytes(MIB))
    await engine.files.snapshots.around("s", work, 0, writer(work / "a.txt", b"short\n"))
    assert await engine.files.snapshots.kept("s", 0, "a.txt") is not None
    [usage] = await engine.files.snapshots.usage()
    assert usage.bytes > MIB // 2
    freed = await engine.files.snapshots.free()
    assert freed == usage.bytes and await engine.files.snapshots.usage() == []
    assert await engine.files.snapshots.kept("s", 0, "a.txt") is None
    out = await engine.files.snapshots.around("s", work, 1, writer(work / "a.txt", b"again\n"))
    assert [c.path for c in out.changes] == ["a.txt"]


async def test_a_folder_too_large_to_snapshot_turns_its_snapshots_off_and_says_so(
    engine_factory: Any, tmp_path: Path, monkeypatch: Any
) -> None:
    from host.engine.files.snapshots import repo as shadow

    engine = await engine_factory()
    many = tmp_path / "many"
    many.mkdir()
    for n in range(8):
        (many / f"f{n}.txt").write_text(f"{n}\n")
    monkeypatch.setattr(shadow, "MAX_PATHS", 5)
    out = await engine.files.snapshots.around("s", many, 0, writer(many / "f0.txt", b"changed\n"))
    assert out.changes is None  # the step ran, without snapshots, and says so (issue 40)
    assert out.snapshot_error == "snapshots of this folder are off: more than 5 files to snapshot at once"
    out = await engine.files.snapshots.around("s", many, 1, writer(many / "f1.txt", b"changed\n"))
    assert out.snapshot_error == "snapshots of this folder are off: more than 5 files to snapshot at once"
    await engine.config.update_settings("undo", {"workspaceBudgetMb": 1}, None)
    big = tmp_path / "big"
    big.mkdir()
    (big / "data.bin").write_bytes(random.Random(2).randbytes(2 * MIB))
    out = await engine.files.snapshots.around("s", big, 0, writer(big / "other.txt", b"x\n"))
    assert out.changes is None
    assert out.snapshot_error == (
        "snapshots of this folder are off: its files alone take more than the space per folder"
    )
    notes = {u.path: u.note for u in await engine.files.snapshots.usage()}
    assert notes == {
        str(many.resolve()): "shell changes are not kept: more than 5 files to snapshot at once",
        str(big.resolve()): "shell changes are not kept: its files alone take more than the space per folder",
    }
    assert not any((engine.parts.data_dir / "snapshots").iterdir())  # nothing of theirs is kept
    await engine.config.update_settings("undo", {"workspaceBudgetMb": 8}, None)  # more room: on again
    out = await engine.files.snapshots.around("s", big, 1, writer(big / "other.txt", b"y\n"))
    assert [c.path for c in out.changes] == ["other.txt"] and out.snapshot_error is None


async def test_a_step_runs_five_git_processes_and_a_touched_file_or_an_odd_name_is_right(
    engine_factory: Any, tmp_path: Path, monkeypatch: Any
) -> None:
    engine = await engine_factory()
    work = tmp_path / "w"
    work.mkdir()
    for name in ("same.txt", "edited.txt", "0:odd.txt", "gone.txt"):
        (work / name).write_text(f"{name} first\n")
    await engine.files.snapshots.around("s", work, 0, writer(work / "first.txt", b"1\n"))  # the first look
    spawned: list[str] = []
    real = subprocess.run

    def counting(args: Any, *rest: Any, **kw: Any) -> Any:
        if args[:1] == ["git"]:
            words = iter(args[1:])
            spawned.append(next(w for w in words if w != "-c" or next(words) is None))
        return real(args, *rest, **kw)

    monkeypatch.setattr(subprocess, "run", counting)

    async def step() -> ToolOutput:
        os.utime(work / "same.txt", (1_000_000_000, 1_000_000_000))  # touched: new stat, same content
        (work / "edited.txt").write_text("EDITED.TXT FIRST\n")  # the same size
        (work / "0:odd.txt").write_text("a name git could read as a stage\n")
        (work / "gone.txt").unlink()
        (work / "new.txt").write_text("new\n")
        return ToolOutput("ok")

    out = await engine.files.snapshots.around("s", work, 1, step)
    assert sorted(c.path for c in out.changes) == ["0:odd.txt", "edited.txt", "gone.txt", "new.txt"]
    # before: ls-files; after: diff-files, ls-files -o, update-index (kept, then removed), cat-file
    assert spawned == ["ls-files", "diff-files", "ls-files", "update-index", "update-index", "cat-file"]
    for name in ("edited.txt", "0:odd.txt", "gone.txt"):
        row = await engine.files.snapshots.kept("s", 1, name)
        assert row is not None and await engine.files.snapshots.content(row) == f"{name} first\n".encode()
    assert await engine.files.snapshots.kept("s", 1, "new.txt") == rows.Kept(None, None, row.repo)
    spawned.clear()
    out = await engine.files.snapshots.around("s", work, 2, writer(work / "edited.txt", b"again\n"))
    assert [c.path for c in out.changes] == ["edited.txt"]  # the touched file was taken in once
    assert spawned == ["ls-files", "diff-files", "ls-files", "update-index", "cat-file"]
