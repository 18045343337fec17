"""Session titles: normalising user titles and deriving auto titles from the first words."""

from __future__ import annotations

import unicodedata

AUTO_TITLE_MAX = 60
USER_TITLE_MAX = 200


def normalise(text: str, limit: int = USER_TITLE_MAX) -> str:
    """Collapse whitespace, drop control/format characters; '' when nothing visible is left."""
    cleaned = "".join(
        " " if ch.isspace() else ch for ch in text if unicodedata.category(ch)[0] != "C" or ch.isspace()
    )
    flat = " ".join(cleaned.split())
    if not any(unicodedata.category(ch)[0] in "LNPS" for ch in flat):
        return ""
    return flat[:limit].rstrip()


def auto_title(first_user_text: str, limit: int = AUTO_TITLE_MAX) -> str | None:
    """The first user words trimmed to ~`limit` characters at a word boundary."""
    flat = normalise(first_user_text, limit=10_000)
    if not flat:
        return None
    if len(flat) <= limit:
        return flat
    cut = flat[: limit - 1]
    space = cut.rfind(" ")
    if space >= limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,.;:-") + "…"
