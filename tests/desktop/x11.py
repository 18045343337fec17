"""X11 helpers for the window tests: a free Xvfb display, finding and politely closing windows.

Closing like a user means the window manager's WM_DELETE_WINDOW client message (GTK turns it
into delete-event). Xvfb has no window manager and this xdotool has no `windowquit`, so we send
the message with libX11 through ctypes.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import select
import subprocess
import tempfile
import time
from pathlib import Path


def start_xvfb(own_session: bool = False) -> tuple[subprocess.Popen[bytes], str]:
    """Xvfb on a display it picks itself (`-displayfd`: no race with the other test workers'
    servers), 1280x800x24, no TCP; waits until it accepts clients. `own_session`: in a session
    of its own, as a desktop's display server is (not in the scheduling group of the CPU burners
    a bench starts)."""
    for _ in range(5):
        read_end, write_end = os.pipe()
        proc = subprocess.Popen(
            ["Xvfb", "-displayfd", str(write_end), "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            pass_fds=(write_end,),
            start_new_session=own_session,
        )
        os.close(write_end)
        number = _read_display(read_end, time.monotonic() + 10)
        os.close(read_end)
        display = f":{number}"
        deadline = time.monotonic() + 10
        while number is not None and time.monotonic() < deadline and proc.poll() is None:
            probe = subprocess.run(["xdpyinfo", "-display", display], capture_output=True)
            if probe.returncode == 0:
                return proc, display
            time.sleep(0.1)
        proc.kill()
        proc.wait()
    raise RuntimeError("Xvfb did not start")


def _read_display(fd: int, deadline: float) -> str | None:
    """The display number Xvfb writes to `fd` once it listens (None if it exits or is late)."""
    got = b""
    while not got.endswith(b"\n"):
        ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
        chunk = os.read(fd, 16) if ready else b""
        if not chunk:
            return None
        got += chunk
    return got.decode().strip()


def find_windows(display: str, name: str, pid: int | None = None) -> list[int]:
    args = ["xdotool", "search", "--onlyvisible", "--name", name]
    if pid is not None:
        args[2:2] = ["--pid", str(pid)]
    out = subprocess.run(args, capture_output=True, text=True, env={**os.environ, "DISPLAY": display})
    return [int(w) for w in out.stdout.split()]


def window_geometry(display: str, window: int) -> tuple[int, int]:
    """(width, height) of a window, from xdotool."""
    out = subprocess.run(
        ["xdotool", "getwindowgeometry", "--shell", str(window)],
        capture_output=True,
        text=True,
        env={**os.environ, "DISPLAY": display},
    ).stdout
    values = dict(line.split("=", 1) for line in out.split() if "=" in line)
    return int(values["WIDTH"]), int(values["HEIGHT"])


class _ClientMessage(ctypes.Structure):
    _fields_ = [
        ("type", ctypes.c_int),
        ("serial", ctypes.c_ulong),
        ("send_event", ctypes.c_int),
        ("display", ctypes.c_void_p),
        ("window", ctypes.c_ulong),
        ("message_type", ctypes.c_ulong),
        ("format", ctypes.c_int),
        ("data", ctypes.c_long * 5),
    ]


class _XEvent(ctypes.Union):
    _fields_ = [("xclient", _ClientMessage), ("pad", ctypes.c_long * 24)]


def close_window(display: str, window: int) -> None:
    """Send WM_DELETE_WINDOW, as a window manager's close button does."""
    lib = ctypes.cdll.LoadLibrary(ctypes.util.find_library("X11") or "libX11.so.6")
    lib.XOpenDisplay.restype = ctypes.c_void_p
    lib.XOpenDisplay.argtypes = [ctypes.c_char_p]
    lib.XInternAtom.restype = ctypes.c_ulong
    lib.XInternAtom.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
    lib.XSendEvent.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_int, ctypes.c_long, ctypes.c_void_p]
    lib.XFlush.argtypes = [ctypes.c_void_p]
    lib.XCloseDisplay.argtypes = [ctypes.c_void_p]
    dpy = lib.XOpenDisplay(display.encode())
    if not dpy:
        raise RuntimeError(f"cannot open display {display}")
    try:
        event = _XEvent()
        event.xclient.type = 33  # ClientMessage
        event.xclient.window = window
        event.xclient.message_type = lib.XInternAtom(dpy, b"WM_PROTOCOLS", 0)
        event.xclient.format = 32
        event.xclient.data[0] = lib.XInternAtom(dpy, b"WM_DELETE_WINDOW", 0)
        event.xclient.data[1] = 0  # CurrentTime
        lib.XSendEvent(dpy, window, 0, 0, ctypes.byref(event))
        lib.XFlush(dpy)
    finally:
        lib.XCloseDisplay(dpy)


