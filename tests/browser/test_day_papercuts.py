"""The papercuts of a day's work (issue 46, item 9): the built-in model's Markdown showed "1. 1."
and empty code blocks, toasts covered Send, the 800 px drawer cut titles to ~12 characters, the
git badge stayed stale after a revert, and a Save in Settings moved what was under the pointer."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from contract.methods import (
    AGENT_PRESET_LIST,
    SESSION_CREATE,
    SESSION_RENAME,
    SETTINGS_DESCRIBE,
    SETTINGS_MUTATE,
    WORKSPACE_CREATE,
)
from tests.browser.support import (
    VIEWPORT,
    Contexts,
    HarnessServer,
    fresh_session,
    rpc,
    send,
    shoot,
    tool_call,
    turn_ends,
    wait_idle,
)
from tests.support.git_repos import git
from tests.support.scripted_llm import Reply, ScriptedLlmServer

pytestmark = pytest.mark.browser

OVERLAP = """([a, b]) => {
  const r = document.querySelector(a).getBoundingClientRect();
  const s = document.querySelector(b).getBoundingClientRect();
  return !(r.right <= s.left || s.right <= r.left || r.bottom <= s.top || s.bottom <= r.top);
}"""

UNDER = """([x, y]) => {
  const el = document.elementFromPoint(x, y)?.closest("button, summary, a, input, select");
  return el ? (el.dataset.testid ?? el.tagName) : null;
}"""


TEA = "Steps:\n\n1. 1. Boil water\n2. 2. Add tea\n3.\n\n```\n```\n\nDone.\n\n```python\nprint(1)\n```"
"""What SmolLM2 writes: a number typed after the list's own, an empty step, an empty fence."""


def test_a_small_models_markdown_reads_each_step_once_and_shows_no_empty_box(
    page: Page, llm: ScriptedLlmServer
) -> None:
    fresh_session(page)
    llm.enqueue(Reply(text=TEA))
    send(page, "How do I make tea?")
    turn_ends(page, 1)
    answer = page.get_by_test_id("assistant-text").last
    expect(answer).to_contain_text("Done.")
    items = answer.locator("li")
    expect(items).to_have_count(2)  # one number per step, no empty step
    expect(items.nth(0)).to_have_text("Boil water")
    expect(answer.locator("li ol, li ul")).to_have_count(0)
    blocks = answer.locator(".code-block")
    expect(blocks).to_have_count(1)  # the empty fence is gone, the real one stays
    expect(blocks).to_contain_text("print(1)")
    wait_idle(page)


LONG_TOAST = "A long message that says what went wrong, in a sentence or two, as toasts do when a call fails."


def test_a_toast_stands_above_the_message_box_not_over_send(page: Page) -> None:
    fresh_session(page)
    page.set_viewport_size({"width": 1100, "height": 740})
    try:
        page.evaluate("(m) => window.harnessdesk.app.status.toast(m)", LONG_TOAST)
        toast = page.get_by_test_id("toast").last
        expect(toast).to_be_visible()
        assert not page.evaluate(OVERLAP, ["[data-testid=toasts]", "[data-testid=composer-send]"])
        assert not page.evaluate(OVERLAP, ["[data-testid=toasts]", "[data-testid=composer-input]"])
    finally:
        page.set_viewport_size(VIEWPORT)


def test_the_narrow_drawer_shows_a_sessions_title(page: Page, llm: ScriptedLlmServer) -> None:
    sid = fresh_session(page)
    title = "Refactor the payment reconciliation job"
    rpc(page, SESSION_RENAME, {"sessionId": sid, "title": title})
    page.set_viewport_size({"width": 800, "height": 740})
    try:
        page.get_by_test_id("sidebar-toggle").click()
        item = page.locator(f'[data-testid=session-item][data-session-id="{sid}"]')
        shown = item.get_by_test_id("session-title")
        expect(shown).to_have_text(title)
        expect(shown).to_be_visible()
        # the whole title fits (or nearly: no ellipsis after a dozen characters)
        width = page.evaluate(
            "(el) => ({shown: el.clientWidth, needed: el.scrollWidth})", shown.element_handle()
        )
        assert width["shown"] >= 0.8 * width["needed"], width
        shoot(page, "day-drawer-800")
    finally:
        page.keyboard.press("Escape")
        page.set_viewport_size(VIEWPORT)


def test_the_git_badge_follows_a_revert(page: Page, llm: ScriptedLlmServer, tmp_path: Path) -> None:
    repo = tmp_path / "herbs"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.email", "t@example.invalid")
    git(repo, "config", "user.name", "Test")
    (repo / "README.md").write_text("herbs\n")
    git(repo, "add", "README.md")
    git(repo, "commit", "-q", "-m", "start")
    workspace = rpc(page, WORKSPACE_CREATE, {"path": str(repo)})["workspace"]
    page.evaluate("(wid) => window.harnessdesk.app.newSession(wid)", workspace["workspaceId"])
    header = page.get_by_test_id("git-status")
    expect(header).to_have_attribute("data-changed", "0")
    llm.enqueue(
        Reply(tool_calls=[tool_call("g1", "write_file", path="basil.md", content="# basil\n")]),
        Reply(text="Wrote basil.md."),
    )
    send(page, "Write the basil notes")
    page.get_by_test_id("approval-card").get_by_test_id("approval-allow-once").click()
    ends = turn_ends(page, 1)
    wait_idle(page)
    expect(header).to_have_attribute("data-changed", "1")
    ends.last.get_by_test_id("revert-turn").click()
    page.get_by_test_id("revert-dialog").get_by_test_id("revert-confirm").click()
    expect(page.get_by_test_id("restored-row").last).to_be_visible()
    assert not (repo / "basil.md").exists()
    expect(header).to_have_attribute("data-changed", "0")  # refreshed after the revert
    expect(header.get_by_test_id("git-changed")).to_have_text("✓")


