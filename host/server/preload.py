"""The first screen's module list: `<link rel="modulepreload">` for every module main.js imports.

Without it the browser finds the ES module graph one level at a time (fetch a module, parse it,
only then ask for its imports): a waterfall as deep as the graph. With the whole list in the
page it asks for every module at once. The list is computed from the real files when the page is
first served (the loopback site and the window's `harnessdesk://` scheme both call `page`), so
it cannot go stale; no build step (docs/decisions.md, "First load").
"""

from __future__ import annotations

import os
import re
import threading
from collections import deque
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

OFF = "HARNESSDESK_NO_MODULE_PRELOAD"
"""Set to 1: the page without its list (the first-load bench's baseline, bench/first_load_bench.py;
a way out should a webview ever mishandle the links)."""

ENTRY = "js/main.js"
"""The page's one module script, relative to the webui folder."""

_SCRIPT = '<script type="module" src="js/main.js"></script>'
"""Where the links go: just before the entry script (index.html must contain it verbatim)."""

# `import x from "./a.js"`, `import {a,\n b} from "./a.js"`, `import "./a.js"`,
# `export {a} from "./a.js"`, `export * from "./a.js"`. Only relative specifiers: the page has
# no import map, so a bare one could not load anyway. Comments are removed first (JSDoc types
# say `import("../state/x.js")`, which is not an import).
_STATIC = re.compile(
    r"""(?:^|[;}\n])\s*(?:import|export)\s*(?:[\w*{}\s,$]+?\s*from\s*)?["'](\.{1,2}/[^"'\n]+)["']""",
    re.MULTILINE,
)
_COMMENTS = re.compile(r"/\*.*?\*/|(?<![:\"'\\])//[^\n]*", re.DOTALL)


@dataclass(frozen=True)
class Graph:
    """The static imports reachable from the entry: `levels[0]` is the entry itself."""

    levels: tuple[tuple[str, ...], ...]
    edges: dict[str, tuple[str, ...]]

    @property
    def modules(self) -> tuple[str, ...]:
        """Every reachable module (webui-relative POSIX paths), nearest first."""
        return tuple(m for level in self.levels for m in level)


def imports_of(source: str) -> list[str]:
    """The relative specifiers a module's static import/export statements name, in order."""
    code = _COMMENTS.sub(" ", source)
    return [m.group(1) for m in _STATIC.finditer(code)]


def module_graph(webui: Path, entry: str = ENTRY) -> Graph:
    """Breadth first from `entry`: the level a module sits on is the round trip at which a
    browser without preload first learns of it. A missing file is left out (the browser would
    report it; the list must not invent one)."""
    root = webui.resolve()
    seen = {entry}
    edges: dict[str, tuple[str, ...]] = {}
    levels: list[tuple[str, ...]] = []
    frontier = [entry]
    while frontier:
        levels.append(tuple(frontier))
        following: list[str] = []
        for module in frontier:
            targets = tuple(_resolve(root, module, spec) for spec in imports_of(_read(root, module)))
            edges[module] = tuple(t for t in targets if t is not None)
            for target in edges[module]:
                if target not in seen:
                    seen.add(target)
                    following.append(target)
        frontier = following
    return Graph(levels=tuple(levels), edges=edges)


def _read(root: Path, module: str) -> str:
    """A module's source; raises OSError or UnicodeDecodeError (the caller serves no list then)."""
    return (root / module).read_text(encoding="utf-8")


def _resolve(root: Path, module: str, spec: str) -> str | None:
    """`spec` relative to `module`, as a webui-relative path; None outside webui or missing."""
    parts: deque[str] = deque(PurePosixPath(module).parent.parts)
    for part in PurePosixPath(spec).parts:
        if part == "..":
            if not parts:
                return None
            parts.pop()
        elif part != ".":
            parts.append(part)
    path = "/".join(parts)
    return path if (root / path).is_file() else None


def links(graph: Graph) -> str:
    """One `<link rel="modulepreload">` per module besides the entry (the script tag fetches it)."""
    return "".join(f'<link rel="modulepreload" href="{m}">\n  ' for m in graph.modules[1:])


def render(index_html: str, graph: Graph) -> str:
    """index.html with the links before the entry script; unchanged when that tag is missing."""
    if _SCRIPT not in index_html:
        return index_html
    return index_html.replace(_SCRIPT, links(graph) + _SCRIPT, 1)


class PreloadedPage:
    """index.html with its preload list, built on first use and kept (the files do not change
    while the app runs; a developer who edits webui/ restarts the host, as for any Python)."""

    def __init__(self, webui: Path) -> None:
        self.webui = webui
        self._body: bytes | None = None
        self._lock = threading.Lock()

    def body(self) -> bytes:
        with self._lock:
            if self._body is None:
                html = (self.webui / "index.html").read_text(encoding="utf-8")
                self._body = self._render(html).encode("utf-8")
            return self._body

    def _render(self, html: str) -> str:
        """The page with its list; the page as it is when it has no entry script (another
        page: the window tests' own), when the list is switched off, or when a module cannot be
        read (the browser then reports that module itself: a preload must never break a load)."""
        if _SCRIPT not in html or os.environ.get(OFF) == "1":
            return html
        try:
            return render(html, module_graph(self.webui))
        except (OSError, UnicodeDecodeError):
            return html
