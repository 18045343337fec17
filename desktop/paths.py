"""Where the app finds its files, from a source checkout or from a PyInstaller bundle.

PyInstaller unpacks data next to the executable and points `sys._MEIPASS` at it; a checkout has
the same layout under the repository root, so both resolve `webui/` and `desktop/bridge.js` the
same way.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

APP_NAME = "HarnessDesk"


def resource_root() -> Path:
    """The folder holding `webui/` and `desktop/`: the bundle in a frozen app, else the repo."""
    bundled = getattr(sys, "_MEIPASS", None)
    if bundled:
        return Path(bundled)
    return Path(__file__).resolve().parent.parent


def webui_dir() -> Path:
    return resource_root() / "webui"


def bridge_js() -> Path:
    return resource_root() / "desktop" / "bridge.js"


def icon_file() -> Path | None:
    """The first window icon that exists, or None (the window then keeps the toolkit default)."""
    for rel in ("webui/icons/harnessdesk.png", "webui/icon.png", "packaging/icons/harnessdesk.png"):
        candidate = resource_root() / rel
        if candidate.is_file():
            return candidate
    return None


def default_data_dir() -> Path:
    import platformdirs

    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def data_dir_of(arg: str | None) -> Path:
    """The data dir `--data-dir` names (or the platform default), without creating or checking it
    (the command line reads its language from it before anything else; desktop/i18n)."""
    return Path(arg).expanduser().resolve() if arg else default_data_dir()


def resolve_data_dir(arg: str | None) -> Path:
    """The data dir from `--data-dir` or the platform default, created 0700 if missing.

    Raises OSError when it cannot be created or is not a writable directory.
    """
    path = data_dir_of(arg)
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    if not path.is_dir() or not os.access(path, os.W_OK | os.X_OK):
        from desktop.i18n import t

        raise OSError(t("cli.dataDirUnusable", path=path))
    return path
