"""Run one command and, when told to stop, kill every process it started (stdlib only).

`supervise.py PROGRAM ARGS…` starts PROGRAM in a process group of its own and waits for it. On
Linux it first makes itself a child subreaper (prctl PR_SET_CHILD_SUBREAPER): a descendant
orphaned by its parent, e.g. by `setsid cmd &` or a double fork, is re-parented here instead of
to init, so it is still found. On SIGTERM/SIGINT/SIGHUP, or when the host dies (PDEATHSIG), it
signals every descendant (SIGTERM, then SIGKILL after a short grace) until none is left, reaps
them and exits. When PROGRAM exits by itself, this exits with its status; background processes
it left behind keep running, as they would from a terminal, unless `--end-leftovers` comes first
(a background job: when its command ends, whatever it started ends with it).

With `--tty` (the person's shell in the Terminal pane, docs/decisions.md "Terminal and files") its
standard input is a terminal, and it is a session leader (the host starts it with a session of
its own): the terminal becomes its controlling terminal and PROGRAM's process group the
terminal's foreground group, so the shell has job control, Ctrl+C reaches what runs in it, and
a resize sends SIGWINCH.

Elsewhere (no prctl) it still kills PROGRAM's process group: descendants that left the group
escape there, as they did before (docs/threat-model.md).
"""

from __future__ import annotations

import os
import signal
import sys
import time

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
GRACE = 0.5
LEFTOVERS_FLAG = "--end-leftovers"
TTY_FLAG = "--tty"
stopping: list[int] = []


class Stop(Exception):
    """Raised by the signal handler to leave a blocking wait at once."""


def on_signal(number: int, _frame: object) -> None:
    first = not stopping
    stopping.append(number)
    if first:
        raise Stop()


def prctl(option: int, value: int) -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(option, value, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def processes() -> list[tuple[int, int, int, int, int]]:
    """(pid, ppid, process group, session, start time in clock ticks) of every live (not
    zombie) process, from one pass over /proc; the host's fallback reads the same table
    (host/procs/tree.py)."""
    out: list[tuple[int, int, int, int, int]] = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return out
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                stat = fh.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) < 20 or fields[0] in (b"Z", b"X"):
            continue
        # after the name: state ppid pgrp session ... starttime is the 20th
        out.append((int(entry), int(fields[1]), int(fields[2]), int(fields[3]), int(fields[19])))
    return out


def below(children: dict[int, list[int]], root: int) -> list[int]:
    """Every pid below `root` in a {parent: [children]} map, each once."""
    out: list[int] = []
    seen = {root}
    frontier = [root]
    while frontier:
        for child in children.get(frontier.pop(), []):
            if child not in seen:
                seen.add(child)
                out.append(child)
                frontier.append(child)
    return out


def descendants(root: int) -> list[int]:
    """Every live process below `root` (by parent links read from /proc)."""
    children: dict[int, list[int]] = {}
    for pid, ppid, *_ in processes():
        children.setdefault(ppid, []).append(pid)
    return below(children, root)


def reap() -> dict[int, int]:
    """Collect every exited child without blocking: {pid: wait status}."""
    done: dict[int, int] = {}
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return done
        if pid == 0:
            return done
        done[pid] = status


def kill_all(group: int, subreaper: bool, soft: int = signal.SIGTERM) -> None:
    """`soft` (SIGTERM; SIGHUP for a terminal's shell, which ignores SIGTERM), a short grace,
    then SIGKILL until no descendant is left."""
    me = os.getpid()
    for sig, rounds in ((soft, 1), (signal.SIGKILL, 200)):
        for _ in range(rounds):
            with_group(group, sig)
            targets = descendants(me) if subreaper else []
            for pid in targets:
                try:
                    os.kill(pid, sig)
                except OSError:
                    pass
            reap()
            if sig == soft:
                end = time.monotonic() + GRACE
                while time.monotonic() < end and (descendants(me) if subreaper else alive(group)):
                    time.sleep(0.01)
                    reap()
            elif not (descendants(me) if subreaper else alive(group)):
                return
            else:
                time.sleep(0.01)


def with_group(group: int, sig: int) -> None:
    try:
        os.killpg(group, sig)
    except OSError:
        pass


def alive(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except OSError:
        return False
    return True


def take_terminal() -> None:
    """Make standard input (a terminal) this session leader's controlling terminal."""
    import fcntl
    import termios

    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def to_foreground() -> None:
    """In the child: its own process group becomes the terminal's foreground group (SIGTTOU,
    which a background group gets for asking, is ignored meanwhile)."""
    previous = signal.signal(signal.SIGTTOU, signal.SIG_IGN)
    try:
        os.tcsetpgrp(0, os.getpgrp())
    finally:
        signal.signal(signal.SIGTTOU, previous)


def main(argv: list[str]) -> int:
    end_leftovers = tty = False
    while argv and argv[0] in (LEFTOVERS_FLAG, TTY_FLAG):
        end_leftovers = end_leftovers or argv[0] == LEFTOVERS_FLAG
        tty = tty or argv[0] == TTY_FLAG
        argv = argv[1:]
    if not argv:
        print(f"usage: supervise.py [{LEFTOVERS_FLAG}] [{TTY_FLAG}] PROGRAM [ARGS...]", file=sys.stderr)
        return 2
    if tty:
        take_terminal()
    subreaper = prctl(PR_SET_CHILD_SUBREAPER, 1)
    prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    stops = {signal.SIGTERM, signal.SIGINT, signal.SIGHUP}
    for sig in stops:
        signal.signal(sig, on_signal)
    signal.pthread_sigmask(signal.SIG_BLOCK, stops)  # held until the child is known (no race)
    pid = os.fork()
    if pid == 0:  # the command: its own process group, default signal handling
        try:
            os.setpgid(0, 0)
            if tty:
                to_foreground()
            for sig in stops:
                signal.signal(sig, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_UNBLOCK, stops)
            os.execvp(argv[0], argv)
        except BaseException:
            os._exit(127)
    try:
        os.setpgid(pid, pid)
    except OSError:
        pass  # the child did it first (or already exec'ed)
    status: int | None = None
    try:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, stops)
        while status is None and not stopping:
            try:
                done, st = os.waitpid(-1, 0)
            except ChildProcessError:
                break
            if done == pid:
                status = st
    except Stop:
        pass
    soft = signal.SIGHUP if tty else signal.SIGTERM
    if stopping:
        kill_all(pid, subreaper, soft)
        return 128 + stopping[0]
    if end_leftovers:
        stopping.append(0)  # a stop signal from now on no longer interrupts (nothing to wait for)
        kill_all(pid, subreaper, soft)
    code = os.waitstatus_to_exitcode(status) if status is not None else 1
    return 128 - code if code < 0 else code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
