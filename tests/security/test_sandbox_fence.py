"""Issue 40, item 4: nothing inside a sandbox reaches a privileged method (docs/threat-model.md,
"The sandbox and the host's own secrets", "The sandbox and the loopback server").

The escape, driven end to end against the real `harnessdesk serve` with real bubblewrap and the
scripted provider asking for the calls: a session in Auto with "Allow network" on runs commands
that read the `--token-file` (under the home folder, or inside the session's own folder) and
POST `permission.set` to Full access on the server's port. The token file, the open link and the
data folder read as nothing inside; and even with the token handed in (a leak simulated by
putting it in the command text) the fence refuses the sandboxed peer: the mode is unchanged and
the next command still cannot write outside. The person's own client keeps working, Full access
after the confirmation included.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from contract.methods import (
    JOB_LIST,
    JOB_OUTPUT,
    PERMISSION_SET,
    SESSION_CREATE,
    SESSION_HISTORY,
    SESSION_LIST,
)
from desktop.cli import build_parser
from desktop.options import named_paths
from host.engine.integrations.hooks.run import argv_for
from host.engine.integrations.mcp.spawn import sandboxed_argv
from host.engine.sandbox import Confinement, SandboxPolicy, wrap
from host.engine.tools.permissions.modes import preset
from host.engine.tools.permissions.policy import SessionPermissions
from host.fetch import HttpApiClient
from host.server.fence import SANDBOXED_PEER
from host.server.peers import SandboxPeers
from tests.api.support import Frames, Served, event, events_of, ftype, ok, prompt, start_serve
from tests.security.sandboxing import PY, needs_sandbox, sandbox_on
from tests.support.scripted_llm import Reply, ScriptedLlmServer

pytestmark = [needs_sandbox]
__all__ = ["sandbox_on"]

POKE = """\
import json, sys, urllib.request, urllib.error
port, sid, token = sys.argv[1], sys.argv[2], sys.argv[3]
if token.startswith("@"):  # read it from a file
    try:
        token = open(token[1:]).read().strip()
    except OSError as failed:
        print("token unreadable:", failed.strerror)
        token = ""
for method, payload in (
    ("session.list", {}),
    ("permission.set", {"sessionId": sid, "preset": "danger-full-access", "confirmFullAccess": True}),
):
    body = {"type": "client-request", "rpcId": "r-1", "method": method, "payload": payload}
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/api/{method}",
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json", "authorization": f"Bearer {token}"},
    )
    try:
        with urllib.request.urlopen(request, timeout=20) as answer:
            print(method, answer.status, answer.read().decode()[:200])
    except urllib.error.HTTPError as refused:
        print(method, refused.code, refused.read().decode()[:200])
