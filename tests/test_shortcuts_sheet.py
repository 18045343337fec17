"""The shortcuts sheet (`?`, webui/js/views/shortcuts-sheet.js) and the page's key handlers agree
(issue 46, deliverable 3): every key a handler in webui/js/views/ takes by name is on the sheet,
and every key on the sheet is taken by some handler (or is a character the composer reacts to).
Read from the source, as a person reads the sheet: a key added to a handler without a row here,
or a row left after its handler went, fails."""

from __future__ import annotations

import re
from pathlib import Path

VIEWS = Path(__file__).resolve().parent.parent / "webui" / "js" / "views"
SHEET = VIEWS / "shortcuts-sheet.js"

WORDS = {
    "ArrowUp": "↑",
    "ArrowDown": "↓",
    "ArrowLeft": "←",
    "ArrowRight": "→",
    "Escape": "esc",
    "Backquote": "`",
}
"""A handler's key name as the sheet writes it."""

UNSHEETED = {" ", "shift", "control", "alt", "meta"}
"""Keys a handler names that are no shortcut: Space presses what has the focus; modifiers alone."""

TYPED = {"/", "@"}
"""Characters the composer reacts to as typed text (its menus), not in a keydown handler."""


def sheet_keys() -> dict[str, str]:
    """Each key on the sheet (the last key of each chord and step), with the row naming it."""
    rows = re.findall(r'\["([^"]+)", "(keys\.\w+)"\]', SHEET.read_text())
    assert len(rows) > 10, rows
    keys: dict[str, str] = {}
    for combo, what in rows:
        for alternative in combo.split("|"):
            for step in alternative.split(","):
                keys.setdefault(step.split("+")[-1].lower(), what)
    return keys


def handled_keys() -> dict[str, str]:
    """Each key a handler in webui/js/views/ takes by name, with a file that does."""
    found: dict[str, str] = {}
    for path in sorted(VIEWS.glob("*.js")):
        if path == SHEET:
            continue
        text = path.read_text()
        names = re.findall(r'\be\.key === "([^"]+)"', text)
        if path.name == "keyboard.js":  # the global shortcuts compare e.key lower-cased as `key`
            names += re.findall(r'\bkey === "([^"]+)"', text)
        for group in re.findall(r"\[([^\]]*)\]\.includes\(e\.key\)", text):
            names += re.findall(r'"([^"]+)"', group)
        codes = re.findall(r'keyIs\(e, "(\w+)"\)', text) + re.findall(r"\bKey([A-Z])\b", text)
        for group in re.findall(r"\[([^\]]*)\]\.includes\(e\.code\)", text):
            codes += re.findall(r'"(\w+)"', group)
        for name in names:
            found.setdefault(WORDS.get(name, name).lower(), path.name)
        for code in codes:
            key = code[3:] if code.startswith("Key") else code
            found.setdefault(WORDS.get(key, key).lower(), path.name)
    return found


def test_every_key_a_handler_takes_is_on_the_sheet() -> None:
    sheet = sheet_keys()
    handled = handled_keys()
    assert {"n", "k", "f", "f2", "f3", "`", "y", "?"} <= handled.keys(), handled  # the scan sees the handlers
    missing = {key: where for key, where in handled.items() if key not in sheet and key not in UNSHEETED}
    assert not missing, f"keys handled but not on the sheet (views/shortcuts-sheet.js): {missing}"


def test_every_key_on_the_sheet_has_a_handler() -> None:
    handled = handled_keys()
    stale = {key: row for key, row in sheet_keys().items() if key not in handled and key not in TYPED}
    assert not stale, f"keys on the sheet that no handler takes: {stale}"
