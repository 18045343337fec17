"""A real OpenSSH server on 127.0.0.1 for tests (Debian `openssh-server`), with a user of its own.

    with Sshd.start(tmp) as sshd:          # as root; skips (or, in CI, fails) otherwise
        sshd.user, sshd.port, sshd.home    # a fresh account made with `useradd -m`
        sshd.client_home                   # a HOME for the client: .ssh/id_ed25519 (authorized
                                           # there), .ssh/config with `Host <alias>`; no known_hosts
        sshd.fingerprint                   # the server's ED25519 key, as ssh-keygen -l prints it

The server runs `sshd -D -f CONFIG` with its own host key, a PidFile in the temp folder,
`UsePAM no`, public keys only, `AllowUsers` the test user only, and whatever `SetEnv` the test
asks for (a remote environment: `HARNESSDESK_SANDBOX=none`). It is stopped by its pid and the
account removed (`userdel -r`) when the block ends.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from tests.support.machine import need

SSHD = "/usr/sbin/sshd"


def sshd_available() -> tuple[bool, str]:
    """Whether this process can run the test server, and why not."""
    if os.geteuid() != 0:
        return False, "the sshd tests make a user account and run sshd: they need root"
    if not os.access(SSHD, os.X_OK) or shutil.which("ssh") is None or shutil.which("useradd") is None:
        return False, "OpenSSH (openssh-server, openssh-client) is not installed"
    return True, ""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _run(*argv: str) -> str:
    return subprocess.run(argv, check=True, capture_output=True, text=True, timeout=60).stdout


def _account(*argv: str) -> None:
    """useradd/usermod: they take the lock of /etc/passwd and fail at once when another process
    holds it (tests in parallel worktrees make users too); tried again, a bounded number of times."""
    for attempt in range(20):
        done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
        if done.returncode == 0:
            return
        if "lock" not in done.stderr.lower() or attempt == 19:
            raise subprocess.CalledProcessError(done.returncode, argv, done.stdout, done.stderr)
        time.sleep(0.25)


@dataclass
class Sshd:
    root: Path
    user: str
    home: Path
    port: int
    client_home: Path
    fingerprint: str
    alias: str = "testbox"
    process: subprocess.Popen[bytes] | None = None
    env: dict[str, str] = field(default_factory=dict)

    @property
    def target(self) -> str:
        return f"{self.user}@127.0.0.1:{self.port}"

    def trust(self) -> None:
        """Put the server's key in the client's known_hosts (what a person confirmed before)."""
        known = self.client_home / ".ssh" / "known_hosts"
        key = (self.root / "hostkeys" / "ssh_host_ed25519_key.pub").read_text().split()
        line = f"[127.0.0.1]:{self.port} {key[0]} {key[1]}\n"
        if not known.exists() or line not in known.read_text():
            with known.open("a") as f:
                f.write(line)

    def forget(self) -> None:
        """Empty the client's known_hosts (a first connection)."""
        (self.client_home / ".ssh" / "known_hosts").unlink(missing_ok=True)

    @property
    def log(self) -> str:
        with contextlib.suppress(OSError):
            return (self.root / "sshd.log").read_text(errors="replace")
        return ""

    @classmethod
    @contextlib.contextmanager
    def start(
        cls,
        root: Path,
        set_env: Mapping[str, str] | None = None,
        user: str | None = None,
        passphrase: str = "",
    ) -> Iterator[Sshd]:
        """`passphrase`: the client's key is protected by it (ssh must ask for it)."""
        present, why = sshd_available()
        need(present, why)
        root.mkdir(parents=True, exist_ok=True)
        name = user or f"hdt{secrets.token_hex(4)}"
        made = False
        try:
            if user is None or subprocess.run(["id", name], capture_output=True).returncode != 0:
                _account("useradd", "-m", "-s", "/bin/sh", name)
                made = True
            _account("usermod", "-p", "*", name)  # no password, yet not locked (sshd refuses locked ones)
            home = Path(_run("sh", "-c", f"getent passwd {name} | cut -d: -f6").strip())
            with cls._started(root, name, home, set_env or {}, passphrase) as sshd:
                yield sshd
        finally:
            if made:
                subprocess.run(["pkill", "-KILL", "-u", name], capture_output=True)
                subprocess.run(["userdel", "-r", "-f", name], capture_output=True)

    @classmethod
    @contextlib.contextmanager
    def _started(
        cls, root: Path, user: str, home: Path, set_env: Mapping[str, str], passphrase: str
    ) -> Iterator[Sshd]:
        keys = root / "hostkeys"
        keys.mkdir(exist_ok=True)
        host_key = keys / "ssh_host_ed25519_key"
        if not host_key.exists():
            _run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(host_key))
        fingerprint = _run("ssh-keygen", "-lf", str(host_key) + ".pub").split()[1]
        client_home = root / "client-home"
        dot = client_home / ".ssh"
        dot.mkdir(parents=True, exist_ok=True, mode=0o700)
        identity = dot / "id_ed25519"
        if not identity.exists():
            _run("ssh-keygen", "-q", "-t", "ed25519", "-N", passphrase, "-f", str(identity))
        remote_dot = home / ".ssh"
        remote_dot.mkdir(mode=0o700, exist_ok=True)
        (remote_dot / "authorized_keys").write_text(identity.with_suffix(".pub").read_text())
        _run("chown", "-R", f"{user}:{user}", str(remote_dot))
        os.chmod(remote_dot / "authorized_keys", 0o600)
        port = free_port()
        lines = [
            f"Port {port}",
            "ListenAddress 127.0.0.1",
            f"HostKey {host_key}",
            f"PidFile {root / 'sshd.pid'}",
            "UsePAM no",
            "PasswordAuthentication no",
            "KbdInteractiveAuthentication no",
            "PubkeyAuthentication yes",
            "AuthorizedKeysFile .ssh/authorized_keys",
            "StrictModes no",
            "AllowStreamLocalForwarding yes",
            "X11Forwarding no",
            "PermitRootLogin no",
            f"AllowUsers {user}",
            "LogLevel ERROR",
            *(f"SetEnv {k}={v}" for k, v in set_env.items()),
        ]
        config = root / "sshd_config"
        config.write_text("\n".join(lines) + "\n")
        Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)  # its privilege separation folder
        _run(SSHD, "-t", "-f", str(config))
        entry = f"Host {cls.alias}\n  HostName 127.0.0.1\n  Port {port}\n  User {user}\n"
        (dot / "config").write_text(entry + f"  IdentityFile {identity}\n")
        process = subprocess.Popen(
            [SSHD, "-D", "-f", str(config), "-E", str(root / "sshd.log")], stdin=subprocess.DEVNULL
        )
        sshd = cls(root, user, home, port, client_home, fingerprint, process=process, env=dict(set_env))
        try:
            deadline = time.monotonic() + 20
            while True:
                with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.5):
                    break
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"sshd did not start: {sshd.log}")
                time.sleep(0.05)
            yield sshd
        finally:
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(10)
