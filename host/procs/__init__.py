"""Small helper processes the host starts: stdlib-only scripts, run by path.

They run as `python -I -S -c "import <helper>…"` (no site-packages, no environment-driven
imports, cached bytecode: one interpreter start). In a frozen bundle there is no `python`, so
the bundle's own executable is started with `--harnessdesk-helper NAME` and its entry point
dispatches here before anything else is imported.

- `grep_worker`: the grep tool's search, killed at a hard time limit (a catastrophic regex holds
  the GIL of whatever process runs it; docs/threat-model.md).
- `supervise`: runs a bash command as a Linux child subreaper so that timeout and cancel kill
  every descendant, including ones that called `setsid`.

`tree` is not a helper but the host's side of `supervise`: when a supervisor misses its bound,
it finds the command's processes in /proc and kills them (docs/decisions.md).
"""

from __future__ import annotations

import sys
from pathlib import Path

FROZEN_FLAG = "--harnessdesk-helper"
HELPERS = ("grep_worker", "supervise")


def command(name: str, *args: str) -> list[str]:
    """The argv that runs helper `name` with `args`."""
    if name not in HELPERS:
        raise ValueError(f"unknown helper {name!r}")
    if getattr(sys, "frozen", False):
        return [sys.executable, FROZEN_FLAG, name, *args]
    # imported (not run as a script) so its compiled bytecode is cached between runs
    here = str(Path(__file__).parent)
    code = f"import sys; sys.path.insert(0, {here!r}); import {name}; sys.exit({name}.main(sys.argv[1:]))"
    return [sys.executable, "-I", "-S", "-c", code, *args]


def run_frozen_helper(argv: list[str]) -> int | None:
    """In a frozen bundle's entry point: run the helper `argv` names, or None if it names none."""
    if len(argv) < 3 or argv[1] != FROZEN_FLAG or argv[2] not in HELPERS:
        return None
    from host.procs import grep_worker, supervise  # imported here so a bundler sees both

    main = {"grep_worker": grep_worker.main, "supervise": supervise.main}[argv[2]]
    return main(argv[3:])
