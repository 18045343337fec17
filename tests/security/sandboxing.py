"""Helpers for the sandbox escape tests: a project folder, a fake home with secrets outside /tmp
(the sandbox's /tmp is private, so a secret under /tmp would be hidden for the wrong reason), and
running a command under `wrap()` as root or as the unprivileged user `nobody`."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from host.engine.sandbox import SandboxPolicy, support, wrap

NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"]
SECRET = "PRIVATE-KEY-MATERIAL-7d1c"
PY = "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) else sys.executable
"""A Python nobody can run (stdlib only): the scripts run inside need nothing else."""

needs_sandbox = pytest.mark.skipif(not support().available, reason="no sandbox on this machine")


@dataclass
class Box:
    """One project, its outside, a home with secrets and a data folder, all readable by nobody."""

    root: Path
    workspace: Path
    outside: Path
    home: Path
    data_dir: Path
    user: str

    def policy(self, **changes: object) -> SandboxPolicy:
        fields: dict[str, object] = {"workspace": self.workspace, "data_dir": self.data_dir}
        fields.update(changes)
        return SandboxPolicy(**fields)  # type: ignore[arg-type]

    def run(
        self, script: str, policy: SandboxPolicy | None = None, stdin: int | None = subprocess.DEVNULL
    ) -> subprocess.CompletedProcess[str]:
        """`script` with /bin/sh inside the sandbox, from the project folder."""
        return self.exec(["/bin/sh", "-c", script], policy, stdin)

    def exec(
        self, argv: Sequence[str], policy: SandboxPolicy | None = None, stdin: int | None = subprocess.DEVNULL
    ) -> subprocess.CompletedProcess[str]:
        wrapped = wrap(list(argv), policy or self.policy())
        prefix = NOBODY if self.user == "nobody" else []
        return subprocess.run(
            [*prefix, *wrapped],
            cwd=self.workspace,
            stdin=stdin,
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, "HOME": str(self.home)},
        )


def users() -> list[str]:
    """As root and, where it matters, as an unprivileged user too."""
    return ["root", "nobody"] if os.geteuid() == 0 and shutil.which("setpriv") else ["self"]


def open_box(user: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[Box]:
    root = Path(tempfile.mkdtemp(prefix="harnessdesk-sbx-", dir="/var/tmp"))
    try:
        workspace, outside, home, data = (root / n for n in ("project", "outside", "home", "data"))
        for d in (workspace, outside, home / ".ssh", home / ".aws", data, workspace / ".git" / "hooks"):
            d.mkdir(parents=True)
        (home / ".ssh" / "id_ed25519").write_text(SECRET)
        (home / ".aws" / "credentials").write_text(SECRET)
        (home / ".netrc").write_text(SECRET)
        (data / "credentials.json").write_text(SECRET)
        (outside / "notes.txt").write_text("outside")
        (workspace / ".git" / "config").write_text("[core]\n")
        (workspace / "AGENTS.md").write_text("be nice\n")
        (workspace / ".mcp.json").write_text("{}\n")
        (workspace / "main.py").write_text("print('hi')\n")
        for dirpath, _dirnames, filenames in os.walk(root):
            os.chmod(dirpath, 0o777)
            for name in filenames:
                os.chmod(os.path.join(dirpath, name), 0o666)
        os.chmod(root, 0o755)
        monkeypatch.setenv("HOME", str(home))  # the masks are worked out from the host's home
        yield Box(root, workspace, outside, home, data, user)
    finally:
        shutil.rmtree(root, ignore_errors=True)
