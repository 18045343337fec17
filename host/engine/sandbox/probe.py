"""Which sandbox this machine offers, probed once per process by running it (a bwrap that is
installed can still be refused by the kernel: user namespaces off, a container without them)."""

from __future__ import annotations

import os
import subprocess
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path

from host.engine.sandbox.bwrap import BWRAP, bwrap_argv
from host.engine.sandbox.git_guard import move_planted_commondir
from host.engine.sandbox.policy import SandboxPolicy, SandboxSupport, SandboxUnavailable

FORCE_ENV = "HARNESSDESK_SANDBOX"
"""`none` (or `landlock`) makes this host offer less than it could, never more: for a machine
where a working mechanism misbehaves, and for tests of the unavailable path."""
PROBE_TIMEOUT = 20.0

_lock = threading.Lock()
_cached: SandboxSupport | None = None


def _bwrap_version(path: str) -> str:
    try:
        done = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=PROBE_TIMEOUT)
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.strip().removeprefix("bubblewrap ").strip() if done.returncode == 0 else ""


def probe_bwrap(path: str = BWRAP) -> SandboxSupport:
    """bubblewrap, if it is installed and a real run of the full policy succeeds here."""
    if not os.access(path, os.X_OK):
        return SandboxSupport("none", f"bubblewrap is not installed ({path} is missing).")
    version = _bwrap_version(path) or "(unknown version)"
    with tempfile.TemporaryDirectory(prefix="harnessdesk-probe-") as tmp:
        argv = bwrap_argv(["/bin/sh", "-c", "exit 0"], SandboxPolicy(Path(tmp)), bwrap=path)
        try:
            done = subprocess.run(argv, capture_output=True, text=True, timeout=PROBE_TIMEOUT, cwd=tmp)
        except (OSError, subprocess.SubprocessError) as exc:
            return SandboxSupport("none", f"bubblewrap {version} at {path} could not start: {exc}.")
    if done.returncode != 0:
        why = (done.stderr.strip().splitlines() or ["it failed"])[-1]
        return SandboxSupport("none", f"bubblewrap {version} at {path} cannot run here: {why}.")
    return SandboxSupport("bwrap", f"bubblewrap {version} at {path}")


def _probe() -> SandboxSupport:
    forced = os.environ.get(FORCE_ENV, "").strip().lower()
    if forced == "none":
        return SandboxSupport("none", f"The sandbox is turned off on this machine ({FORCE_ENV}=none).")
    return probe_bwrap()


def support() -> SandboxSupport:
    """What this machine offers, probed once per process (then cached)."""
    global _cached
    with _lock:
        if _cached is None:
            _cached = _probe()
        return _cached


def reset_support() -> None:
    """Probe again on the next `support()` (tests; a package installed while the host runs)."""
    global _cached
    with _lock:
        _cached = None


def wrap(argv: Sequence[str], policy: SandboxPolicy) -> list[str]:
    """The argv to exec instead of `argv` so that it runs inside the sandbox (a `commondir` an
    earlier run planted in the folder's `.git` is moved aside first: `git_guard`)."""
    found = support()
    if found.kind == "bwrap":
        move_planted_commondir(policy.workspace)
        return bwrap_argv(argv, policy)
    raise SandboxUnavailable(f"No sandbox is available on this machine: {found.reason}")
