"""Places below /tmp bound into the sandbox — the host's own installation, an MCP server's
folder, another worktree — show what they hold read-only, never the data folder inside them, and
never lay themselves over the writable folder (host/engine/sandbox/bwrap.py). The sandbox's /tmp
is a fresh one, so without the bind a checkout or a bundle unpacked below /tmp could not run its
own interpreter or language servers inside."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from host.engine.sandbox import Confinement, SandboxPolicy, wrap
from host.engine.sandbox.policy import installation_places
from tests.security.sandboxing import PY, SECRET, needs_sandbox, sandbox_on

__all__ = ["sandbox_on"]

pytestmark = [needs_sandbox, pytest.mark.usefixtures("sandbox_on")]


def fresh(root: str) -> Path:
    place = Path(tempfile.mkdtemp(prefix="harnessdesk-places-", dir=root))
    place.chmod(0o755)
    return place


@pytest.fixture
def below_tmp() -> Iterator[Path]:
    place = fresh("/tmp")
    yield place
    shutil.rmtree(place, ignore_errors=True)


@pytest.fixture
def project() -> Iterator[Path]:
    place = fresh("/var/tmp")
    yield place
    shutil.rmtree(place, ignore_errors=True)


def run(argv: Sequence[str], policy: SandboxPolicy, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        wrap(list(argv), policy),
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def test_a_place_below_tmp_shows_read_only_and_the_data_folder_inside_it_stays_masked(
    below_tmp: Path, project: Path
) -> None:
    (below_tmp / "tool.txt").write_text("tool-contents\n")
    data = below_tmp / "data"
    data.mkdir()
    (data / "credentials.json").write_text(SECRET)
    policy = SandboxPolicy(project, data_dir=data, readable=(below_tmp,))
    done = run(
        ["/bin/sh", "-c", f"cat {below_tmp}/tool.txt; cat {data}/credentials.json; echo x > {below_tmp}/new"],
        policy,
        project,
    )
    assert "tool-contents" in done.stdout, done.stderr
    assert SECRET not in done.stdout + done.stderr
    assert not (below_tmp / "new").exists()


def test_a_place_that_holds_the_folder_leaves_the_folder_writable(below_tmp: Path) -> None:
    workspace = below_tmp / "project"
    workspace.mkdir()
    done = run(
        ["/bin/sh", "-c", "echo made > made.txt; echo no > ../beside.txt"],
        SandboxPolicy(workspace, readable=(below_tmp,)),
        workspace,
    )
    assert (workspace / "made.txt").read_text() == "made\n", done.stderr
    assert not (below_tmp / "beside.txt").exists()


def test_the_hosts_installation_below_tmp_runs_inside_and_nothing_else_of_tmp_shows(
    below_tmp: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    venv = below_tmp / "venv"
    subprocess.run([PY, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    neighbour = fresh("/tmp")
    try:
        (neighbour / "other.txt").write_text("someone else's\n")
        monkeypatch.setattr(sys, "prefix", str(venv))
        monkeypatch.setattr(sys, "exec_prefix", str(venv))
        monkeypatch.setattr(sys, "base_prefix", "/usr")
        assert installation_places() == (venv,)
        policy = Confinement(project / "data").policy(project)
        assert venv in policy.readable
        script = f"import sys; print(sys.prefix); print(open('{neighbour}/other.txt').read())"
        done = run([str(venv / "bin" / "python"), "-c", script], policy, project)
        assert done.stdout.startswith(f"{venv}\n"), done.stderr
        assert "someone else's" not in done.stdout and "No such file" in done.stderr
        bare = run(
            [str(venv / "bin" / "python"), "-c", "print(1)"],
            Confinement(installation=()).policy(project),
            project,
        )
        assert bare.returncode != 0 and "No such file" in bare.stderr
    finally:
        shutil.rmtree(neighbour, ignore_errors=True)
