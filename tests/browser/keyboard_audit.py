"""Keyboard reachability, checked as a person without a mouse meets the page (issue 46,
deliverable 3): Tab from the top of the page (or of the open dialog) until the focus comes round,
note every element it lands on (shown, with a focus ring), then list every visible interactive
element that Tab never reached (outside a roving-tabindex group whose member it reached) or that
has no accessible name.

"Interactive" is what a person could press: buttons, links, fields, summaries, elements with an
interactive role or a tabindex, and any element a click, double-click or mouse-down listener was
added to (the init script below records those; a container whose listener serves the buttons
inside it — delegation — is not one of them)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from playwright.sync_api import Page

LISTENERS = """(() => {
  const marked = new WeakSet();
  window.__auditClicky = marked;
  const add = EventTarget.prototype.addEventListener;
  EventTarget.prototype.addEventListener = function (type, fn, opts) {
    const pointer = ["click", "dblclick", "mousedown", "pointerdown"].includes(type);
    if (this instanceof Element && pointer) marked.add(this);
    return add.call(this, type, fn, opts);
  };
})();"""
"""An init script: which elements got a pointer listener (a thing to press, by mouse at least)."""

_JS = (Path(__file__).parent / "keyboard_audit.js").read_text()

STEP = f"() => {{ {_JS}\n return auditStep(); }}"
"""What the focus is on after a Tab: its audit id, how to name it, shown, with a focus ring."""

FIND = f"([visited, described]) => {{ {_JS}\n return auditFind(visited, described); }}"
"""Every visible interactive element in the page (or the open dialog) that Tab did not reach or
that has no name."""


@dataclass
class Audit:
    """What a Tab walk found: the elements it reached, and what was wrong."""

    reached: list[str] = field(default_factory=list)
    count: int = 0
    problems: list[str] = field(default_factory=list)


def walk(page: Page, limit: int, result: Audit) -> list[str]:
    """Tab until the focus comes round; the audit ids of what it landed on."""
    page.evaluate("() => { document.activeElement?.blur?.(); }")
    ids: list[str] = []
    first: str | None = None
    nothing = 0
    for _ in range(limit):
        page.keyboard.press("Tab")
        step = page.evaluate(STEP)
        if step is None:  # the page itself, between its end and its start
            nothing += 1
            if nothing > 3:
                break
            continue
        nothing = 0
        if step["id"] == first:
            break
        first = first or step["id"]
        ids.append(step["id"])
        result.reached.append(step["what"])
        if not step["shown"]:
            result.problems.append(f"focused but not shown: {step['what']}")
        if not step["ring"]:
            result.problems.append(f"no focus ring: {step['what']}")
        if step["trap"]:
            page.keyboard.press("Escape")  # the terminal keeps Tab for the shell: Escape, then Tab leaves it
    else:
        result.problems.append(f"Tab never came round in {limit} presses")
    return ids


def audit(page: Page, *, limit: int = 400, allowed: tuple[str, ...] = ()) -> Audit:
    """Tab through the page (or its open dialog) until the focus comes round, then check every
    interactive element. What a redraw replaced during the walk is walked again (twice at most).
    `allowed`: substrings of problems that have a reason to be (each caller says why)."""
    result = Audit()
    ids = walk(page, limit, result)
    found = page.evaluate(FIND, [ids, result.reached])
    for _ in range(2):  # a redraw during the walk (a panel's re-read) made new elements: walk again
        # (only for what the caller does not allow: a walk again cannot reach what Tab never
        # stops at by design, and each walk is hundreds of key presses;
        # docs/decisions/waits-in-the-suites-own-helpers.md)
        if not any(p.startswith("not reached") for p in _unallowed(found["problems"], allowed)):
            break
        ids += walk(page, limit, result)
        found = page.evaluate(FIND, [ids, result.reached])
    result.count = found["count"]
    result.problems += found["problems"]
    result.problems = _unallowed(list(dict.fromkeys(result.problems)), allowed)
    return result


def _unallowed(problems: list[str], allowed: tuple[str, ...]) -> list[str]:
    return [p for p in problems if not any(a in p for a in allowed)]
