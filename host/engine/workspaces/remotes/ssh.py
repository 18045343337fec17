"""The system's OpenSSH client, as this host runs it (docs/decisions.md, "Remote hosts").

No SSH library: `ssh` itself does keys, the agent, `~/.ssh/config` (ProxyJump, IdentityFile …) and
known_hosts. One master connection per host (`ControlMaster`) is this host's child process, kept
in the foreground (`ControlPersist=no`) so its life is supervised; every other command and the
Unix-socket forward ride it through its control socket. Host keys are checked strictly
(`StrictHostKeyChecking=yes`): an unknown key fails, and the person decides (hostkeys.py).
A passphrase or password is asked through `SSH_ASKPASS` (askpass.py), or nothing is asked at
all (`BatchMode=yes`) when nobody could answer.

ssh reads `~/.ssh` from the account's home in the password database, not from `$HOME`. When
`$HOME` names another folder (a test, a confined launch), the files there are passed explicitly
(`-F`, `UserKnownHostsFile`, the default identities), so `$HOME` is what counts, as it does for
every other program of this host.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import pwd
import shutil
import signal
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from contract.remotes import parse_target

SSH = "ssh"
SERVER_ALIVE = ("-o", "ServerAliveInterval=10", "-o", "ServerAliveCountMax=3")
"""A link that answers nothing for ~30 s is dead: ssh ends, the supervisor reconnects."""
CONNECT_TIMEOUT = 20
DEFAULT_IDENTITIES = ("id_rsa", "id_ecdsa", "id_ecdsa_sk", "id_ed25519", "id_ed25519_sk")


class SshMissing(Exception):
    """The OpenSSH client is not installed (one sentence)."""


def ssh_binary() -> str:
    found = shutil.which(SSH)
    if found is None:
        raise SshMissing("the OpenSSH client (ssh) is not installed on this computer")
    return found


@dataclass(frozen=True)
class Target:
    """What the person typed: `[user@]host[:port]`, or a `~/.ssh/config` alias."""

    text: str
    user: str | None
    host: str
    port: int | None

    @classmethod
    def parse(cls, text: str) -> Target:
        user, host, port = parse_target(text)
        return cls(text.strip(), user, host.strip("[]"), port)

    @property
    def destination(self) -> str:
        return f"{self.user}@{self.host}" if self.user else self.host


def account_home() -> Path:
    """The home ssh reads `~/.ssh` from (the password database's), which may differ from $HOME."""
    try:
        return Path(pwd.getpwuid(os.getuid()).pw_dir)
    except KeyError:
        return Path.home()


@dataclass(frozen=True)
class SshFiles:
    """`~/.ssh` as this host means it: `$HOME/.ssh`."""

    home: Path = field(default_factory=Path.home)

    @property
    def folder(self) -> Path:
        return self.home / ".ssh"

    @property
    def config(self) -> Path:
        return self.folder / "config"

    @property
    def known_hosts(self) -> Path:
        return self.folder / "known_hosts"

    def options(self) -> list[str]:
        """The options that make ssh use these files, when they are not what it reads anyway."""
        if self.home.resolve() == account_home().resolve():
            return []
        out = ["-F", str(self.config) if self.config.is_file() else os.devnull]
        out += ["-o", f"UserKnownHostsFile={self.known_hosts}"]
        for name in DEFAULT_IDENTITIES:
            key = self.folder / name
            if key.is_file():
                out += ["-o", f"IdentityFile={key}"]
        return out


def control_folder(data_dir: Path) -> Path:
    """A short private folder for control sockets and forwards (a socket path must stay under
    ~100 bytes, and the data folder's can be longer): one per data dir and user."""
    key = hashlib.sha256(str(data_dir.resolve()).encode()).hexdigest()[:10]
    base = Path(os.environ.get("XDG_RUNTIME_DIR") or tempfile.gettempdir())
    if not base.is_dir() or len(str(base)) > 40:
        base = Path(tempfile.gettempdir())
    folder = base / f"harnessdesk-{os.getuid()}" / key
    private_folder(folder.parent)
    private_folder(folder)
    return folder


def private_folder(folder: Path) -> None:
    """Create `folder` 0700, or check that the one there is ours, a real folder and closed to others."""
    with contextlib.suppress(FileExistsError):
        folder.mkdir(mode=0o700)
    st = folder.lstat()
    if not os.path.isdir(folder) or folder.is_symlink():
        raise OSError(f"{folder} is not a folder")
    if st.st_uid != os.getuid():
        raise OSError(f"{folder} belongs to another user")
    if st.st_mode & 0o077:
        os.chmod(folder, 0o700)


@dataclass
class Ssh:
    """How to run ssh for one host: its target, its control socket, its askpass environment."""

    target: Target
    control_dir: Path
    files: SshFiles = field(default_factory=SshFiles)
    askpass_env: Mapping[str, str] = field(default_factory=dict)
    """`SSH_ASKPASS` and what our askpass program needs; empty: BatchMode (nobody can answer)."""

    @property
    def control_path(self) -> Path:
        name = hashlib.sha256(self.target.text.encode()).hexdigest()[:16]
        return self.control_dir / f"c-{name}"

    def common(self, *, batch: bool | None = None) -> list[str]:
        batch = not self.askpass_env if batch is None else batch
        out = [
            *self.files.options(),
            "-o",
            "StrictHostKeyChecking=yes",
            "-o",
            f"ConnectTimeout={CONNECT_TIMEOUT}",
        ]
        out += [*SERVER_ALIVE, "-o", f"ControlPath={self.control_path}", "-o", "LogLevel=ERROR"]
        if batch:
            out += ["-o", "BatchMode=yes"]
        if self.target.port is not None:
            out += ["-p", str(self.target.port)]
        return out

    def master(self) -> list[str]:
        """The connection every other command shares; runs until it is stopped or the link dies."""
        master = ["-o", "ControlMaster=yes", "-o", "ControlPersist=no", "-o", "StreamLocalBindUnlink=yes"]
        return [ssh_binary(), *self.common(), *master, "-N", "-T", self.target.destination]

    def command(self, remote: str) -> list[str]:
        """One command on the remote over the master (its own channel)."""
        return [
            ssh_binary(),
            *self.common(batch=True),
            "-o",
            "ControlMaster=no",
            "-T",
            self.target.destination,
            remote,
        ]

    def once(self, remote: str) -> list[str]:
        """One command on a connection of its own (no master yet: `remote.test`)."""
        return [ssh_binary(), *self.common(), "-o", "ControlPath=none", "-T", self.target.destination, remote]

    def forward(self, local: Path, remote: str) -> list[str]:
        """Ask the master to forward `local` (a Unix socket here) to `remote` (one there)."""
        return [
            ssh_binary(),
            *self.common(batch=True),
            "-o",
            "StreamLocalBindUnlink=yes",
            "-o",
            "ExitOnForwardFailure=yes",
            "-O",
            "forward",
            "-L",
            f"{local}:{remote}",
            self.target.destination,
        ]

    def check(self) -> list[str]:
        return [ssh_binary(), *self.common(batch=True), "-O", "check", self.target.destination]

    def resolved(self) -> list[str]:
        """`ssh -G`: what the configuration makes of the target (HostName, Port, User, …)."""
        port = ["-p", str(self.target.port)] if self.target.port else []
        return [ssh_binary(), *self.files.options(), *port, "-G", self.target.destination]

    def environment(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("SSH_ASKPASS")}
        env.update(self.askpass_env)
        return env


@dataclass(frozen=True)
class Done:
    code: int
    out: bytes
    err: str


async def run(
    argv: Sequence[str],
    env: Mapping[str, str],
    *,
    stdin: bytes | None = None,
    bound: float = 60.0,
) -> Done:
    """Run `argv` to its end within `bound` s (then it is killed: a `Done` with code -9)."""
    proc = await asyncio.create_subprocess_exec(
        *argv,
        stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=dict(env),
        start_new_session=True,  # no terminal: ssh asks through SSH_ASKPASS or not at all
    )
    try:
        out, err = await asyncio.wait_for(proc.communicate(stdin), bound)
    except TimeoutError:
        kill_group(proc)
        await proc.wait()
        return Done(-9, b"", f"no answer within {bound:g} s")
    except asyncio.CancelledError:
        kill_group(proc)
        raise
    return Done(proc.returncode if proc.returncode is not None else -1, out, err.decode("utf-8", "replace"))


def kill_group(proc: asyncio.subprocess.Process, sig: int = signal.SIGKILL) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, sig)


def resolved_options(text: str) -> dict[str, list[str]]:
    """`ssh -G` output as {option: [values]} (lower-case keys; an option may repeat)."""
    out: dict[str, list[str]] = {}
    for line in text.splitlines():
        key, _, value = line.partition(" ")
        if key:
            out.setdefault(key.lower(), []).append(value.strip())
    return out


def last_line(text: str) -> str:
    """ssh's reason for a failure: its last non-empty line, without the `ssh: ` prefix."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1].removeprefix("ssh: ") if lines else "ssh failed without saying why"
