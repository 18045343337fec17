"""The window before its host: the host's threads (and a child host) run at a lower CPU priority
than the GUI's main thread and WebKitGTK's processes, so on a busy machine a keystroke's frame is
not queued behind the host's work (docs/decisions/window-keystrokes.md).

Linux only: there a thread's nice value is its own (`setpriority` on its thread id), a thread
starts with its creator's, and raising it needs no privilege. `HARNESSDESK_HOST_NICE` (0-19)
overrides how far; 0 leaves the host as it was.
"""

from __future__ import annotations

import logging
import os
import sys
import threading

log = logging.getLogger("desktop.priority")

ENV = "HARNESSDESK_HOST_NICE"
DEFAULT = 5
"""A nice value of 5 weighs about a third of 0: the host keeps working beside a busy page."""


def host_nice() -> int:
    """How many steps below the window the host runs (a bad value: the default)."""
    raw = os.environ.get(ENV, "").strip()
    try:
        value = int(raw) if raw else DEFAULT
    except ValueError:
        log.warning("%s=%r is not a number from 0 to 19; using %d", ENV, raw, DEFAULT)
        return DEFAULT
    return min(max(value, 0), 19)


def lower(tid: int | None = None) -> int | None:
    """Raise the nice value of thread `tid` (this thread by default; a child's pid is its first
    thread) by `host_nice()` steps over the window's; its nice value after, None when not done."""
    steps = host_nice()
    if not sys.platform.startswith("linux") or steps == 0:
        return None
    target = threading.get_native_id() if tid is None else tid
    try:
        base = os.getpriority(os.PRIO_PROCESS, os.getpid())  # the window's main thread
        value = min(base + steps, 19)
        if os.getpriority(os.PRIO_PROCESS, target) < value:
            os.setpriority(os.PRIO_PROCESS, target, value)
        return os.getpriority(os.PRIO_PROCESS, target)
    except OSError as exc:  # a thread or child already gone; a kernel without per-thread nice
        log.debug("could not lower the host's priority: %s", exc)
        return None
