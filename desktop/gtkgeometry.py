"""The GTK window's geometry, read from GTK itself on its own thread (docs/decisions.md, "Window
geometry under a window manager").

pywebview reports `resized`, `moved` and `maximized` from a new thread per event, so their order
is lost, and its `moved` carries the client window's origin while `gtk_window_move` places the
window manager's frame. Here the window's own `configure-event` and `window-state-event` are
handled in order on the GTK thread, and the position is `gtk_window_get_position()`: the frame's
top-left corner, the value `gtk_window_move()` takes back on the next start.

Imported only once pywebview has chosen GTK.
"""

from __future__ import annotations

import importlib
from typing import Any

import gi

from desktop.geometry import Geometry, Rect

gi.require_version("Gdk", "3.0")
gi.require_version("Gtk", "3.0")
Gdk: Any = importlib.import_module("gi.repository.Gdk")  # the installed stubs describe GDK 4

_NOT_NORMAL = Gdk.WindowState.MAXIMIZED | Gdk.WindowState.FULLSCREEN | Gdk.WindowState.ICONIFIED


def monitor_areas() -> list[Rect]:
    """Every monitor's rectangle in screen coordinates (empty without a display)."""
    display = Gdk.Display.get_default()
    if display is None:
        return []
    out = []
    for i in range(display.get_n_monitors()):
        area = display.get_monitor(i).get_geometry()
        out.append((area.x, area.y, area.width, area.height))
    return out


def track(native: Any, geometry: Geometry) -> None:
    """Keep `geometry` up to date from the Gtk.Window `native` (call on the GTK thread)."""

    def on_configure(window: Any, _event: Any) -> bool:
        gdk_window = window.get_window()
        if gdk_window is not None and not gdk_window.get_state() & _NOT_NORMAL:
            width, height = window.get_size()
            x, y = window.get_position()
            geometry.normal(width, height, x, y)
        return False  # let GTK (and pywebview) see the event too

    def on_state(_window: Any, event: Any) -> bool:
        if event.changed_mask & Gdk.WindowState.MAXIMIZED:
            if event.new_window_state & Gdk.WindowState.MAXIMIZED:
                geometry.maximize()
            else:
                geometry.restore()
        return False

    native.connect("configure-event", on_configure)
    native.connect("window-state-event", on_state)
