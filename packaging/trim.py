"""What the bundle leaves out: pure rules shared by the spec, `build.py --dry-run` and the tests.

On Linux the window is the system's WebKitGTK (docs/decisions.md, "Performance and packaging"):
the bundle carries PyGObject's and pycairo's bindings but no library of the GTK/WebKitGTK
stack. PyInstaller's GI hooks would collect that stack (GTK, GLib, WebKit, their typelibs, GTK
data) and point GTK at the bundle through runtime hooks, so the `gi.repository` namespaces stay
out of the analysis, and every library the system's WebKitGTK or libgirepository loads is
dropped by name (`system_stack`, computed at build time): one GLib in the process, the system's.
Keeping the rules here, free of PyInstaller imports, lets them be unit-tested and listed
without a build.
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
    "PyQt6",
    "qtpy",
    "cefpython3",
    "android",
    "jnius",
    "webview.platforms.qt",
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
    # PyYAML's libyaml binding (~2.7 MB): the frontmatter reader uses the pure-Python safe
    # loader, and `import yaml` goes on without it
    "yaml._yaml",
    "yaml.cyaml",
    "_yaml",
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
_GTK_BACKEND = ("gi", "cairo", "webview.platforms.gtk")
# The GI namespaces the window loads (pywebview's GTK backend and desktop/gtkshell.py): resolved
# from the system's typelibs at run time, never analysed (their hooks would bundle the stack).
GI_NAMESPACES: tuple[str, ...] = tuple(
    f"gi.repository.{name}"
    for name in (
        "GLib", "GObject", "Gio", "GModule", "Gtk", "Gdk", "GdkPixbuf", "Pango", "PangoCairo",
        "HarfBuzz", "Atk", "cairo", "WebKit2", "JavaScriptCore", "Soup", "GIRepository",
        "freetype2", "xlib", "GioUnix", "GLibUnix", "GioWin32", "GLibWin32",
    )
)  # fmt: skip
BACKEND_EXCLUDES: dict[str, tuple[str, ...]] = {
    "linux": _WINDOWS_BACKEND + _MAC_BACKEND + GI_NAMESPACES,
    "win32": _MAC_BACKEND + _GTK_BACKEND,
    "darwin": _WINDOWS_BACKEND + _GTK_BACKEND,
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

# Other files never shipped: GI data a hook may still add (typelibs, GTK data, loaders: the
# system's are used), debug symbols, caches.
DROPPED_PATTERNS: tuple[str, ...] = (
    "gi_typelibs/*",
    "gio_modules/*",
    "share/*",
    "lib/gdk-pixbuf*",
    "etc/*",
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


def drop_reason(dest: str, system: frozenset[str] = frozenset()) -> str | None:
    """Why a file at bundle path `dest` is left out ("category: detail"), or None when it ships.
    `system`: the sonames of the system's GTK/WebKitGTK stack (`system_stack` at build time)."""
    path = _norm(dest)
    base = path.rsplit("/", 1)[-1]
    if base in system:
        return f"system-library: {base} (the system's GTK/WebKitGTK stack: one GLib in the process)"
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


def split(
    dests: Iterable[str], system: frozenset[str] = frozenset()
) -> tuple[list[str], list[tuple[str, str]]]:
    """Partition bundle paths into (kept, [(dropped, reason)])."""
    kept: list[str] = []
    dropped: list[tuple[str, str]] = []
    for dest in dests:
        reason = drop_reason(dest, system)
        if reason is None:
            kept.append(dest)
        else:
            dropped.append((dest, reason))
    return kept, dropped


# Libraries loaded with dlopen, never linked: libpython (the bootloader loads it). Orphan
# pruning must not take them for dead weight.
DLOPENED: tuple[str, ...] = ("libpython3*.so*",)
TocEntry = tuple[str, str, str]


def is_linked_library(dest: str) -> bool:
    """A shared library that is only there because something links it (a pruning candidate);
    Python extensions, plugins, executables and dlopen'ed libraries are roots instead."""
    path = _norm(dest)
    base = path.rsplit("/", 1)[-1]
    if "/plugins/" in f"/{path}" or any(fnmatch.fnmatch(base, p) for p in DLOPENED):
        return False
    return base.startswith("lib") and ".so" in base


def prune_orphans(
    entries: Sequence[TocEntry], needed: Callable[[str], list[str]]
) -> tuple[list[TocEntry], list[TocEntry]]:
    """Drop linked libraries nothing kept still links (they came in for libraries dropped above).

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


def system_stack(roots: Iterable[str], resolve: Callable[[str], dict[str, str]]) -> frozenset[str]:
    """The sonames `roots` (system libraries, e.g. libwebkit2gtk-4.1.so.0) load, themselves
    included. `resolve(soname)` maps a library to what it loads (`ldd`: soname -> path). glibc's
    own libraries are never bundled anyway and stay out of the set."""
    out: set[str] = set()
    for root in roots:
        out.add(root)
        out.update(resolve(root))
    return frozenset(n for n in out if not n.startswith(GLIBC_PREFIXES))


GLIBC_PREFIXES = ("linux-vdso", "ld-linux", "libc.so", "libm.so", "libdl.so", "libpthread.so", "librt.so")
