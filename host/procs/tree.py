"""The host's last resort for a supervised command: find its whole tree in /proc and kill it.

The supervisor (supervise.py) normally kills the tree itself. When it misses its bound (a
loaded machine, a stopped or crashed supervisor), killing only its process group would orphan
every descendant that left with `setsid`. This finds them the way the kernel keeps them:

- below the supervisor by parent links (it is a child subreaper: orphans are re-parented to it,
  and it stays their parent while it is stopped, as long as the host has not reaped it);
- in the supervisor's session (the host starts it with a session of its own: every process of
  the command that did not call `setsid` is in it), and in every session and process group a
  process of the tree was seen in (one that escaped with `setsid` leads a session of its own).

Why that is never someone else's process (docs/decisions.md, "A cancelled command's whole tree
dies"): the supervisor's pid is held while the host has not reaped it; the kernel does not hand
out a pid that is still a live session or group id, so a member of a session or group seen in
the tree is of the tree; and only processes started no earlier than the supervisor count.
Stdlib only; Linux (/proc); elsewhere it finds nothing and the caller's group kill is all.
"""

from __future__ import annotations

import os
import signal
import time
from dataclasses import dataclass, field

from host.procs.supervise import below, processes


@dataclass(frozen=True)
class Proc:
    pid: int
    ppid: int
    pgid: int
    sid: int
    started: int  # clock ticks since boot (field 22 of /proc/PID/stat)


def table() -> dict[int, Proc]:
    """Every live (not zombie) process, from one pass over /proc (the supervisor's reader)."""
    return {p[0]: Proc(*p) for p in processes()}


@dataclass
class CommandTree:
    """The processes of one supervised command; `root` is the supervisor's pid (unreaped)."""

    root: int
    sessions: set[int] = field(default_factory=set)
    groups: set[int] = field(default_factory=set)
    started: int | None = None

    def __post_init__(self) -> None:
        self.sessions.add(self.root)  # the host starts the supervisor in a session of its own
        self.groups.add(self.root)
        me = os.getpid()
        self._never = {0, 1, me, os.getpgrp(), os.getsid(0)}

    def scan(self) -> set[int]:
        """The tree's live processes now (the supervisor excluded); remembers their sessions and
        groups, so that a later scan still finds what the supervisor lost track of."""
        procs = table()
        root = procs.get(self.root)
        if root is not None and self.started is None:
            self.started = root.started
        children: dict[int, list[int]] = {}
        for p in procs.values():
            children.setdefault(p.ppid, []).append(p.pid)
        found = set(below(children, self.root))
        if self.started is not None:  # members of known sessions/groups, no older than the root
            found |= {
                p.pid
                for p in procs.values()
                if (p.sid in self.sessions or p.pgid in self.groups) and p.started >= self.started
            }
        found -= self._never | {self.root}
        for pid in found:
            self.sessions.add(procs[pid].sid)
            self.groups.add(procs[pid].pgid)
        self.sessions -= self._never
        self.groups -= self._never
        return found

    def kill(self, bound: float) -> set[int]:
        """Stop the supervisor (its children stay its children), SIGKILL the tree until none
        of it is left or `bound` seconds passed, then SIGKILL the supervisor. Returns the pids
        signalled."""
        signal_one(self.root, signal.SIGSTOP)
        killed: set[int] = set()
        end = time.monotonic() + bound
        while True:
            targets = self.scan()
            if not targets:
                break
            for pid in targets:
                signal_one(pid, signal.SIGKILL)
            killed |= targets
            if time.monotonic() >= end:
                break
            time.sleep(0.01)
        signal_one(self.root, signal.SIGKILL)
        return killed


def signal_one(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except OSError:
        pass  # gone already (or never ours to signal)
