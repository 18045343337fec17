"""Run one command and, when told to stop, kill every process it started (stdlib only).

`supervise.py PROGRAM ARGS…` starts PROGRAM in a process group of its own and waits for it. On
Linux it first makes itself a child subreaper (prctl PR_SET_CHILD_SUBREAPER): a descendant
orphaned by its parent, e.g. by `setsid cmd &` or a double fork, is re-parented here instead of
to init, so it is still found. On SIGTERM/SIGINT/SIGHUP, or when the host dies (PDEATHSIG), it
signals every descendant (SIGTERM, then SIGKILL after a short grace) until none is left, reaps
them and exits. When PROGRAM exits by itself, this exits with its status; background processes
it left behind keep running, as they would from a terminal, unless `--end-leftovers` comes first
(a background job: when its command ends, whatever it started ends with it).

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


def kill_all(group: int, subreaper: bool) -> None:
    """SIGTERM, a short grace, then SIGKILL until no descendant is left."""
    me = os.getpid()
    for sig, rounds in ((signal.SIGTERM, 1), (signal.SIGKILL, 200)):
        for _ in range(rounds):
            with_group(group, sig)
            targets = descendants(me) if subreaper else []
            for pid in targets:
                try:
                    os.kill(pid, sig)
                except OSError:
                    pass
            reap()
            if sig == signal.SIGTERM:
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


def main(argv: list[str]) -> int:
    end_leftovers = bool(argv) and argv[0] == LEFTOVERS_FLAG
    if end_leftovers:
        argv = argv[1:]
    if not argv:
        print(f"usage: supervise.py [{LEFTOVERS_FLAG}] PROGRAM [ARGS...]", file=sys.stderr)
        return 2
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
    if stopping:
        kill_all(pid, subreaper)
        return 128 + stopping[0]
    if end_leftovers:
        stopping.append(0)  # a stop signal from now on no longer interrupts (nothing to wait for)
        kill_all(pid, subreaper)
    code = os.waitstatus_to_exitcode(status) if status is not None else 1
    return 128 - code if code < 0 else code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
