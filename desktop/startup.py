"""Start-up work the app skips (docs/decisions.md, "Token to pixel, relay and cold start").

pydantic looks for plugins in the entry points of every installed distribution when it builds
its first validator: a scan of all their metadata before `serve` can print its listening line
or the window can ask its first question. The app installs no pydantic plugin, so it tells
pydantic there are none instead.
"""

from __future__ import annotations


def skip_pydantic_plugin_scan() -> None:
    """Record "no plugins" unless pydantic already looked (harmless if its internals change)."""
    try:
        from pydantic.plugin import _loader
    except ImportError:  # pragma: no cover - a pydantic without plugin support
        return
    if getattr(_loader, "_plugins", False) is None:
        _loader._plugins = {}
