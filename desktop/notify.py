"""The window's desktop notifications: the freedesktop notification service
(`org.freedesktop.Notifications` on the session bus) through GLib's own D-Bus client, Gio, which
the window already loads for GTK: nothing more to bundle (docs/decisions.md, "Parallel sessions
and attention").

`Notify` carries a `default` action; the service sends `ActionInvoked(id, "default")` when the
person clicks the notification, and the session it was about opens. With no session bus (no
desktop, a bare X server) a notification is simply not shown: `notify` answers False.
"""

from __future__ import annotations

import logging
import os
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)

NAME = "org.freedesktop.Notifications"
PATH = "/org/freedesktop/Notifications"
APP_NAME = "HarnessDesk"
CALL_TIMEOUT_MS = 3000
"""Bound on one Notify call (a stuck notification daemon must not hold the page's call)."""
REMEMBERED = 64
"""Notification ids kept for their clicks (the oldest are forgotten)."""


def session_bus_known() -> bool:
    """A session bus is announced: never let Gio auto-launch one for a notification."""
    if os.environ.get("DBUS_SESSION_BUS_ADDRESS"):
        return True
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    return bool(runtime) and os.path.exists(os.path.join(runtime or "", "bus"))


class DesktopNotifications:
    """Posts notifications and routes their clicks to `open_session` (called on a thread of its
    own: the shell's `show_session` waits on the GUI loop, which delivers the click)."""

    def __init__(self, open_session: Callable[[str], None]) -> None:
        self._open_session = open_session
        self._bus: Any = None
        self._ids: OrderedDict[int, str] = OrderedDict()
        self._lock = threading.Lock()

    def notify(self, session_id: str, title: str, body: str, action_label: str) -> bool:
        """Show one notification; False when there is no notification service to show it."""
        from gi.repository import Gio, GLib

        bus = self._connect()
        if bus is None:
            return False
        with self._lock:
            replaces = next((nid for nid, sid in self._ids.items() if sid == session_id), 0)
        args = GLib.Variant(
            "(susssasa{sv}i)",
            (APP_NAME, replaces, "", title, body, ["default", action_label], {}, -1),
        )
        try:
            reply = bus.call_sync(
                NAME, PATH, NAME, "Notify", args, GLib.VariantType("(u)"),
                Gio.DBusCallFlags.NONE, CALL_TIMEOUT_MS, None,
            )  # fmt: skip
        except GLib.Error as exc:
            log.info("no desktop notification: %s", exc.message)
            return False
        (notification_id,) = reply.unpack()
        with self._lock:
            self._ids.pop(replaces, None)
            self._ids[notification_id] = session_id
            while len(self._ids) > REMEMBERED:
                self._ids.popitem(last=False)
        return True

    def _connect(self) -> Any:
        """The session bus with the click signal subscribed (once), or None."""
        from gi.repository import Gio, GLib

        with self._lock:
            if self._bus is not None:
                return self._bus
            if not session_bus_known():
                return None
            try:
                bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
            except GLib.Error as exc:
                log.info("no session bus for notifications: %s", exc.message)
                return None
            # delivered on the global default main context: the GTK loop of the window
            bus.signal_subscribe(
                NAME, NAME, "ActionInvoked", PATH, None, Gio.DBusSignalFlags.NONE, self._invoked
            )
            self._bus = bus
            return bus

    def _invoked(self, _bus: Any, _sender: str, _path: str, _iface: str, _signal: str, params: Any) -> None:
        notification_id, action = params.unpack()
        with self._lock:
            session_id = self._ids.get(notification_id)
        if session_id is None or action != "default":
            return
        threading.Thread(
            target=self._open_session, args=(session_id,), name="notification-click", daemon=True
        ).start()
