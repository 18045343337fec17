"""Tooltips in the desktop window (pywebview over WebKitGTK, under Xvfb; issue 46, item 9):
WebKitGTK keeps its own tooltip on screen until the pointer moves, a key or a button is pressed —
over a dialog that opened meanwhile (seen here: the Import button's tooltip over Settings opened
without a key or a click). With the page's own tooltip (webui/js/views/tooltip.js) a real X
pointer resting on the button shows it and holds the title back from WebKit, and a dialog that
opens over it hides it."""

from __future__ import annotations

import time

import pytest

from tests.desktop.support import AppFactory, gui_test
from tests.desktop.test_window_folders import connected, launch, wait_until, xdotool
from tests.support.scripted_llm import ScriptedLlmServer

pytestmark = [pytest.mark.gui, pytest.mark.timeout(180)]

TIP = "document.querySelector('[data-testid=tooltip]')"


@gui_test
def test_the_pointers_tooltip_goes_when_a_dialog_opens_over_it(
    apps: AppFactory, llm: ScriptedLlmServer
) -> None:
    app = launch(apps, llm)
    page = connected(app)
    window = app.window()
    xdotool(app.display, "windowfocus", "--sync", str(window))
    where = (
        "(() => { const r = document.getElementById('import-archive').getBoundingClientRect();"
        " return [r.x + r.width / 2, r.y + r.height / 2]; })()"
    )
    x, y = (int(v) for v in page.evaluate(where))
    xdotool(app.display, "mousemove", "--window", str(window), str(x), str(y))
    time.sleep(0.2)
    xdotool(app.display, "mousemove", "--window", str(window), str(x + 2), str(y))  # rests on Import…
    wait_until(lambda: page.evaluate(f"{TIP} !== null && !{TIP}.hidden"), what="the page's tooltip shows")
    assert page.evaluate(f"{TIP}.textContent").startswith("Import a session archive")
    # held back from WebKit while the pointer is on it: WebKit has no title to show
    assert page.evaluate("document.getElementById('import-archive').hasAttribute('title')") is False
    page.evaluate("window.harnessdesk.app.settings.open()")  # no key, no click: the pointer rests
    wait_until(lambda: page.evaluate(f"{TIP}.hidden"), what="the tooltip goes under the dialog")
    assert page.evaluate("!!document.querySelector('dialog[open]')") is True
