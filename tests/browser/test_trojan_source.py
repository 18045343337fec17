"""Approval and tool cards show bidi controls visibly, with a warning (issue 16, finding 7).

The red team's command displayed as `echo hello` while bash ran `touch …`: a RIGHT-TO-LEFT
OVERRIDE reordered the display. Every bidi control is now replaced on screen by a marker naming
it, and the card says what is going on.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.support import HarnessServer, fresh_session, send, snap, tool_call, turn_ends
from tests.support.scripted_llm import Reply, ScriptedLlmServer

pytestmark = pytest.mark.browser

# Displays as `echo hello #…` in a bidi-unaware card, runs `touch pwned`.
TROJAN = "touch pwned \u202e# olleh ohce\u202c"


def test_an_approval_card_reveals_bidi_controls_and_warns(
    page: Page, llm: ScriptedLlmServer, harness: HarnessServer, tmp_path: Path
) -> None:
    fresh_session(page)
    llm.enqueue(
        Reply(tool_calls=[tool_call("c-trojan", "bash", command=TROJAN)]),
        Reply(tool_calls=[tool_call("c-path", "write_file", path="src/\u2067evil\u2069.py", content="x")]),
        Reply(text="Stopped."),
    )
    send(page, "run it")
    card = page.get_by_test_id("approval-card")
    expect(card.get_by_test_id("bidi-warning")).to_be_visible()
    expect(card.get_by_test_id("bidi-warning")).to_contain_text("may not be what runs")
    marks = card.get_by_test_id("approval-command").get_by_test_id("bidi-mark")
    expect(marks).to_have_text(["⟨U+202E⟩", "⟨U+202C⟩"])
    shown = str(card.get_by_test_id("approval-command").evaluate("(el) => el.textContent"))
    assert "\u202e" not in shown and "\u202c" not in shown  # nothing left to reorder the display
    assert shown.startswith("$ touch pwned")
    snap(page, tmp_path / "trojan-approval.png")
    card.get_by_test_id("approval-reject").click()

    path_card = page.get_by_test_id("approval-card")
    expect(path_card.get_by_test_id("approval-path").get_by_test_id("bidi-mark")).to_have_text(
        ["⟨U+2067⟩", "⟨U+2069⟩"]
    )
    expect(path_card.get_by_test_id("bidi-warning")).to_be_visible()
    path_card.get_by_test_id("approval-reject").click()
    turn_ends(page)

    tool_cards = page.get_by_test_id("tool-card")
    expect(tool_cards).to_have_count(2)
    for i in range(2):
        expect(tool_cards.nth(i).get_by_test_id("bidi-warning")).to_be_visible()
    expect(tool_cards.first.get_by_test_id("tool-terminal").get_by_test_id("bidi-mark")).to_have_count(2)
    assert not (harness.workdir / "pwned").exists()
