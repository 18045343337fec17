"""`harnessdesk://app/`: the window's own origin for webui/, whichever engine shows it.

Why a custom scheme: browser engines refuse ES module scripts from file://, and pywebview's own
static server would open a loopback socket. The toolkit module (desktop/gtkshell.py) registers
the scheme and answers it with `resolve`, `content_type` and `HEADERS` from here: no socket.
"""

from __future__ import annotations

import mimetypes
from pathlib import Path

from host.server.csp import CSP

SCHEME = "harnessdesk"
ORIGIN = "harnessdesk://app"
START_URL = f"{ORIGIN}/index.html"
EXPORT_PATH = "/api/session.export"
LOCAL_SCHEMES = frozenset({SCHEME, "data", "blob", "about"})
_TYPES = {
    ".js": "text/javascript",
    ".mjs": "text/javascript",
    ".css": "text/css",
    ".html": "text/html",
    ".json": "application/json",
    ".svg": "image/svg+xml",
    ".woff2": "font/woff2",
    ".png": "image/png",
    ".ico": "image/x-icon",
}
# The loopback site's CSP, loosened only where pywebview needs it: it hands js_api results back
# through `eval` (so 'unsafe-eval') and injects an inline style. No inline script either way.
WINDOW_CSP = CSP.replace("script-src 'self'", "script-src 'self' 'unsafe-eval'").replace(
    "style-src 'self'", "style-src 'self' 'unsafe-inline'"
)
HEADERS = {
    "Content-Security-Policy": WINDOW_CSP,
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-cache",
}


def content_type(path: Path) -> str:
    ctype = _TYPES.get(path.suffix.lower()) or mimetypes.guess_type(path.name)[0]
    ctype = ctype or "application/octet-stream"
    return f"{ctype}; charset=utf-8" if ctype.startswith("text/") or ctype.endswith("json") else ctype


def resolve(root: Path, path: str) -> Path | None:
    """The file under `root` that `path` names (a folder means its index.html), or None when it
    does not exist or lies outside `root` (`..`, symlinks out)."""
    root = root.resolve()
    file = (root / path.lstrip("/")).resolve()
    if file.is_dir():
        file = file / "index.html"
    if not file.is_relative_to(root) or not file.is_file():
        return None
    return file
