"""`@` in the composer, as a person uses it: type `@` and letters, move with the arrows, attach with
Enter or Tab, remove a chip, send, and the scripted provider gets the file's content; the chips
stay on the message after a reload (docs/architecture.md, "The @ finder")."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Page, expect

from tests.browser.support import ROOT, VIEWPORT, HarnessServer, fresh_session, snap, turn_ends, wait_idle
from tests.support.scripted_llm import Reply, ScriptedLlmServer

SHOTS = ROOT / "tests" / "screenshots"


def make_project(root: Path) -> None:
    files = {
        "src/composer_view.js": "export const composer = 1;\n",
        "src/compose/helpers.js": "// helpers\n",
        "docs/guide.md": "# Guide\n",
        "big/huge.log.txt": "x" * (200 * 1024),
        ".gitignore": "secret/\n",
        "secret/token.txt": "do-not-offer\n",
    }
    for rel, body in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body)


def shots(page: Page, name: str) -> None:
    """800/1100/1600 px, light and dark, the focus kept (an open menu closes on blur)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    for width in (800, 1100, 1600):
        page.set_viewport_size({"width": width, "height": 800})
        for theme in ("light", "dark"):
            page.emulate_media(color_scheme=theme)
            path = SHOTS / f"finder-{name}-{width}-{theme}.png"
            snap(page, path)
    page.set_viewport_size(VIEWPORT)
    page.emulate_media(color_scheme="light")


def test_at_finds_attaches_sends_and_survives_a_reload(
    page: Page, harness: HarnessServer, llm: ScriptedLlmServer
) -> None:
    make_project(harness.workdir)
    sid = fresh_session(page)
    box = page.get_by_test_id("composer-input")
    box.click()
    box.press_sequentially("explain @cmpview")
    menu = page.get_by_test_id("finder-menu")
    expect(menu).to_be_visible()
    items = page.get_by_test_id("finder-item")
    expect(items.first).to_have_attribute("data-path", "src/composer_view.js")
    expect(page.locator("[data-testid=finder-item][data-path^='secret']")).to_have_count(0)  # .gitignore'd
    shots(page, "menu")
    box.press("Enter")  # attaches; sends nothing
    expect(menu).to_be_hidden()
    chips = page.get_by_test_id("context-chip")
    expect(chips).to_have_count(1)
    expect(chips.first).to_have_attribute("data-path", "src/composer_view.js")
    expect(box).to_have_value("explain ")
    # a folder with the arrows and Tab, then a large file (its chip says it is cut), then remove it
    box.press_sequentially("@compose")
    expect(items.first).to_be_visible()
    folder_row = page.locator("[data-testid=finder-item][data-path='src/compose']")
    expect(folder_row).to_be_visible()
    while folder_row.get_attribute("aria-selected") != "true":
        box.press("ArrowDown")
    box.press("Tab")
    expect(chips).to_have_count(2)
    box.press_sequentially("@huge")
    expect(items.first).to_have_attribute("data-path", "big/huge.log.txt")
    box.press("Enter")
    expect(chips).to_have_count(3)
    cut = page.locator("[data-testid=context-chip][data-path='big/huge.log.txt']")
    expect(cut.get_by_test_id("context-chip-note")).to_have_text("first 64 KB only")
    box.press_sequentially("@nothing-like-this")
    expect(page.get_by_test_id("finder-empty")).to_be_visible()
    box.press("Escape")  # closes the menu, keeps the text
    expect(menu).to_be_hidden()
    box.fill("explain ")
    shots(page, "chips")
    cut.get_by_test_id("context-chip-remove").click()
    expect(chips).to_have_count(2)

    box.press_sequentially("please")
    box.press("Enter")
    turn_ends(page, 1)
    expect(chips).to_have_count(0)  # sent: the composer is clear again
    said = llm.requests[-1]["messages"][-1]
    assert said["role"] == "user"
    assert said["content"].startswith("explain please\n\nContents of `src/composer_view.js`:")
    assert "export const composer = 1;" in said["content"]
    assert "Listing of `src/compose/` (1 entries" in said["content"]
    assert "huge.log" not in said["content"]  # removed before sending
    sent = page.get_by_test_id("msg-user").last
    expect(sent.locator(".user-text")).to_have_text("explain please")
    expect(sent.get_by_test_id("msg-context-chip")).to_have_count(2)
    expect(page.get_by_test_id("session-heading")).to_have_text("explain please")  # titled by the words
    shots(page, "sent")

    page.reload()
    expect(page.locator("html")).to_have_attribute("data-connection", "connected")
    page.evaluate("(sid) => window.harnessdesk.app.open(sid)", sid)
    again = page.get_by_test_id("msg-user").last
    expect(again.get_by_test_id("msg-context-chip")).to_have_count(2)
    expect(again.locator("[data-testid=msg-context-chip][data-path='src/compose']")).to_be_visible()
    expect(again.locator(".user-text")).to_have_text("explain please")  # the file's text shows as a chip


def test_retry_names_the_attached_file_again(
    page: Page, harness: HarnessServer, llm: ScriptedLlmServer
) -> None:
    (harness.workdir / "notes").mkdir(exist_ok=True)
    (harness.workdir / "notes" / "retry_me.txt").write_text("first version\n")
    fresh_session(page)
    box = page.get_by_test_id("composer-input")
    box.click()
    box.press_sequentially("@retryme")
    expect(page.get_by_test_id("finder-item").first).to_have_attribute("data-path", "notes/retry_me.txt")
    box.press("Enter")
    box.press_sequentially("summarize")
    llm.enqueue(Reply(status=400, error_message="the model refused the request"))
    box.press("Enter")
    expect(page.get_by_test_id("turn-error")).to_be_visible()
    wait_idle(page)
    llm.enqueue(Reply(text="It says: first version."))
    page.get_by_test_id("retry-turn").click()
    turn_ends(page, 2)
    said = llm.requests[-1]["messages"][-1]["content"]
    assert said.startswith("summarize\n\nContents of `notes/retry_me.txt`:") and "first version" in said
    expect(page.get_by_test_id("msg-user")).to_have_count(1)  # the retry replaced the failed bubble
    user = page.get_by_test_id("msg-user")
    expect(user.locator(".user-text")).to_have_text("summarize")
    expect(user.get_by_test_id("msg-context-chip")).to_have_attribute("data-path", "notes/retry_me.txt")
