"""The window's web process gets the memory policy (docs/decisions/window-memory-policy.md).

WebKit reads the settings only when the context is built, and pywebview builds the context
itself; the proof that the routing works is WebKit acting on them: a policy with a limit far
below any web process and a kill threshold gets the web process terminated for its memory.
"""

from __future__ import annotations

import os
import subprocess
import sys

from tests.desktop.support import ROOT

PROBE = """
import sys, tempfile
from desktop import gtkshell
from gi.repository import GLib, Gtk
WebKit2 = gtkshell.WebKit2

def tiny():
    settings = gtkshell.web_memory_policy()
    settings.set_memory_limit(10)
    settings.set_kill_threshold(0.9)
    settings.set_poll_interval(0.5)
    return settings

gtkshell.limit_web_memory(tiny)
manager = WebKit2.WebsiteDataManager(base_data_directory=tempfile.mkdtemp(dir="/var/tmp"))
# the call pywebview makes for a window with a storage folder
context = WebKit2.WebContext.new_with_website_data_manager(manager)
view = WebKit2.WebView(web_context=context)
window = Gtk.Window()
window.add(view)
window.show_all()
seen = []
def terminated(_view, reason):
    seen.append(reason.value_nick)
    Gtk.main_quit()
view.connect("web-process-terminated", terminated)
view.load_html("<p>hello</p>", "about:blank")
GLib.timeout_add_seconds(90, Gtk.main_quit)  # a bound: the kill comes at the first poll
Gtk.main()
print(seen[0] if seen else "not terminated")
"""


def test_the_window_context_is_built_with_the_memory_policy(display: str) -> None:
    env = {**os.environ, "DISPLAY": display, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, env=env, capture_output=True, text=True, timeout=180
    )
    assert done.stdout.strip().splitlines()[-1:] == ["exceeded-memory-limit"], done.stderr[-2000:]


POLICY = """
from desktop import gtkshell
s = gtkshell.web_memory_policy()
print(s.get_memory_limit(), s.get_conservative_threshold(), s.get_strict_threshold(),
      s.get_kill_threshold(), s.get_poll_interval(), gtkshell.WEB_MEMORY_LIMIT_MB,
      gtkshell.WEB_MEMORY_POLL_S)
"""


def test_the_policy_releases_memory_and_never_kills_the_page(display: str) -> None:
    # WebKit terminates a web process only above a kill threshold, and 0 means never: a person
    # must never see the page crash for its memory, whatever the day held; the release
    # thresholds are the decided ones (docs/decisions/window-memory-policy.md)
    env = {**os.environ, "DISPLAY": display, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", POLICY], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    limit, conservative, strict, kill, poll, decided_limit, decided_poll = (
        float(x) for x in done.stdout.split()
    )
    assert kill == 0, "a kill threshold would crash the page at the limit"
    assert 0 < conservative < strict < 1
    assert (limit, poll) == (decided_limit, decided_poll)