def screenshot(display: str, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        ["import", "-window", "root", str(path)],
        check=True,
        env={**os.environ, "DISPLAY": display},
        timeout=30,
    )
    return path


def xdotool(display: str, *args: str) -> None:
    """Real X input (keys, focus) on `display`, as a person's keyboard would send it."""
    subprocess.run(["xdotool", *args], env={**os.environ, "DISPLAY": display}, check=True, timeout=60)


def start_openbox(display: str) -> subprocess.Popen[bytes]:
    """Openbox, a real window manager, on `display`: it reparents windows into frames, places
    them, and keeps a newly mapped window on screen; waits until it owns the display. Tried up
    to three times (as Xvfb is); a failure says what openbox printed."""
    env = {**os.environ, "DISPLAY": display}
    said = ""
    for _ in range(3):
        with tempfile.TemporaryFile() as log:
            proc = subprocess.Popen(["openbox", "--sm-disable"], env=env, stdout=log, stderr=log)
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and proc.poll() is None:
                probe = subprocess.run(["wmctrl", "-m"], env=env, capture_output=True, text=True)
                if probe.returncode == 0 and "Openbox" in probe.stdout:
                    return proc
                time.sleep(0.1)
            proc.kill()
            proc.wait()
            log.seek(0)
            said = log.read().decode(errors="replace").strip()[-2000:]
    raise RuntimeError(f"openbox did not start on {display} (exit {proc.returncode}): {said}")


def placement(display: str, window: int) -> tuple[int, int, int, int]:
    """(x, y, width, height) of a window's client area in screen coordinates (xwininfo's absolute
    upper-left corner: what a person sees, inside the window manager's frame)."""
    out = subprocess.run(
        ["xwininfo", "-id", str(window)],
        capture_output=True,
        text=True,
        env={**os.environ, "DISPLAY": display},
        timeout=30,
    ).stdout
    values = dict(line.strip().split(":", 1) for line in out.splitlines() if ":" in line)
    keys = ("Absolute upper-left X", "Absolute upper-left Y", "Width", "Height")
    x, y, width, height = (int(values[k].strip()) for k in keys)
    return x, y, width, height


def xprop(display: str, window: int, name: str) -> str:
    """One property of a window as xprop prints it (`NAME(TYPE) = …`)."""
    return subprocess.run(
        ["xprop", "-id", str(window), name],
        capture_output=True,
        text=True,
        env={**os.environ, "DISPLAY": display},
        timeout=30,
    ).stdout.strip()


def frame_extents(display: str, window: int) -> tuple[int, int, int, int]:
    """(left, right, top, bottom) of the window manager's frame around `window`."""
    value = xprop(display, window, "_NET_FRAME_EXTENTS").partition("=")[2]
    left, right, top, bottom = (int(v) for v in value.split(","))
    return left, right, top, bottom


def wmctrl(display: str, window: int, *args: str) -> None:
    """Ask the window manager to move, resize or maximize `window`, as a person's drag does."""
    subprocess.run(
        ["wmctrl", "-i", "-r", str(window), *args],
        env={**os.environ, "DISPLAY": display},
        check=True,
        timeout=30,
    )
