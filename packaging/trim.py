"""What the bundle leaves out: pure rules shared by the spec, `build.py --dry-run` and the tests.

The app only uses pywebview's Qt backend (QtWidgets + QtWebEngineWidgets). PyInstaller's Qt
hooks follow shared-library links, so they pull in far more than that (QtQuick/QML are genuine
link dependencies of QtWebEngineCore and must stay, but their QML files, most plugins and all
translations are not needed). Keeping the rules here, free of PyInstaller imports, lets them be
unit-tested and listed without a build.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable, Iterable, Sequence

# Python modules never wanted in the bundle: other GUI toolkits and pywebview backends, dev tools.
EXCLUDED_MODULES: tuple[str, ...] = (
    "tkinter",
    "_tkinter",
    "turtle",
    "turtledemo",
    "idlelib",
    "lib2to3",
    "pydoc_data",
    "ensurepip",
    "test",
    "unittest.test",
    "PySide2",
    "PySide6",
    "shiboken2",
    "shiboken6",
    "PyQt5",
    "gi",
    "cairo",
    "cefpython3",
    "android",
    "jnius",
    "webview.platforms.gtk",
    "webview.platforms.cef",
    "webview.platforms.mshtml",
    "webview.platforms.android",
    "pytest",
    "_pytest",
    "hypothesis",
    "playwright",
    "mypy",
    "mypyc",
    "ruff",
    "pip",
    "setuptools",
    "pkg_resources",
    "_distutils_hack",
    "PyInstaller",
    "IPython",
    "matplotlib",
    "numpy",
    "llm",
    "llama_cpp",
    # httpx's command-line client: `import httpx` tries it first and only falls back after
    # importing click and pygments (~0.1 s of every start); the app never runs it.
    "httpx._main",
    "pygments",
    "rich",
    # PyQt6 bindings the app never imports (their libraries would follow). QtQml/QtQuick/
    # QtPositioning/QtDBus libraries stay (QtWebEngineCore links them); only the bindings go.
    "PyQt6.Qt3DAnimation",
    "PyQt6.Qt3DCore",
    "PyQt6.Qt3DExtras",
    "PyQt6.Qt3DInput",
    "PyQt6.Qt3DLogic",
    "PyQt6.Qt3DRender",
    "PyQt6.QtBluetooth",
    "PyQt6.QtDBus",
    "PyQt6.QtDesigner",
    "PyQt6.QtHelp",
    "PyQt6.QtMultimedia",
    "PyQt6.QtMultimediaWidgets",
    "PyQt6.QtNfc",
    "PyQt6.QtPdf",
    "PyQt6.QtPdfWidgets",
    "PyQt6.QtPositioning",
    "PyQt6.QtQml",
    "PyQt6.QtQuick",
    "PyQt6.QtQuick3D",
    "PyQt6.QtQuickWidgets",
    "PyQt6.QtRemoteObjects",
    "PyQt6.QtSensors",
    "PyQt6.QtSerialPort",
    "PyQt6.QtSpatialAudio",
    "PyQt6.QtSql",
    "PyQt6.QtStateMachine",
    "PyQt6.QtSvgWidgets",
    "PyQt6.QtTest",
    "PyQt6.QtTextToSpeech",
    "PyQt6.QtWebEngineQuick",
    "PyQt6.QtWebSockets",
    "PyQt6.QtXml",
    "PyQt6.uic",
    "PyQt6.lupdate",
    "qtpy.tests",
)

# Each platform ships one pywebview backend; the others' modules stay out.
_WINDOWS_BACKEND = (
    "clr",
    "clr_loader",
    "pythonnet",
    "webview.platforms.winforms",
    "webview.platforms.edgechromium",
    "webview.platforms.win32",
)
_MAC_BACKEND = ("objc", "AppKit", "Foundation", "WebKit", "Quartz", "webview.platforms.cocoa")
_QT_BACKEND = ("PyQt6", "qtpy", "webview.platforms.qt")
BACKEND_EXCLUDES: dict[str, tuple[str, ...]] = {
    "linux": _WINDOWS_BACKEND + _MAC_BACKEND,
    "win32": _MAC_BACKEND + _QT_BACKEND,
    "darwin": _WINDOWS_BACKEND + _QT_BACKEND,
}


def platform_key(platform: str) -> str:
    """`sys.platform` folded to the three keys above."""
    if platform.startswith("win"):
        return "win32"
    return "darwin" if platform == "darwin" else "linux"


def excluded_modules(platform: str) -> list[str]:
    """Modules PyInstaller must not collect on `platform` (a `sys.platform` value)."""
    return [*EXCLUDED_MODULES, *BACKEND_EXCLUDES[platform_key(platform)]]


# Python packages whose test sub-packages are dropped (any dotted component named like this).
TEST_COMPONENTS: frozenset[str] = frozenset({"tests", "testing_support"})

QT_PREFIX = "PyQt6/Qt6/"

# Qt plugins kept, per plugin directory; a directory not listed here is dropped entirely.
QT_PLUGINS_KEPT: dict[str, tuple[str, ...]] = {
    "platforms": ("libqxcb.so", "libqwayland*.so", "libqoffscreen.so", "qwindows.dll", "libqcocoa.dylib"),
    "xcbglintegrations": ("*",),
    "wayland-decoration-client": ("*",),
    "wayland-graphics-integration-client": ("*",),
    "wayland-shell-integration": ("*",),
    "platformthemes": ("libqxdgdesktopportal.so",),  # not libqgtk3: it would drag GTK in
    "platforminputcontexts": ("*",),  # ibus / compose: typing non-ASCII text
    "imageformats": ("*qgif*", "*qico*", "*qjpeg*", "*qsvg*", "*qwebp*"),
    "iconengines": ("*",),
    "tls": ("*",),
    "styles": ("*",),  # Windows/macOS native widget styles
}

# Qt libraries the app never loads even when a hook lists them (link deps of nothing we keep).
QT_LIBS_DROPPED: tuple[str, ...] = (
    "*Qt6Qt3D*",
    "*Qt63D*",
    "*Qt6Quick3D*",
    "*Qt6Multimedia*",
    "*Qt6FFmpeg*",
    "*Qt6SpatialAudio*",
    "*Qt6Designer*",
    "*Qt6Help*",
    "*Qt6Pdf*",
    "*Qt6QuickControls2*",
    "*Qt6QuickDialogs2*",
    "*Qt6QuickTemplates2*",
    "*Qt6QuickTest*",
    "*Qt6Test*",
    "*Qt6Labs*",
    "*Qt6Sensors*",
    "*Qt6Bluetooth*",
    "*Qt6Nfc*",
    "*Qt6SerialPort*",
    "*Qt6TextToSpeech*",
    "*Qt6RemoteObjects*",
    "*Qt6Sql*",
    "*Qt6StateMachine*",
    "*Qt6ShaderTools*",
    "*Qt6WebEngineQuick*",
    "*Qt6WebChannelQuick*",
    "*Qt6PositioningQuick*",
)

WEBENGINE_LOCALES = QT_PREFIX + "translations/qtwebengine_locales/"
KEPT_LOCALES: tuple[str, ...] = ("en-US.pak",)

# Other files never shipped: Chromium devtools (only for pywebview debug mode), QML sources
# (QtWebEngineWidgets needs none), debug symbols, caches.
DROPPED_PATTERNS: tuple[str, ...] = (
    QT_PREFIX + "resources/qtwebengine_devtools_resources.pak",
    QT_PREFIX + "qml/*",
    QT_PREFIX + "qsci/*",
    "*/__pycache__/*",
    "*.pyc",
    "*.pyi",
    "*.debug",
    "*.dbg",
    "*.pdb",
    "*.a",
    "*.lib",
    "*/tests/*",
)


def _norm(dest: str) -> str:
    return dest.replace("\\", "/").lstrip("./")


def drop_reason(dest: str) -> str | None:
    """Why a file at bundle path `dest` is left out ("category: detail"), or None when it ships."""
    path = _norm(dest)
    if path.startswith(QT_PREFIX + "translations/"):
        if path.startswith(WEBENGINE_LOCALES):
            name = path[len(WEBENGINE_LOCALES) :]
            return None if name in KEPT_LOCALES else f"webengine-locale: {name} (only en-US ships)"
        return "qt-translation: the UI is the web page, in English"
    if path.startswith(QT_PREFIX + "plugins/"):
        rest = path[len(QT_PREFIX + "plugins/") :]
        kind, _, name = rest.partition("/")
        patterns = QT_PLUGINS_KEPT.get(kind)
        if patterns is None:
            return f"qt-plugin-group: {kind} unused"
        if not any(fnmatch.fnmatch(name, p) for p in patterns):
            return f"qt-plugin: {kind}/{name} unused"
        return None
    base = path.rsplit("/", 1)[-1]
    if any(fnmatch.fnmatch(base, p) for p in QT_LIBS_DROPPED):
        return f"qt-library: {base} (module not used)"
    for pattern in DROPPED_PATTERNS:
        if fnmatch.fnmatch(path, pattern):
            return f"pattern: {pattern}"
    return None


def keep_module(name: str, platform: str = "linux") -> bool:
    """Whether Python module `name` goes into the archive (tests and dev tools do not)."""
    parts = name.split(".")
    if any(p in TEST_COMPONENTS for p in parts):
        return False
    return not any(name == ex or name.startswith(ex + ".") for ex in excluded_modules(platform))


def split(dests: Iterable[str]) -> tuple[list[str], list[tuple[str, str]]]:
    """Partition bundle paths into (kept, [(dropped, reason)])."""
    kept: list[str] = []
    dropped: list[tuple[str, str]] = []
    for dest in dests:
        reason = drop_reason(dest)
        if reason is None:
            kept.append(dest)
        else:
            dropped.append((dest, reason))
    return kept, dropped


# Libraries loaded with dlopen, never linked: NSS's modules (QtWebEngine's certificate store) and
# libpython (the bootloader loads it). Orphan pruning must not take them for dead weight.
DLOPENED: tuple[str, ...] = (
    "libsoftokn3.so",
    "libfreebl3.so",
    "libfreeblpriv3.so",
    "libnssckbi.so",
    "libnssdbm3.so",
    "libpython3*.so*",
)
TocEntry = tuple[str, str, str]


def is_linked_library(dest: str) -> bool:
    """A shared library that is only there because something links it (a pruning candidate);
    Python extensions, Qt plugins, executables and dlopen'ed libraries are roots instead."""
    path = _norm(dest)
    base = path.rsplit("/", 1)[-1]
    if "/plugins/" in f"/{path}" or any(fnmatch.fnmatch(base, p) for p in DLOPENED):
        return False
    return base.startswith("lib") and ".so" in base


def prune_orphans(
    entries: Sequence[TocEntry], needed: Callable[[str], list[str]]
) -> tuple[list[TocEntry], list[TocEntry]]:
    """Drop linked libraries nothing kept still links (they came in for files trimmed above).

    `needed(source_path)` returns an ELF's DT_NEEDED names. Returns (kept, dropped).
    """
    by_base: dict[str, list[TocEntry]] = {}
    for entry in entries:
        by_base.setdefault(_norm(entry[0]).rsplit("/", 1)[-1], []).append(entry)
    todo = [e for e in entries if not is_linked_library(e[0])]
    reached: set[str] = set()
    while todo:
        entry = todo.pop()
        for name in needed(entry[1]):
            if name in reached:
                continue
            reached.add(name)
            todo.extend(by_base.get(name, []))
    kept, dropped = [], []
    for entry in entries:
        base = _norm(entry[0]).rsplit("/", 1)[-1]
        (kept if not is_linked_library(entry[0]) or base in reached else dropped).append(entry)
    return kept, dropped
