"""Which shell a terminal runs, in which environment, and how it starts (docs/decisions.md,
"Terminal and files").

The person's login shell (`$SHELL`, else their account's, else /bin/bash, else /bin/sh), started
`-l` on a fresh PTY in the session's folder, outside the sandbox and with the person's own
environment: it is their terminal, not the agent's. Only the host's own variables
(`HARNESSDESK_*`) are left out. It runs below the supervisor (host/procs/supervise.py) with
`--tty` and `--end-leftovers`: the PTY becomes its controlling terminal, and when the shell ends,
is closed, or the host dies (even by SIGKILL: the supervisor's parent-death signal), every
process started in it ends too.
"""

from __future__ import annotations

import asyncio
import fcntl
import os
import pwd
import struct
import termios
from asyncio.subprocess import Process

from host import procs
from host.engine.sandbox.secret_values import HOST_PREFIX
from host.engine.tools.bash import start_shielded

FALLBACKS = ("/bin/bash", "/bin/sh")


def _runnable(path: str) -> bool:
    return os.path.isabs(path) and os.path.isfile(path) and os.access(path, os.X_OK)


def login_shell() -> str:
    """The person's shell: `$SHELL`, their account's, else bash, else sh."""
    candidates = [os.environ.get("SHELL", "")]
    try:
        candidates.append(pwd.getpwuid(os.getuid()).pw_shell)
    except KeyError:
        pass
    for path in (*candidates, *FALLBACKS):
        if path and _runnable(path) and not path.endswith(("/nologin", "/false")):
            return path
    return "/bin/sh"


def environment() -> dict[str, str]:
    """The person's environment for their own shell, less the host's variables, as a colour
    terminal."""
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith(HOST_PREFIX)}
    for name in ("COLUMNS", "LINES"):
        env.pop(name, None)
    env.update({"TERM": "xterm-256color", "COLORTERM": "truecolor", "TERM_PROGRAM": "HarnessDesk"})
    return env


def set_size(fd: int, cols: int, rows: int) -> None:
    """The PTY's window size; the kernel tells the foreground programs (SIGWINCH)."""
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))


async def start(shell: str, cwd: str, cols: int, rows: int) -> tuple[int, Process]:
    """A new PTY of `cols` by `rows` and `shell -l` on it below the supervisor: (the PTY's
    non-blocking master side, the supervisor's process). OSError when it cannot start."""
    master, slave = os.openpty()
    try:
        set_size(master, cols, rows)
        os.set_blocking(master, False)
        argv = procs.command("supervise", "--end-leftovers", "--tty", shell, "-l")
        proc = await start_shielded(
            argv,
            cwd=cwd,
            env=environment(),
            stdin=slave,
            stdout=slave,
            stderr=slave,
            start_new_session=True,
        )
    except BaseException:
        os.close(master)
        raise
    finally:
        os.close(slave)
    return master, proc


async def wait_exit(proc: Process) -> int:
    """The supervisor's exit status: the shell's, once it ended by itself."""
    return await asyncio.shield(proc.wait())