def test_a_save_in_settings_leaves_the_same_button_under_the_pointer(page: Page) -> None:
    page.set_viewport_size({"width": 1100, "height": 740})
    try:
        page.get_by_test_id("open-settings").click()
        dialog = page.get_by_test_id("settings-dialog")
        expect(dialog.get_by_test_id("catalogue-entry").first).to_be_visible()
        for card in ("provider-card-local", "provider-card-deepseek"):
            dialog.get_by_test_id(card).locator("summary").click()
            save = dialog.get_by_test_id(card).get_by_test_id("provider-save")
            save.scroll_into_view_if_needed()
            box = save.bounding_box()
            assert box is not None
            x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
            page.mouse.click(x, y)
            expect(dialog.get_by_test_id("settings-message")).to_have_text("Saved.")
            expect(dialog.get_by_test_id("catalogue-entry").first).to_be_visible()  # reloaded
            # what a second click would press is what the first pressed: no Download, no Remove
            assert page.evaluate(UNDER, [x, y]) == "provider-save"
            dialog.get_by_test_id(card).locator("summary").click()
        dialog.get_by_test_id("settings-close").click()
    finally:
        page.set_viewport_size(VIEWPORT)


def test_the_first_screen_says_it_once_and_all_of_it_above_the_message_box(
    contexts: Contexts, make_harness: Callable[..., HarnessServer]
) -> None:
    harness = make_harness([], name="first")  # a first start: only the built-in model
    page = contexts.new_page(harness.url, viewport={"width": 1100, "height": 740})  # the window's size
    welcome = page.get_by_test_id("empty-state")
    last = page.get_by_test_id("welcome-model")
    expect(last).to_contain_text("chat only")
    # the notice says what the welcome says: it waits for the first session
    expect(page.get_by_test_id("onboarding-notice")).to_be_hidden()
    said = page.get_by_text("New sessions start in", exact=False)
    expect(said).to_have_count(2)  # the welcome's line, and the waiting notice's (hidden)
    assert sum(1 for i in range(said.count()) if said.nth(i).is_visible()) == 1
    # all of it above the message box, nothing to scroll to
    fits = page.evaluate(
        """() => { const w = document.querySelector('[data-testid=empty-state]');
            const last = document.querySelector('[data-testid=welcome-model]').getBoundingClientRect();
            const box = document.querySelector('[data-testid=composer]').getBoundingClientRect();
            return {below: last.bottom - box.top, scroll: w.scrollHeight - w.clientHeight}; }"""
    )
    assert fits["below"] <= 0 and fits["scroll"] <= 1, fits
    shoot(page, "day-welcome-1100")
    expect(welcome).to_be_visible()
    sid = rpc(page, SESSION_CREATE, {})["sessionId"]
    page.evaluate("(id) => window.harnessdesk.app.open(id)", sid)
    expect(page.get_by_test_id("onboarding-notice")).to_be_visible()  # now, beside the shield


def test_the_default_agent_preset_is_picked_among_the_presets_that_exist(page: Page) -> None:
    page.get_by_test_id("open-settings").click()
    dialog = page.get_by_test_id("settings-dialog")
    section = dialog.get_by_test_id("settings-ns-agent-presets")
    field = section.get_by_test_id("setting-agent-presets-default")
    section.scroll_into_view_if_needed()
    expect(field.locator("input[type=text]")).to_have_count(0)  # no free-text box
    listed = rpc(page, AGENT_PRESET_LIST, {})["presets"]
    expect(field.locator("input[type=radio]")).to_have_count(len([p for p in listed if not p.get("broken")]))
    expect(field.get_by_test_id("setting-agent-presets-default-standard")).to_be_checked()
    expect(field).to_contain_text("Read-only")
    expect(field).to_contain_text("never writes or runs commands")  # each says what it does
    field.get_by_test_id("setting-agent-presets-default-read-only").check()
    section.get_by_test_id("settings-save-agent-presets").click()
    expect(dialog.get_by_test_id("settings-message")).to_have_text("Saved.")
    shoot(page, "day-settings-presets")
    try:
        value = rpc(page, SETTINGS_DESCRIBE, {})["namespaces"]
        assert next(n for n in value if n["ns"] == "agent-presets")["value"]["default"] == "read-only"
    finally:
        ops = [{"op": "set", "path": ["default"], "value": "standard"}]
        rpc(page, SETTINGS_MUTATE, {"ns": "agent-presets", "ops": ops})
        dialog.get_by_test_id("settings-close").click()
