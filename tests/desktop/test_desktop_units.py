"""Desktop pieces that need no window: CLI without a display, doctor, single instance, pushes."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from desktop.bridge import Bridge, BridgeRefused, Pusher, api_target, merge
from desktop.hostloop import HostLoop
from desktop.hoststart import HOST_FAILED_HEADER, HOST_FAILED_STATUS, StartingHost, failure_text
from desktop.instance import acquire, activate_running
from desktop.pusher import DEPTH, PUSH_INTERVAL
from tests.desktop.hostapp import build_app
from tests.desktop.support import ROOT


def run_cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    return subprocess.run(
        [sys.executable, "-m", "desktop", *args],
        cwd=ROOT,
        env={**base, **(env or {})},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_no_display_says_so_in_one_line_and_exits_2(tmp_path: Path) -> None:
    result = run_cli("--data-dir", str(tmp_path))
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "no display" in lines[0] and "harnessdesk serve" in lines[0]


def test_doctor_reports_versions_data_dir_backend_and_display(tmp_path: Path) -> None:
    result = run_cli("doctor", "--data-dir", str(tmp_path / "d"))
    out = result.stdout
    for needle in (
        "HarnessDesk ",
        "Python 3.",
        f"data dir: {tmp_path / 'd'}",
        "pywebview: 6.2.1",
        "provider:",
    ):
        assert needle in out, out
    assert "display: none" in out and result.returncode == 1  # no display here: cannot open a window
    assert "GUI backend: gtk (WebKitGTK 4.1)" in out
    assert "gtk: GTK 3." in out and ", WebKitGTK 2." in out
    shown = run_cli("doctor", env={"DISPLAY": ":99"})
    assert "display: DISPLAY=:99" in shown.stdout and shown.returncode == 0


def test_doctor_names_an_unknown_provider_instead_of_reporting_local(tmp_path: Path) -> None:
    """`doctor --provider nonesuch` (issue 46, item 8) says the flag names no route, as `serve`
    does, and exits 1; it used to report the local model as if the flag were fine."""
    result = run_cli(
        "doctor", "--provider", "nonesuch", "--data-dir", str(tmp_path / "d"), env={"DISPLAY": ":99"}
    )
    assert "provider: unknown provider 'nonesuch'; use local, deepseek" in result.stdout, result.stdout
    assert "provider: local" not in result.stdout and result.returncode == 1


WITHOUT_GI = (
    "import sys; sys.modules['gi'] = None;"  # as on a system without PyGObject's typelibs/bindings
    "from desktop.cli import main; sys.exit(main(sys.argv[1:]))"
)


def test_a_missing_webkitgtk_is_named_with_its_fix_in_one_line(tmp_path: Path) -> None:
    """The window and the doctor both say what to install; no traceback listing backends."""
    env = {k: v for k, v in os.environ.items() if k not in ("WAYLAND_DISPLAY",)}
    env["DISPLAY"] = ":99"  # never reached: the check comes before any connection to a display
    window = subprocess.run(
        [sys.executable, "-c", WITHOUT_GI, "--data-dir", str(tmp_path / "d")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert window.returncode == 2, window.stderr
    lines = window.stderr.strip().splitlines()
    assert len(lines) == 1, window.stderr
    assert "GTK 3 and WebKitGTK 4.1" in lines[0] and "apt-get install gir1.2-webkit2-4.1" in lines[0]
    assert "harnessdesk serve" in lines[0]
    doctor = subprocess.run(
        [sys.executable, "-c", WITHOUT_GI, "doctor", "--data-dir", str(tmp_path / "d")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert doctor.returncode == 1
    assert "PyGObject not importable" in doctor.stdout and "GUI backend: none usable" in doctor.stdout


def test_single_instance_lock_and_activation_channel(tmp_path: Path) -> None:
    first = acquire(tmp_path)
    assert first is not None
    assert acquire(tmp_path) is None  # a second holder on the same dir is refused
    activated = threading.Event()
    first.listen(activated.set)
    info = tmp_path / "instance.json"
    assert stat.S_IMODE(info.stat().st_mode) == 0o600
    sock = tmp_path / "instance.sock"
    assert stat.S_IMODE(sock.stat().st_mode) == 0o600
    assert activate_running(tmp_path, timeout=5) == os.getpid()
    assert activated.wait(5)
    # a client without the key is refused
    data = json.loads(info.read_text())
    data["authkey"] = "00" * 32
    info.write_text(json.dumps(data))
    with pytest.raises(Exception, match="did not answer"):
        activate_running(tmp_path, timeout=1)
    first.close()
    again = acquire(tmp_path)  # released: the next launch becomes primary
    assert again is not None
    again.close()


def test_lock_is_released_when_the_holder_is_killed(tmp_path: Path) -> None:
    code = (
        "import pathlib, time; from desktop.instance import acquire; "
        f"i = acquire(pathlib.Path({str(tmp_path)!r})); print(i is not None, flush=True); time.sleep(60)"
    )
    holder = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline().strip() == "True"
    assert acquire(tmp_path) is None
    holder.kill()
    holder.wait()
    instance = acquire(tmp_path)
    assert instance is not None
    instance.close()


@pytest.mark.parametrize(
    "url",
    ["http://evil.example/api/x", "//evil.example/api/x", "/index.html", "/api/../x", "/apix", "api/x", 3],
)
def test_bridge_refuses_everything_but_api_paths(url: object) -> None:
    with pytest.raises(BridgeRefused):
        api_target(url)


def test_bridge_accepts_api_paths_with_queries() -> None:
    assert api_target("/api/session.export?sessionId=s1&includeDescendants=true") == (
        "/api/session.export?sessionId=s1&includeDescendants=true"
    )


class Sink:
    """Stands in for the page: decodes each pushed script back into its batch."""

    def __init__(self, delay: float = 0.0) -> None:
        self.batches: list[list[list[str]]] = []
        self.times: list[float] = []
        self.delay = delay

    def __call__(self, script: str) -> None:
        prefix = "window.harnessdeskBridge._push("
        assert script.startswith(prefix) and script.endswith(")")
        self.batches.append(json.loads(script[len(prefix) : -1]))
        self.times.append(time.monotonic())
        time.sleep(self.delay)

    def text(self, stream_id: str) -> str:
        return "".join(e[2] for b in self.batches for e in b if e[0] == stream_id and e[1] == "t")


def wait_for(predicate, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.005)


def test_pusher_sends_a_lone_chunk_at_once_and_batches_a_burst() -> None:
    sink = Sink(delay=0.002)
    pusher = Pusher(sink)
    start = time.monotonic()
    pusher.put("s", "t", "first")
    wait_for(lambda: sink.batches)
    assert sink.times[0] - start < 0.05
    for i in range(2000):
        pusher.put("s", "t", f"{i},")
    pusher.put("s", "e")
    wait_for(lambda: sink.batches[-1][-1] == ["s", "e"])
    assert sink.text("s") == "first" + "".join(f"{i}," for i in range(2000))
    assert len(sink.batches) < 50  # 2000 chunks, a handful of pushes
    gaps = [b - a for a, b in zip(sink.times[1:], sink.times[2:], strict=False)]
    assert all(g >= PUSH_INTERVAL * 0.75 for g in gaps if g)  # paced under load (timer slack allowed)
    pusher.close()


def test_pusher_caps_a_push_near_its_byte_limit_and_keeps_streams_apart() -> None:
    sink = Sink()
    pusher = Pusher(sink, interval=0.05, max_bytes=64 * 1024)
    pusher.put("warm", "t", "x")
    wait_for(lambda: sink.batches)
    blob = "y" * 1024
    for _ in range(200):
        pusher.put("a", "t", blob)
        pusher.put("b", "b", b"\x00\xff" * 10)
    pusher.put("a", "e")
    pusher.put("b", "x", "boom")
    wait_for(lambda: any(e == ["b", "x", "boom"] for b in sink.batches for e in b))
    assert sink.text("a") == blob * 200
    assert max(sum(len(e[2]) for e in b if e[1] == "t") for b in sink.batches) <= 66 * 1024
    assert merge([("b", "b", b"\x00"), ("b", "b", b"\xff")]) == [["b", "b", "AP8="]]
    pusher.close()


class SlowPage:
    """A page that runs each started push only when the test says so (`land`), in order."""

    def __init__(self) -> None:
        self.sink = Sink()
        self.started: list[tuple[str, Callable[[], None]]] = []
        self.landed = 0

    def start(self, script: str, done: Callable[[], None]) -> None:
        self.started.append((script, done))

    def land(self) -> None:
        script, done = self.started[self.landed]
        self.landed += 1
        self.sink(script)
        threading.Thread(target=done).start()  # the window answers from its GUI thread


def test_pipelined_pushes_do_not_wait_for_the_page_but_stop_at_their_depth() -> None:
    """A chunk arriving while earlier pushes are still on their way goes out at once (it used
    to wait for the page to run the previous push); past `DEPTH` unanswered pushes, output
    waits and then goes as one push; the page gets everything in order."""
    page = SlowPage()
    pusher = Pusher(lambda script: pytest.fail("the blocking path was used"), start_js=page.start)
    for i in range(DEPTH):
        pusher.put("s", "t", f"{i},")
        wait_for(lambda n=i: len(page.started) == n + 1)
    assert page.landed == 0  # DEPTH pushes started, none run by the page yet
    for i in range(DEPTH, DEPTH + 20):
        pusher.put("s", "t", f"{i},")
    pusher.put("s", "e")
    time.sleep(0.1)
    assert len(page.started) == DEPTH  # full: the rest waits for room
    page.land()
    wait_for(lambda: len(page.started) == DEPTH + 1)
    while page.landed < len(page.started):
        page.land()
    assert page.sink.text("s") == "".join(f"{i}," for i in range(DEPTH + 20))
    assert page.sink.batches[-1][-1] == ["s", "e"]
    assert len(page.sink.batches) == DEPTH + 1  # what waited went as one push
    pusher.close()


def test_bridge_streams_and_cancels_without_a_window(tmp_path: Path) -> None:
    """The Python half alone, on a real loop with the test host: the same code the window runs."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    sink = Sink()
    bridge = Bridge(build_app(tmp_path), loop, Pusher(sink))
    try:
        head = bridge.stream({"id": "s1", "url": "/api/events.split?n=50", "method": "GET", "headers": []})
        assert head["status"] == 200
        wait_for(lambda: any(e == ["s1", "e"] for b in sink.batches for e in b))
        frames = [f for f in sink.text("s1").split("\n\n") if f]
        assert [json.loads(f.split("data: ")[1])["i"] for f in frames] == list(range(50))
        bridge.stream({"id": "s2", "url": "/api/events.forever?tag=unit", "method": "GET", "headers": []})
        wait_for(lambda: "tick" in sink.text("s2"))
        bridge.cancel("s2")
        wait_for(lambda: "closed unit" in (tmp_path / "host.log").read_text())
        reply = bridge.fetch({"id": "u", "url": "/api/echo", "method": "POST", "headers": [], "body": "hi"})
        assert reply["status"] == 200 and json.loads(reply["body"])["body"] == "hi"
    finally:
        bridge.close()
        loop.call_soon_threadsafe(loop.stop)
        thread.join(5)


