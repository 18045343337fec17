"""How the window's engine paints on this machine: on a GPU, or in software
(docs/decisions/cheap-scroll-frames.md).

Without a GPU render node (a VM, Xvfb, a remote X session) WebKitGTK rasterises the page on the
CPU, and every frame repaints what is on screen; a blurred shadow in view then costs each frame
more than the rest of it. The window tells the page (`page_prelude`), which drops the blur.
"""

from __future__ import annotations

import glob


def has_render_node() -> bool:
    """A GPU render node the window's engine can use (`/dev/dri/renderD*`)."""
    return bool(glob.glob("/dev/dri/renderD*"))
