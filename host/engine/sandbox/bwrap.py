"""The bubblewrap command line for a policy (docs/decisions.md, "Sandbox and the four modes").

The order of the mounts is the design: the whole root read-only, a fresh /dev, /proc of the
sandbox's own PID namespace, a private /tmp and /run (the host's sockets live there); then the
masks; then the read-only places (the host's installation, other worktrees); then the folder,
writable or not; then the protected entries read-only over themselves; then the masks that lie
inside a bound place once more (a folder that contains `~/.ssh` must not show it again).

What git reads as configuration or code is protected whether or not it exists yet: a missing
hooks/info/worktrees/modules folder is made empty and read-only, `.git` files are bound read-only
(docs/decisions.md, "The host's git"). A worktree session's share of the shared git directory is
bound writable after all that, its pointers read-only over it (docs/decisions.md, "Worktree
sessions"). `.git` is bound over itself so that it is a mount point: renaming it away and
planting a new `.git/config` fails with EBUSY.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from host.engine.sandbox.policy import (
    PRIVATE_ROOTS,
    SandboxPolicy,
    daemon_sockets,
    git_folders_below,
    git_pointers_below,
    inside,
    named_paths,
    protected_below,
    real,
    secret_paths,
)

BWRAP = "/usr/bin/bwrap"

ISOLATION = (
    "--unshare-user",
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    "--disable-userns",
    "--die-with-parent",
    "--new-session",
    "--cap-drop",
    "ALL",
)
"""Its own user (no nested namespaces), PID, IPC, UTS and cgroup namespaces; it dies with the
host; `--new-session` takes the controlling terminal away (no TIOCSTI); no capabilities. bwrap
always sets no-new-privileges, so a setuid binary inside gains nothing."""


def mask(path: Path) -> list[str]:
    """An empty directory over a directory, /dev/null over a file."""
    if path.is_dir():
        return ["--tmpfs", str(path)]
    return ["--ro-bind", "/dev/null", str(path)]


def masks(policy: SandboxPolicy, home: Path | None = None) -> list[Path]:
    """What is hidden inside. Below /tmp and /run only what a bound place would show again (a
    data folder inside a workspace or an installation there): the rest is gone with the host's
    /tmp already."""
    found = secret_paths(home)
    if policy.data_dir is not None and policy.data_dir.exists():
        data = real(policy.data_dir)
        if data not in found:
            found.append(data)
    found += [p for p in host_masks(policy, home) if p not in found]
    bound = [real(policy.workspace), *(real(p) for p in (*policy.readable, *policy.writable))]
    shown = [p for p in found if any(inside(p, place) for place in bound)]
    return [p for p in found if p in shown or not any(inside(p, root) for root in PRIVATE_ROOTS)]


def host_masks(policy: SandboxPolicy, home: Path | None = None) -> list[Path]:
    """What the host itself hides beyond the user's secrets (docs/threat-model.md, "The sandbox and
    the host's own secrets", "Daemon sockets"): the paths its command line named (the token file
    wherever it is, the data folder) and the local daemons' and agents' sockets."""
    return [*named_paths(policy.masked), *daemon_sockets(home)]


def private_run_dirs() -> list[str]:
    """`/var/run` as private as `/run` where it is a folder of its own rather than the usual link
    to `/run` (the system's Docker, Podman, containerd and D-Bus sockets live there)."""
    var_run = Path("/var/run")
    if var_run.is_dir() and real(var_run) != real(Path("/run")) and not inside(real(var_run), Path("/tmp")):
        return ["--tmpfs", str(real(var_run))]
    return []


def bwrap_argv(
    argv: Sequence[str], policy: SandboxPolicy, home: Path | None = None, bwrap: str = BWRAP
) -> list[str]:
    """The argv that runs `argv` under bubblewrap with `policy` (the caller keeps cwd and env:
    bwrap enters the same directory inside when it exists there)."""
    workspace = real(policy.workspace)
    hidden = masks(policy, home)
    out = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    out += ["--tmpfs", "/tmp", "--tmpfs", "/run", *private_run_dirs()]
    if policy.network:
        for resolver in (Path("/run/systemd/resolve"), Path("/run/resolvconf")):
            if resolver.is_dir():  # /etc/resolv.conf often points here
                out += ["--ro-bind", str(resolver), str(resolver)]
    readable = [p for p in map(real, policy.readable) if p.exists() and not inside(p, workspace)]
    opened = [workspace, *(real(p) for p in policy.writable)] if policy.write else [workspace]
    again = [p for p in hidden if any(inside(p, place) for place in [*opened, *readable])]
    # a mask inside a folder bound below is laid after that bind only: laid before it too, the
    # bind hid it, and each mount is time every command pays (docs/threat-model.md, "The sandbox
    # and the host's own secrets")
    out += [arg for p in hidden if p not in again for arg in mask(p)]
    # the read-only places come after the masks (a linked worktree inside the masked data
    # folder is shown again) and before the folder (one that holds the folder must not lay
    # itself over the folder's writable bind)
    for place in readable:
        out += ["--ro-bind", str(place), str(place)]
    tree_write = policy.write and not policy.tree_read_only
    out += ["--bind" if tree_write else "--ro-bind", str(workspace), str(workspace)]
    git = workspace / ".git"
    if policy.write and git.is_dir() and not git.is_symlink():
        out += ["--bind", str(git), str(git)]
    for path in protected_below(workspace) + git_pointers_below(workspace):
        out += ["--ro-bind", str(path), str(path)]
    if policy.write:
        for folder in git_folders_below(workspace):
            out += ["--tmpfs", str(folder), "--remount-ro", str(folder)]
        for place in (real(p) for p in policy.writable):
            if place.is_dir():
                out += ["--bind", str(place), str(place)]
        for path in (real(p) for p in policy.read_only):
            if path.exists():
                out += ["--ro-bind", str(path), str(path)]
    out += [arg for p in again for arg in mask(p)]
    out += list(ISOLATION)
    if not policy.network:
        out.append("--unshare-net")
    return [*out, "--", *argv]