def test_a_page_call_whose_host_loop_stopped_is_let_go(tmp_path: Path) -> None:
    """The window closing stops the host's loop; a page call still waiting on it (or sent just
    then) answers 503 instead of holding its thread, and with it the process's exit, for good."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    bridge = Bridge(build_app(tmp_path), loop, Pusher(Sink()))
    started = threading.Event()

    async def never() -> dict[str, object]:
        started.set()
        await asyncio.Event().wait()
        return {}

    replies: list[object] = []

    def ask() -> None:
        try:
            replies.append(bridge._call(never()))
        except Exception as exc:
            replies.append(exc)

    asker = threading.Thread(target=ask)
    asker.start()
    assert started.wait(10)
    loop.call_soon_threadsafe(loop.stop)
    thread.join(5)
    asker.join(10)
    assert not asker.is_alive()
    assert len(replies) == 1 and type(replies[0]).__name__ == "HostGone"
    reply = bridge.fetch({"id": "late", "url": "/api/echo", "method": "POST", "headers": [], "body": "hi"})
    assert reply["status"] == 503
    loop.close()
    reply = bridge.fetch({"id": "later", "url": "/api/echo", "method": "POST", "headers": [], "body": "hi"})
    assert reply["status"] == 503


def test_parsing_the_window_command_line_imports_neither_the_host_nor_pydantic() -> None:
    """The window starts GTK while the host is imported on its own thread; that only helps if
    the command line itself is parsed without importing the host (docs/decisions.md)."""
    probe = (
        "import sys; from desktop.cli import build_parser; build_parser().parse_args(['--data-dir', 'x']);"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'host', 'pydantic', 'gi', 'webview'}))"
    )
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_window_modules_leave_pydantic_and_the_engine_to_the_host_thread() -> None:
    """What the main thread imports before GTK starts (desktop.app, desktop.shell and what they
    import, e.g. the folder picker) loads neither pydantic nor the engine nor the API."""
    probe = (
        "import sys, desktop.app, desktop.shell;"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'pydantic'"
        " or m.startswith(('host.engine', 'host.api', 'contract.'))))"
    )
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def _starting_host(
    tmp_path: Path, gate: threading.Event, fail: str | None
) -> tuple[HostLoop, StartingHost, Bridge, Sink]:
    """A StartingHost whose factory waits for `gate`, then builds the test host or raises."""

    async def factory(args: argparse.Namespace) -> tuple[object, object]:
        await asyncio.to_thread(gate.wait, 30)
        if fail is not None:
            raise OSError(fail)
        return build_app(tmp_path), lambda: None

    loop = HostLoop()
    loop.start()
    host = StartingHost(loop, factory, argparse.Namespace(), timeout=30)  # type: ignore[arg-type]
    sink = Sink()
    return loop, host, Bridge(host, loop.loop, Pusher(sink)), sink


def test_a_request_sent_while_the_host_is_built_is_answered_once_it_exists(tmp_path: Path) -> None:
    gate = threading.Event()
    loop, host, bridge, _ = _starting_host(tmp_path, gate, None)
    replies: list[dict[str, object]] = []
    try:
        asker = threading.Thread(
            target=lambda: replies.append(
                bridge.fetch({"id": "u", "url": "/api/echo", "method": "POST", "headers": [], "body": "hi"})
            )
        )
        asker.start()
        asker.join(0.3)
        assert replies == [] and host.failure() is None  # waiting for the host, not refused
        gate.set()
        asker.join(30)
        assert replies[0]["status"] == 200 and json.loads(str(replies[0]["body"]))["body"] == "hi"
    finally:
        gate.set()
        bridge.close()
        loop.stop(host.shutdown)


def test_a_deferred_host_is_built_once_at_start_or_at_the_first_request_and_never_after_shutdown(
    tmp_path: Path,
) -> None:
    """The window's host (docs/decisions/cold-start.md): nothing is built until `start()` or a
    request; both together build it once; a window closed before either builds nothing."""
    builds: list[str] = []

    async def factory(args: argparse.Namespace) -> tuple[object, object]:
        builds.append("built")
        return build_app(tmp_path), lambda: builds.append("shut down")

    loop = HostLoop()
    loop.start()
    try:
        host = StartingHost(loop, factory, argparse.Namespace(), timeout=30, deferred=True)  # type: ignore[arg-type]
        bridge = Bridge(host, loop.loop, Pusher(Sink()))
        time.sleep(0.2)
        assert builds == [] and host.failure() is None
        reply = bridge.fetch({"id": "u", "url": "/api/echo", "method": "POST", "headers": [], "body": "hi"})
        assert reply["status"] == 200 and builds == ["built"]  # the request started it
        assert host.start() is host.start()  # the window's `shown` later: the same build
        assert host.wait() is not None and builds == ["built"]
        bridge.close()
        loop.call(host.shutdown(), timeout=30)
        assert builds == ["built", "shut down"]

        unbuilt = StartingHost(loop, factory, argparse.Namespace(), timeout=30, deferred=True)  # type: ignore[arg-type]
        loop.call(unbuilt.shutdown(), timeout=30)  # closed before it was ever shown
        with pytest.raises(RuntimeError, match="closing"):
            unbuilt.start()
        assert builds == ["built", "shut down"] and unbuilt.failure() is None
    finally:
        loop.stop(lambda: asyncio.sleep(0))


def test_a_host_that_fails_to_build_answers_every_request_at_once_with_the_reason(tmp_path: Path) -> None:
    """Waiting requests and later ones get 503 + the marker header + the reason (never a hang,
    never a 500 the page would retry); streams too."""
    gate = threading.Event()
    loop, host, bridge, sink = _starting_host(tmp_path, gate, "disk\nfull")
    replies: list[dict[str, object]] = []
    try:
        asker = threading.Thread(
            target=lambda: replies.append(bridge.fetch({"id": "a", "url": "/api/echo", "method": "GET"}))
        )
        asker.start()
        asker.join(0.3)
        gate.set()
        asker.join(30)
        later = bridge.fetch({"id": "b", "url": "/api/echo", "method": "GET"})
        for reply in (replies[0], later):
            assert reply["status"] == HOST_FAILED_STATUS
            assert list(HOST_FAILED_HEADER) in [list(h) for h in reply["headers"]]  # type: ignore[union-attr]
            assert reply["body"] == "disk full"
        head = bridge.stream({"id": "s", "url": "/api/events.mux", "method": "GET", "headers": []})
        assert head["status"] == HOST_FAILED_STATUS
        wait_for(lambda: any(e == ["s", "e"] for b in sink.batches for e in b))
        assert sink.text("s") == "disk full"
        assert failure_text(host.failure() or Exception()) == "disk full"
    finally:
        gate.set()
        bridge.close()
        loop.stop(host.shutdown)


def test_geometry_keeps_the_normal_size_while_maximized_and_the_state_across_starts(tmp_path: Path) -> None:
    from desktop.geometry import Geometry

    file = tmp_path / "window.json"
    g = Geometry(file)
    g.normal(900, 640, 40, 50, now=10.0)
    g.normal(1280, 781, 0, 0, now=20.0)  # the window manager's resize to the screen, then the state
    g.maximize(now=20.01)
    g.normal(1280, 760, 0, 0, now=21.0)  # while maximized: not the window's own geometry
    g.save()
    again = Geometry(file)
    assert (again.width, again.height, again.x, again.y, again.maximized) == (900, 640, 40, 50, True)
    again.restore()
    again.normal(1000, 700, 40, 50, now=30.0)
    again.save()
    third = Geometry(file)
    assert (third.width, third.height, third.x, third.y, third.maximized) == (1000, 700, 40, 50, False)


def test_geometry_takes_the_maximized_state_before_or_after_its_resize(tmp_path: Path) -> None:
    from desktop.geometry import Geometry

    first = Geometry(tmp_path / "a.json")
    first.normal(900, 640, 40, 50, now=10.0)
    first.maximize(now=20.0)  # the state first: the screen-sized configure after it is ignored
    first.normal(1280, 781, 0, 0, now=20.01)
    assert (first.width, first.height, first.x, first.y) == (900, 640, 40, 50)
    second = Geometry(tmp_path / "b.json")
    second.normal(900, 640, 40, 50, now=10.0)
    second.normal(950, 650, 40, 50, now=15.0)  # a person's resize long before maximizing stays
    second.maximize(now=30.0)
    assert (second.width, second.height) == (950, 650)


def test_geometry_forgets_a_position_on_no_monitor(tmp_path: Path) -> None:
    from desktop.geometry import Geometry

    file = tmp_path / "window.json"
    file.write_text(json.dumps({"width": 900, "height": 640, "x": 1900, "y": 100}))
    screens = [(0, 0, 1280, 800), (1280, 0, 1920, 1080)]
    g = Geometry(file)
    g.keep_on_screen(screens)
    assert (g.x, g.y) == (1900, 100)  # on the second monitor
    g.keep_on_screen(screens[:1])  # unplugged
    assert (g.x, g.y) == (None, None)
    file.write_text(json.dumps({"width": 900, "height": 640, "x": 1200, "y": -30}))
    h = Geometry(file)
    h.keep_on_screen(screens[:1])
    assert (h.x, h.y) == (None, None)  # its title bar is above the screen and mostly right of it
    file.write_text(json.dumps({"width": 900, "height": 640, "x": -400, "y": 300}))
    k = Geometry(file)
    k.keep_on_screen(screens[:1])
    assert (k.x, k.y) == (-400, 300)  # half off the left edge: its title bar can still be grabbed
