"""The window's desktop notification (docs/decisions.md, "Parallel sessions and attention"): a
session the window does not show finishes, and the window posts a notification named after it
through the freedesktop notification service on the session bus; clicking it (the service's
default action) brings that session on screen.

Real parts: a private session bus (`dbus-launch`), the `dunst` notification daemon on the test's
Xvfb, `dbus-monitor` reading the bus for the `Notify` call, the real host on the scripted LLM.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from contract.methods import SESSION_CREATE, SESSION_PROMPT, SESSION_RENAME
from tests.desktop.support import AppFactory, gui_test
from tests.support.machine import need
from tests.support.scripted_llm import Reply, ScriptedLlmServer

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.gui, pytest.mark.timeout(240)]

NOTIFY_RULE = "type='method_call',interface='org.freedesktop.Notifications',member='Notify'"


def wait_until(predicate, timeout: float = 30.0):
    deadline = time.monotonic() + timeout
    while not (value := predicate()):
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.1)
    return value


@pytest.fixture
def notification_bus(display: str, tmp_path: Path) -> Iterator[tuple[dict[str, str], Path]]:
    """(the session bus's environment, the file dbus-monitor writes every Notify call to), with
    dunst serving notifications on the test's display."""
    need(
        all(shutil.which(tool) for tool in ("dbus-launch", "dunst", "dunstctl", "dbus-monitor", "dbus-send")),
        "dbus-x11, dunst and dbus-bin are needed for the notification test",
    )
    out = subprocess.run(["dbus-launch", "--sh-syntax"], capture_output=True, text=True, check=True).stdout
    values = dict(
        line.split("=", 1)[0:2]
        for line in (part.strip() for part in out.replace(";", "\n").splitlines())
        if "=" in line
    )
    address = values["DBUS_SESSION_BUS_ADDRESS"].strip("'")
    bus_pid = int(values["DBUS_SESSION_BUS_PID"])
    env = {**os.environ, "DISPLAY": display, "DBUS_SESSION_BUS_ADDRESS": address}
    started: list[subprocess.Popen[bytes]] = []
    try:
        started.append(subprocess.Popen(["dunst"], env=env, stderr=subprocess.DEVNULL))

        def owned() -> bool:
            ask = [
                *("dbus-send", "--session", "--print-reply", "--dest=org.freedesktop.DBus", "/"),
                *("org.freedesktop.DBus.NameHasOwner", "string:org.freedesktop.Notifications"),
            ]
            return "boolean true" in subprocess.run(ask, env=env, capture_output=True, text=True).stdout

        wait_until(owned, 20)
        log = tmp_path / "notify-calls.txt"
        started.append(
            subprocess.Popen(["dbus-monitor", "--session", NOTIFY_RULE], env=env, stdout=log.open("wb"))
        )
        wait_until(lambda: log.exists() and log.stat().st_size > 0, 20)  # the monitor's own hello
        yield {"DBUS_SESSION_BUS_ADDRESS": address}, log
    finally:
        for proc in reversed(started):
            proc.terminate()
            proc.wait(10)
        os.kill(bus_pid, signal.SIGTERM)


@gui_test
def test_a_session_that_finishes_off_screen_posts_a_notification_that_opens_it(
    apps: AppFactory, scripted_llm: ScriptedLlmServer, notification_bus: tuple[dict[str, str], Path]
) -> None:
    env, calls = notification_bus
    scripted_llm.reset()
    scripted_llm.enqueue(Reply(text="the report is ready"))
    provider = ["--provider", "openai-compatible", "--base-url", scripted_llm.base_url, "--model", "m"]
    app = apps.launch("--webui", str(ROOT / "webui"), "--real-host", *provider, env=env)
    page = app.page()
    wait_until(lambda: page.evaluate("document.documentElement.dataset.connection === 'connected'"))
    call = (
        "(async () => { const r = await window.harnessdesk.client.call(%s, %s);"
        " if (!r.ok) throw new Error(r.error.message); return r.value; })()"
    )
    sid = page.evaluate(call % (json.dumps(SESSION_CREATE.key), "{}"))["sessionId"]
    page.evaluate(
        call % (json.dumps(SESSION_RENAME.key), json.dumps({"sessionId": sid, "title": "Nightly report"}))
    )
    wait_until(
        lambda: page.evaluate(
            f"window.harnessdesk.app.manager.summaries.get({json.dumps(sid)})?.title === 'Nightly report'"
        )
    )
    assert page.evaluate("window.harnessdesk.app.manager.activeId") != sid  # not on screen
    prompt = {"sessionId": sid, "mode": "queue", "content": [{"type": "text", "text": "write the report"}]}
    page.evaluate(call % (json.dumps(SESSION_PROMPT.key), json.dumps(prompt)))

    seen = wait_until(
        lambda: "Nightly report" in calls.read_text(errors="replace") and calls.read_text(errors="replace")
    )
    assert 'string "HarnessDesk"' in seen and 'string "Finished its turn"' in seen
    assert 'string "default"' in seen  # clicking it is the default action
    wait_until(
        lambda: (
            subprocess.run(
                ["dunstctl", "count", "displayed"], env={**os.environ, **env}, capture_output=True, text=True
            ).stdout.strip()
            not in ("", "0")
        )
    )

    # the person clicks it: the window shows that session
    subprocess.run(["dunstctl", "action", "0"], env={**os.environ, **env}, check=True)
    wait_until(lambda: page.evaluate("window.harnessdesk.app.manager.activeId") == sid)
    assert app.proc.poll() is None
