"""A fork server for `harnessdesk serve`, so a test can kill and restart it many times quickly.

`python -m tests.faults.zygote` imports the whole app once, then reads JSON commands on stdin:
- `{"op": "serve", "args": [...], "out": PATH}` forks a child that runs exactly what the
  `harnessdesk` binary runs (`desktop.cli.main(["serve", *args])`) with stdout and stderr
  written to PATH; answers the child's pid;
- `{"op": "wait", "pid": N}` waits for that child and answers its exit status (as
  `subprocess` reports it: -9 for SIGKILL).
Each child is a fresh process (only the imports and the contract's deferred validators, built
once here as `serve` builds them after its listening line, are shared), so killing it loses exactly
what killing `harnessdesk serve` loses; the restart just skips the ~1-3 s of importing and the
~0.25 s of building validators.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import threading
import traceback

import uvicorn  # noqa: F401  (imported here so the children need not)

import desktop.headless  # noqa: F401  (`serve` imports the engine, the api and the site from here)
import host.server
import host.server.run  # noqa: F401
from desktop.cli import main
from host.fetch.warm import warm_contract


def serve(args: list[str], out: str) -> int:
    pid = os.fork()
    if pid:
        return pid
    try:
        fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        code = main(["serve", *args])
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:
        traceback.print_exc()
        sys.stderr.flush()
        code = 70
    os._exit(code)


def status(pid: int) -> int:
    _, raw = os.waitpid(pid, 0)
    return -os.WTERMSIG(raw) if os.WIFSIGNALED(raw) else os.WEXITSTATUS(raw)


def run() -> None:
    asyncio.run(warm_contract())  # what each child would build again while the test talks to it
    # A fork copies only the calling thread: with another thread alive a child could inherit a
    # lock it holds. The imports start none; say so loudly if that ever changes.
    assert threading.active_count() == 1, threading.enumerate()
    for line in sys.stdin:
        command = json.loads(line)
        if command["op"] == "serve":
            answer = serve(command["args"], command["out"])
        else:
            answer = status(int(command["pid"]))
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    run()
