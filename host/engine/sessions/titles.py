"""Session titles: normalising user titles and deriving auto titles from the first words."""

from __future__ import annotations

import re
import unicodedata
from datetime import datetime

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


EXPORT_NAME_MAX = 80


def export_file_name(title: str | None, when_ms: int, session_id: str) -> str:
    """An export's file name: the title's words (letters and digits of any script, joined by
    `-`) and the session's local date; untitled sessions get a short id instead of words
    (docs/decisions.md, "UX pass")."""
    day = datetime.fromtimestamp(when_ms / 1000).strftime("%Y-%m-%d")
    words = re.findall(r"[^\W_]+", normalise(title or "", limit=1000))
    slug = "-".join(words)[:EXPORT_NAME_MAX].strip("-")
    if slug:
        return f"{slug}-{day}.zip"
    tail = "".join(re.findall(r"[A-Za-z0-9]", session_id))[-8:]
    return f"untitled-session-{day}-{tail}.zip" if tail else f"untitled-session-{day}.zip"
