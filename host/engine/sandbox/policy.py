"""What a sandbox allows (the policy), what this machine offers (the support), and the paths both
mechanisms treat specially: the folder's protected entries and the user's secrets."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

SandboxKind = Literal["bwrap", "landlock", "none"]

GIT_PROTECTED = ("config", "config.worktree", "hooks", "info", "commondir", "worktrees", "modules")
"""Inside a folder's `.git` directory, what git reads as configuration or code: its config, the
hooks, `info/attributes`, the `commondir` pointer (whose target's config and hooks then apply), and
the git directories of linked worktrees and submodules (docs/decisions.md, "The host's git")."""
GIT_MADE_FOLDERS = ("hooks", "info", "worktrees", "modules")
"""Of those, the folders the sandbox makes (empty, read-only) when they are missing, so nothing
can be planted there either; an empty one is what git itself would make. A missing `commondir`
cannot be made harmlessly (git refuses an empty one): the host's git never trusts one it finds
(`host/engine/files/git/config_scan.py`)."""
PROTECTED_ENTRIES = (".harnessdesk", ".mcp.json", "AGENTS.md", *(f".git/{name}" for name in GIT_PROTECTED))
"""Inside the folder and read-only even when it is writable: what git, HarnessDesk or the next
session would run or read as instructions (a planted hook runs on the user's next commit)."""
FILE_TOOL_PROTECTED = (*PROTECTED_ENTRIES, ".git")
"""What the file tools may not write: the protected entries, and anything else of `.git` (a file
tool has no business there; git itself, in the sandbox, keeps working)."""
MAX_SUBMODULES = 200

SECRET_PATHS = (
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".kube",
    ".docker/config.json",
    ".netrc",
    ".git-credentials",
    ".npmrc",
    ".pypirc",
    ".config/gh",
    ".config/gcloud",
    ".config/git/credentials",
    ".local/share/keyrings",
    ".password-store",
    ".mozilla",
    ".config/google-chrome",
    ".config/chromium",
    ".config/BraveSoftware",
    ".config/harnessdesk",
)
"""Below the home folder: credentials, keyrings and browser profiles, masked inside."""


@dataclass(frozen=True)
class SandboxPolicy:
    """One sandboxed run: `workspace` is the one writable place (plus a private /tmp)."""

    workspace: Path
    write: bool = True
    """False: everything read-only (the read-only mode)."""
    network: bool = False
    """False: no network at all, not even the host's own loopback server."""
    data_dir: Path | None = None
    """HarnessDesk's data folder: masked inside (the database, credentials, other sessions)."""
    readable: tuple[Path, ...] = ()
    """Places outside `workspace` bound read-only over the masks and the private /tmp (the git
    directory of a linked worktree, for the host's own git)."""
    writable: tuple[Path, ...] = ()
    """Places outside `workspace` bound writable over the masks and the protected entries: what
    git writes for a linked worktree in the shared git directory (`objects/`, `refs/`, `logs/`,
    its own `worktrees/<name>/`), and what `git worktree add/remove` changes (docs/decisions.md,
    "Worktree sessions"). Only with `write`."""
    read_only: tuple[Path, ...] = ()
    """Existing files bound read-only over the writable places (a worktree's `commondir` and
    `gitdir` pointers)."""
    masked: tuple[Path, ...] = ()
    """More files and folders masked inside: what the host's command line named (the token file
    above all) — docs/threat-model.md, "The sandbox and the host's own secrets"."""
    tree_read_only: bool = False
    """With `write`: the folder itself stays read-only and only its `.git` folder and `writable`
    are opened (the review pane's staging writes the index and objects, never a file;
    docs/decisions/review-pane.md)."""


def _nothing() -> None:
    return None


PRIVATE_ROOTS = (Path("/tmp"), Path("/run"))
"""Where the sandbox shows a fresh, empty folder instead of the host's (bwrap.py)."""


def private_root_of(path: Path) -> Path | None:
    """The /tmp or /run that `path` lies below (never itself): what the sandbox's fresh one
    hides unless it is bound in."""
    return next((root for root in PRIVATE_ROOTS if path != root and path.is_relative_to(root)), None)


def installation_places() -> tuple[Path, ...]:
    """The host's own Python installation where it lies below /tmp or /run (a checkout or a
    PyInstaller bundle unpacked there): bound read-only into every sandbox, or the fresh /tmp
    hides the interpreter and the language servers installed beside it ("bwrap: execvp
    /tmp/…/.venv/bin/pylsp: No such file"). Nothing the agent can write: the workspace is never
    one of these, and masks inside them are laid again (docs/threat-model.md, "The sandbox and
    the host's own secrets")."""
    found: list[Path] = []
    for prefix in (sys.prefix, sys.base_prefix, sys.exec_prefix):
        for path in (Path(os.path.abspath(prefix)), real(Path(prefix))):
            if private_root_of(path) is not None and path not in found:
                found.append(path)
    return tuple(found)


@dataclass(frozen=True)
class Confinement:
    """What every sandbox this host starts hides, and whom it tells that one with network is
    coming: the one maker of the policies of bash, jobs, MCP servers, hooks and the host's git."""

    data_dir: Path | None = None
    masked: tuple[Path, ...] = ()
    on_network: Callable[[], None] = field(default=_nothing, compare=False)
    """Called before a policy with network is handed out: the loopback fence then starts looking
    at who its peers are (docs/threat-model.md, "The sandbox and the loopback server")."""
    installation: tuple[Path, ...] = field(default_factory=installation_places)
    """The host's own installation, readable in every sandbox (`installation_places`)."""

    def policy(
        self,
        workspace: Path,
        *,
        write: bool = True,
        network: bool = False,
        readable: tuple[Path, ...] = (),
        writable: tuple[Path, ...] = (),
        read_only: tuple[Path, ...] = (),
        tree_read_only: bool = False,
    ) -> SandboxPolicy:
        """`writable`/`read_only`: a worktree's share of its shared git directory
        (docs/decisions.md, "Worktree sessions")."""
        if network:
            self.on_network()
        return SandboxPolicy(
            workspace,
            write=write,
            network=network,
            data_dir=self.data_dir,
            readable=(*readable, *(p for p in self.installation if p not in readable)),
            writable=writable,
            read_only=read_only,
            masked=self.masked,
            tree_read_only=tree_read_only,
        )


@dataclass(frozen=True)
class SandboxSupport:
    kind: SandboxKind
    reason: str
    """One sentence a person can read ("bubblewrap 0.8.0 at /usr/bin/bwrap")."""

    @property
    def available(self) -> bool:
        return self.kind != "none"


class SandboxUnavailable(Exception):
    """This machine offers no sandbox: the caller must refuse, never run the command bare."""


def real(path: Path) -> Path:
    """The path with every symlink resolved (what a bind or a Landlock rule really reaches)."""
    return Path(os.path.realpath(path))


def inside(path: Path, root: Path) -> bool:
    """`path` is `root` or below it, component by component (what `root in path.parents` says,
    without building every parent: this runs for each mask of each sandboxed command)."""
    parts = root.parts
    return path == root or (bool(parts) and path.parts[: len(parts)] == parts)


def protected_paths(workspace: Path) -> list[Path]:
    """The protected entries that exist, resolved. One that is a symlink counts only where it
    really leads inside the folder: binding a link planted to point at a secret or at a place
    outside would make that place visible or change what is protected (docs/decisions.md)."""
    return protected_below(real(workspace))


def protected_below(root: Path) -> list[Path]:
    """`protected_paths` of a folder already resolved (`real`): the command line is built with
    the folder resolved once, not once per kind of entry (every sandboxed command pays it)."""
    out: list[Path] = []
    for entry in PROTECTED_ENTRIES:
        candidate = root / entry
        if not os.path.lexists(candidate):
            continue
        target = real(candidate)
        if inside(target, root) and target != root and target.exists() and target not in out:
            out.append(target)
    return out


def git_pointers_below(root: Path) -> list[Path]:
    """`.git` files (`gitdir: …`) that point git elsewhere: the folder's own (a linked worktree or
    a submodule checkout) and those of the submodules `.gitmodules` lists; resolved, inside.
    `root` is already resolved (`real`)."""
    candidates = [root / ".git"]
    candidates += [root / sub / ".git" for sub in _submodule_paths(root / ".gitmodules")]
    out: list[Path] = []
    for candidate in candidates:
        if os.path.lexists(candidate) and not candidate.is_symlink() and candidate.is_file():
            target = real(candidate)
            if inside(target, root) and target not in out:
                out.append(target)
    return out


def _submodule_paths(gitmodules: Path) -> list[str]:
    """The `path = …` values of a `.gitmodules` file (a rough read: a path it misses is only not
    protected, never exposed)."""
    try:
        with open(gitmodules, "rb") as f:
            text = f.read(256 * 1024).decode("utf-8", "replace")
    except OSError:
        return []
    found: list[str] = []
    for line in text.splitlines():
        key, sep, value = line.strip().partition("=")
        if sep and key.strip().lower() == "path":
            path = value.strip().strip('"')
            if path and not path.startswith("/") and ".." not in Path(path).parts:
                found.append(path)
    return found[:MAX_SUBMODULES]


def git_folders_below(root: Path) -> list[Path]:
    """The protected folders of the folder's `.git` directory that are missing and can be made
    (the `.git` directory is real, inside and writable by us; otherwise nobody in the sandbox can
    make them either). `root` is already resolved (`real`)."""
    git = root / ".git"
    if git.is_symlink() or not git.is_dir() or not os.access(git, os.W_OK | os.X_OK):
        return []
    return [git / name for name in GIT_MADE_FOLDERS if not os.path.lexists(git / name)]


def secret_paths(home: Path | None = None) -> list[Path]:
    """The secrets below the home folder that exist (resolved; a masked link masks its target)."""
    base = home or Path.home()
    out: list[Path] = []
    for entry in SECRET_PATHS:
        candidate = base / entry
        if os.path.lexists(candidate):
            target = real(candidate)
            if target.exists() and target != Path("/") and target not in out:
                out.append(target)
    return out


DAEMON_SOCKETS = (
    ".docker/run",
    ".docker/desktop",
    ".docker/docker.sock",
    ".colima",
    ".lima",
    ".rd/docker.sock",
    ".local/share/containers/podman/machine",
    ".1password/agent.sock",
    ".bitwarden-ssh-agent.sock",
    ".Xauthority",
)
"""Below the home folder: where Docker Desktop, Colima, Lima, Rancher Desktop, Podman machines
and password managers' ssh agents put their sockets, and the X server's cookie (its socket is
abstract: reachable once network is allowed). Masked inside, whatever the network switch: a
daemon socket is a way out of the sandbox (`docker run -v /:/host`), an agent signs as the user."""

SOCKET_VARIABLES = (
    "SSH_AUTH_SOCK",
    "DOCKER_HOST",
    "CONTAINER_HOST",
    "DBUS_SESSION_BUS_ADDRESS",
    "GPG_AGENT_INFO",
)
"""The host's environment variables that name a daemon or agent socket."""

PATH_VARIABLES = ("GNUPGHOME", "XDG_RUNTIME_DIR", "XAUTHORITY")
"""…and those that name a folder of them (gpg-agent's `S.gpg-agent*`; the session bus, Podman,
Wayland, PipeWire, the keyring: usually under /run, which is private already) or the X cookie."""


def socket_paths_in(name: str, value: str) -> list[str]:
    """The filesystem paths a socket variable names: `unix://` URLs (Docker, Podman), D-Bus
    address lists (`unix:path=…;…`; `abstract=` names have no path and die with the network
    namespace), `GPG_AGENT_INFO`'s `path:pid:1`, else the value itself (`SSH_AUTH_SOCK`)."""
    if name in ("DOCKER_HOST", "CONTAINER_HOST"):
        return [value.removeprefix("unix://")] if value.startswith("unix://") else []
    if name == "DBUS_SESSION_BUS_ADDRESS":
        found = []
        for address in value.split(";"):
            kind, _, params = address.partition(":")
            if kind == "unix":
                for param in params.split(","):
                    key, _, raw = param.partition("=")
                    if key == "path" and raw:
                        found.append(raw)
        return found
    if name == "GPG_AGENT_INFO":
        return [value.split(":", 1)[0]] if value else []
    return [value] if value else []


def daemon_sockets(home: Path | None = None, environ: Mapping[str, str] | None = None) -> list[Path]:
    """The daemon and agent sockets (and folders of them) that exist, resolved."""
    base = home or Path.home()
    env = os.environ if environ is None else environ
    named = [base / entry for entry in DAEMON_SOCKETS]
    for name in SOCKET_VARIABLES:
        named += [Path(p) for p in socket_paths_in(name, env.get(name, "")) if p.startswith("/")]
    named += [Path(v) for name in PATH_VARIABLES if (v := env.get(name, "")).startswith("/")]
    return named_paths(named)


def named_paths(paths: Sequence[Path]) -> list[Path]:
    """What a policy's `masked` names and exists, resolved (a link masks its target)."""
    out: list[Path] = []
    for candidate in paths:
        if os.path.lexists(candidate):
            target = real(candidate)
            if target.exists() and target != Path("/") and target not in out:
                out.append(target)
    return out
