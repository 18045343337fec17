"""Screenshots of one state at 800 and 1600 px wide, in the light and the dark theme.

Saved as test artifacts under tests/screenshots/ (ignored by git) for a person to look at; they
are never compared to references. The theme is switched with the browser's colour scheme, which
the UI follows while its theme setting is "system" (the default).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from playwright.sync_api import Page

from tests.browser.support import ROOT, VIEWPORT, snap

SHOTS = ROOT / "tests" / "screenshots"
WIDTHS = (800, 1600)
THEMES = ("light", "dark")


def shoot_all(
    page: Page,
    name: str,
    height: int = 900,
    blur: bool = True,
    prefix: str = "ux",
    check: Callable[[str], None] | None = None,
) -> list[Path]:
    """`<prefix>-<name>-<width>-<theme>.png` for each width and theme; `check(theme)` runs before
    each shot (e.g. a contrast assertion). The page is left at its original size and the light
    scheme (and, with `blur`, without the focus)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    paths: list[Path] = []
    if blur:
        page.evaluate("() => document.activeElement?.blur?.()")
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": height})
        for theme in THEMES:
            page.emulate_media(color_scheme=theme)  # type: ignore[arg-type]
            if check is not None:
                check(theme)
            path = SHOTS / f"{prefix}-{name}-{width}-{theme}.png"
            snap(page, path)
            paths.append(path)
    page.set_viewport_size(VIEWPORT)
    page.emulate_media(color_scheme="light")
    return paths
