"""Reading a computed `box-shadow` (docs/decisions/cheap-scroll-frames.md)."""

from __future__ import annotations

import re

_LENGTHS = re.compile(r"(?:\)|\b[a-z]+)\s+(-?[\d.]+)px\s+(-?[\d.]+)px\s+(-?[\d.]+)px")


SHADOW_TOKENS = """(() => {
  const probe = document.createElement("div");
  document.body.append(probe);
  const shadows = ["--shadow", "--shadow-lg"].map((token) => {
    probe.style.boxShadow = `var(${token})`;
    return getComputedStyle(probe).boxShadow;
  });
  probe.remove();
  return shadows.join(", ");
})()"""
"""One JS expression: the page's shadow tokens as computed `box-shadow`s, joined (what every card,
popup and the composer draws, without their focus rings and transitions)."""


def blur_radii(box_shadow: str) -> list[float]:
    """The blur radius of each shadow in a computed `box-shadow` ("rgba(…) 0px 1px 2px 0px, …"):
    the third length after its colour."""
    return [float(blur) for _, _, blur in _LENGTHS.findall(box_shadow)]