"""
"""What the model writes into the folder and runs: the escape of issue 40 as a script."""


@dataclass
class Place:
    """A temp tree outside /tmp (the sandbox's /tmp is private): home, folder, outside, data."""

    root: Path
    home: Path
    project: Path
    outside: Path
    data: Path


@pytest.fixture
def place(monkeypatch: pytest.MonkeyPatch) -> Iterator[Place]:
    root = Path(tempfile.mkdtemp(prefix="harnessdesk-fence-", dir="/var/tmp"))
    try:
        home, project, outside, data = (root / n for n in ("home", "project", "outside", "data"))
        for d in (home, project, outside):
            d.mkdir()
        (project / "main.py").write_text("print('hi')\n")
        monkeypatch.setenv("HOME", str(home))  # the serve process's home: the masks are worked out there
        yield Place(root, home, project, outside, data)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def provider(llm: ScriptedLlmServer) -> list[str]:
    return ["--provider", "openai-compatible", "--base-url", llm.base_url, "--model", "m"]


def call(call_id: str, tool: str, **arguments: Any) -> Reply:
    return Reply(tool_calls=[(call_id, tool, json.dumps(arguments))])


def results(events: list[Any]) -> dict[str, str]:
    return {
        e.data["message"]["source"]["callId"]: str(e.data["message"]["content"][0]["content"])
        for e in events
        if e.type == "tool/result"
    }


class Person:
    """The person's own client of the served host (outside every sandbox)."""

    def __init__(self, served: Served) -> None:
        self.served = served
        self.client = HttpApiClient(served.base_url, served.token)
        self.mux: Frames | None = None

    async def open(self) -> Person:
        self.mux = await Frames(self.client.stream("events.mux")).__aenter__()
        return self

    async def close(self) -> None:
        if self.mux is not None:
            await self.mux.close()
        await self.client.aclose()

    async def session(self, cwd: Path) -> str:
        created = await ok(self.client, SESSION_CREATE, {"cwd": str(cwd)})
        sid = str(created.session_id)
        await ok(self.client, PERMISSION_SET, {"sessionId": sid, "network": True})
        return sid

    async def turn(self, sid: str, refuse: int = 0) -> dict[str, str]:
        """Runs a turn; the person refuses the first `refuse` approvals it asks for."""
        assert self.mux is not None
        start = len(self.mux.items)
        await prompt(self.client, sid, "go")
        for _ in range(refuse):
            rpc_id, frame = await self.mux.next(ftype("approval/requested", sid), within=180)
            value = {"sessionId": sid, "approvalId": frame.approval_id, "outcome": "rejected"}
            assert (await self.client.respond(rpc_id, {"ok": True, "value": value})).accepted
        await self.mux.next(event("turn/end", sid), within=180)
        return results(events_of(self.mux.since(start), sid))

    async def job_output(self, sid: str, job_id: str) -> str:
        """The output of a background job once it ended (bounded: 120 s)."""
        for _ in range(1200):
            jobs = (await ok(self.client, JOB_LIST, {"sessionId": sid})).jobs
            if [j for j in jobs if j.id == job_id and j.status not in ("running", "stopping")]:
                value = await ok(self.client, JOB_OUTPUT, {"sessionId": sid, "jobId": job_id, "offset": 0})
                return str(value.text)
            await asyncio.sleep(0.1)
        raise AssertionError(f"job {job_id} did not end")

    async def mode(self, sid: str) -> tuple[str, bool]:
        page = await ok(self.client, SESSION_HISTORY, {"sessionId": sid})
        assert page.projections is not None
        value = page.projections.values["permissions"]
        return value["currentValue"], value["network"]


@pytest.fixture
async def person_of() -> AsyncIterator[Any]:
    opened: list[Person] = []

    async def open_one(served: Served) -> Person:
        person = await Person(served).open()
        opened.append(person)
        return person

    yield open_one
    for person in opened:
        await person.close()


async def written(record: Path) -> Path:
    """The path the browser command recorded (bounded: 20 s)."""
    for _ in range(400):
        if text := await asyncio.to_thread(recorded, record):
            return Path(text)
        await asyncio.sleep(0.05)
    raise AssertionError("the browser command never ran")


def recorded(record: Path) -> str:
    return record.read_text().strip() if record.exists() else ""


def serve(place: Place, llm: ScriptedLlmServer, *extra: str) -> Served:
    return start_serve(place.data, *extra, *provider(llm), cwd=place.root)


def stop(served: Served) -> None:
    served.stop()
    assert served.token not in served.later_output  # nothing after the first line shows it


async def test_a_sandboxed_command_with_network_cannot_switch_its_session_to_full_access(
    place: Place, llm: ScriptedLlmServer, sandbox_on: None, person_of: Any
) -> None:
    token_file = place.home / "harnessdesk.token"
    served = serve(place, llm, "--token-file", str(token_file))
    try:
        assert token_file.read_text().strip() == served.token
        person = await person_of(served)
        sid = await person.session(place.project)
        assert await person.mode(sid) == ("auto", True)
        llm.enqueue(
            call("w1", "write_file", path="poke.py", content=POKE),
            call("b1", "bash", command=f"cat {token_file}; echo READ-DONE"),
            call("b2", "bash", command=f"python3 poke.py {served.port} {sid} @{token_file}"),
            call("b3", "bash", command=f"python3 poke.py {served.port} {sid} {served.token}"),
            call(
                "j1",
                "bash",
                command=f"python3 poke.py {served.port} {sid} {served.token}",
                run_in_background=True,
            ),
            call("b4", "bash", command=f"echo escaped > {place.outside}/full.txt"),
            Reply(text="I tried."),
        )
        # b4 fails inside the sandbox; Auto then asks whether to run it outside: the person refuses
        done = await person.turn(sid, refuse=1)
        job_id = done["j1"].split("background job ", 1)[1].split(".", 1)[0]
        done["j1"] = await person.job_output(sid, job_id)
        assert done["b1"].endswith("Permission denied\nREAD-DONE")  # the token file cannot be read
        assert done["b2"].startswith("token unreadable: Permission denied\n")
        assert all(served.token not in done[name] for name in ("b1", "b2"))
        for name in ("b2", "b3", "j1"):
            lines = done[name].splitlines()[-2:]
            assert lines[0].startswith("session.list 403 ") and SANDBOXED_PEER in lines[0], done[name]
            assert lines[1].startswith("permission.set 403 ") and SANDBOXED_PEER in lines[1], done[name]
        assert "blocked by the sandbox" in done["b4"]
        assert not (place.outside / "full.txt").exists()
        assert await person.mode(sid) == ("auto", True)  # nothing changed

        # the person, outside, still does what a person may: Full access after confirming it
        assert (await ok(person.client, SESSION_LIST, {})).items
        full = {"sessionId": sid, "preset": "danger-full-access", "confirmFullAccess": True}
        assert (await ok(person.client, PERMISSION_SET, full)).permissions.current_value == (
            "danger-full-access"
        )
    finally:
        stop(served)
    assert not any(served.token in line for line in served.err)


async def test_the_token_file_inside_the_folder_the_open_link_and_the_data_folder_read_as_nothing(
    place: Place, llm: ScriptedLlmServer, sandbox_on: None, person_of: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    token_file = place.project / ".harnessdesk-token"  # inside the very folder the agent writes
    record = place.root / "link.txt"
    browser = place.root / "browser.sh"
    browser.write_text(f'#!/bin/sh\necho "${{1#file://}}" > {record}\n')
    browser.chmod(0o755)
    monkeypatch.setenv("BROWSER", str(browser))
    served = serve(place, llm, "--token-file", str(token_file), "--open")
    try:
        link = await written(record)
        assert link.parent == place.data and served.token in link.read_text()
        person = await person_of(served)
        sid = await person.session(place.project)
        llm.enqueue(
            call("b1", "bash", command="cat .harnessdesk-token; echo TOKEN-DONE"),
            call("b2", "bash", command=f"cat {link}; echo LINK-DONE"),
            call("b3", "bash", command=f"ls -A {place.data}; echo DATA-DONE"),
            call("b4", "bash", command="echo planted > .harnessdesk-token; rm -f .harnessdesk-token"),
            Reply(text="nothing there"),
        )
        done = await person.turn(sid)
        assert done["b1"].endswith("Permission denied\nTOKEN-DONE")
        assert done["b2"].startswith("cat: ") and done["b2"].endswith("\nLINK-DONE")  # hidden with its folder
        assert done["b3"].strip() == "DATA-DONE"  # the data folder holds the database outside
        assert any(place.data.iterdir())
        assert all(served.token not in text for text in done.values())
        assert token_file.read_text().strip() == served.token  # the agent could not replace it
    finally:
        stop(served)


def test_every_path_option_of_the_command_line_is_masked(tmp_path: Path) -> None:
    parser = build_parser()
    serve_args = parser.parse_args(["serve", "--token-file", "~/t.token", "--data-dir", "rel/data"])
    assert named_paths(serve_args) == (
        Path(os.path.abspath("rel/data")),
        Path(os.path.expanduser("~/t.token")),
    )
    export = parser.parse_args(["export", "s-1", "-o", str(tmp_path / "out.zip")])
    assert named_paths(export) == (tmp_path / "out.zip",)
    prompt_args = parser.parse_args(["prompt", "hi", "--cwd", str(tmp_path)])
    assert named_paths(prompt_args) == ()  # the folder a session works in is never masked


def test_a_masked_file_and_folder_read_as_nothing_wherever_they_are(sandbox_on: None) -> None:
    root = Path(tempfile.mkdtemp(prefix="harnessdesk-mask-", dir="/var/tmp"))
    try:
        project, elsewhere = root / "project", root / "elsewhere"
        project.mkdir()
        elsewhere.mkdir()
        inside_file, outside_file = project / "secret.token", root / "named.token"
        (elsewhere / "db").write_text("DATA")
        for f in (inside_file, outside_file):
            f.write_text("SECRET-IN-FILE")
        policy = SandboxPolicy(project, masked=(inside_file, outside_file, elsewhere, root / "missing"))
        script = f"cat {inside_file} {outside_file}; ls -A {elsewhere}; echo > {inside_file}; echo END"
        ran = subprocess.run(
            wrap(["/bin/sh", "-c", script], policy), cwd=project, capture_output=True, text=True, timeout=60
        )
        assert ran.stdout.strip() == "END" and "SECRET" not in ran.stderr
        assert inside_file.read_text() == "SECRET-IN-FILE"
        plain = subprocess.run(
            wrap(["/bin/cat", str(outside_file)], SandboxPolicy(project)),
            cwd=project,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert plain.stdout == "SECRET-IN-FILE"  # the control: unmasked, it is readable
    finally:
        shutil.rmtree(root, ignore_errors=True)


def test_every_sandbox_the_host_starts_carries_the_masks_and_tells_the_fence(
    sandbox_on: None, place: Place
) -> None:
    token = place.root / "named.token"  # outside /tmp: a mask there would be moot
    token.write_text("x")
    told: list[str] = []
    confinement = Confinement(place.data, (token,), lambda: told.append("network"))
    perms = SessionPermissions("s-1", place.project, preset("auto"), network=True, confinement=confinement)
    bash = perms.sandbox_for("bash", {"command": "make"})
    assert bash is not None and bash.masked == (token,) and bash.network and told == ["network"]
    mask = ["--ro-bind", "/dev/null", str(token)]
    mcp, boxed = sandboxed_argv(["server"], workspace=place.project, network=True, confinement=confinement)
    assert boxed and mask == mcp[mcp.index(str(token)) - 2 : mcp.index(str(token)) + 1]
    assert told == ["network", "network"]
    hook = argv_for("true", place.project, confinement)
    assert mask == hook[hook.index(str(token)) - 2 : hook.index(str(token)) + 1]
    assert "--unshare-net" in hook and told == ["network", "network"]  # hooks never get network


# ---- the fence's view of the sandboxes (host/server/peers.py), with real bubblewrap -----------


HOLD = (
    "import socket, sys, time\n"
    "s = socket.create_connection(('127.0.0.1', int(sys.argv[1])), timeout=10)\n"
    "s.sendall(b'x')\n"
    "if sys.argv[2] == 'hold':\n"
    "    s.recv(1)\n"
)


def accept_from(listener: socket.socket, argv: list[str], cwd: Path) -> tuple[Any, ...]:
    proc = subprocess.Popen(argv, cwd=cwd)
    conn, client = listener.accept()
    conn.settimeout(30)
    assert conn.recv(1) == b"x"
    return proc, conn, client


def test_the_fence_knows_a_sandboxed_peer_from_the_person_and_from_a_plain_child(
    sandbox_on: None, tmp_path: Path
) -> None:
    work = Path(tempfile.mkdtemp(prefix="harnessdesk-peer-", dir="/var/tmp"))
    listener = socket.create_server(("127.0.0.1", 0))
    port = str(listener.getsockname()[1])
    peers = SandboxPeers()
    try:
        boxed = wrap([PY, "-c", HOLD, port, "hold"], SandboxPolicy(work, network=True))
        proc, conn, client = accept_from(listener, boxed, work)
        server = conn.getsockname()
        assert not peers.refuses(client, server)  # nothing is looked up before `expect`
        peers.expect()
        assert peers.refuses(client, server)
        assert peers.refuses(client, server)  # the kept verdict
        conn.sendall(b"y")
        proc.wait(30)
        conn.close()

        proc, conn, client = accept_from(listener, [PY, "-c", HOLD, port, "hold"], work)
        assert not peers.refuses(client, conn.getsockname())  # a child outside the sandbox
        conn.sendall(b"y")
        proc.wait(30)
        conn.close()

        mine = socket.create_connection(("127.0.0.1", int(port)))
        conn, client = listener.accept()
        assert not peers.refuses(client, conn.getsockname())  # the host's own process
        mine.close()
        conn.close()

        # sent, then gone: a request whose sender closed at once is refused all the same
        quick = wrap([PY, "-c", HOLD, port, "leave"], SandboxPolicy(work, network=True))
        proc, conn, client = accept_from(listener, quick, work)
        proc.wait(30)
        assert peers.refuses(client, conn.getsockname())
        conn.close()
        assert not peers.refuses(("192.0.2.7", 40000), ("127.0.0.1", int(port)))  # not this machine
    finally:
        listener.close()
        shutil.rmtree(work, ignore_errors=True)
