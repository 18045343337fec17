"""Loopback ports for servers the tests start."""

from __future__ import annotations

import socket
import socketserver
import threading


def free_port() -> int:
    """A port on 127.0.0.1 that nothing listens on now (the kernel's pick)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def bindable(port: int) -> bool:
    """Whether a server could listen on `port` now (bound as uvicorn binds: SO_REUSEADDR)."""
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


STOP_POLL = 0.02
"""Seconds between a `socketserver` loop's checks for `shutdown()` (the standard library's own
default, 0.5 s, is what each stop of such a server then waits, for nothing)."""


def serve_in_thread(server: socketserver.BaseServer) -> threading.Thread:
    """Run `server.serve_forever()` on a daemon thread, its `shutdown()` answered within
    `STOP_POLL` (docs/decisions/waits-in-the-suites-own-helpers.md)."""
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": STOP_POLL}, daemon=True)
    thread.start()
    return thread
