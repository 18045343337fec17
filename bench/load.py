"""CPU burners: a busy machine made on purpose, so a bench measures "under load" at a load it
chose rather than at whatever the shared machine happens to carry (docs/decisions.md,
"Measuring rules"). Each burner is a child process spinning in a loop; the bench starts them and
stops them itself (by their own pids), and records the load average around the measurement.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from types import TracebackType

SPIN = "while True:\n    pass\n"


class Burners:
    """`count` busy-loop processes for the life of the `with` block (0: none, a no-op)."""

    def __init__(self, count: int = 2) -> None:
        self.count = count
        self.procs: list[subprocess.Popen[bytes]] = []

    def __enter__(self) -> Burners:
        for _ in range(self.count):
            self.procs.append(
                subprocess.Popen(
                    [sys.executable, "-c", SPIN],
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def stop(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                os.kill(proc.pid, signal.SIGKILL)
            proc.wait(10)
        self.procs.clear()

    @property
    def running(self) -> int:
        return sum(1 for p in self.procs if p.poll() is None)


def load_now() -> list[float]:
    """The 1, 5 and 15 minute load averages, rounded."""
    return [round(x, 1) for x in os.getloadavg()]
