"""Chinese and English in the browser (docs/decisions.md, "Languages"): every main screen in
Chinese shows no English outside what is not ours to translate; the browser's languages pick
Chinese on a first start; switching `ui.language` in Settings relabels the page at once, without a
reload, keeps what the person was doing, and persists on the host."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from playwright.sync_api import expect

from tests.browser.i18n_screens import FOREIGN, check_screens, english_on_screen
from tests.browser.support import Contexts, HarnessServer, ensure_folder, openai_args, tool_call
from tests.support.scripted_llm import Reply, ScriptedLlmServer

pytestmark = pytest.mark.browser

CHINESE = "[\u4e00-\u9fff]"

PLACEHOLDERS_CUT = """() => [...document.querySelectorAll("input[placeholder]")]
  .filter((el) => el.offsetParent !== null && el.placeholder && !el.value)
  .filter((el) => {
    el.value = el.placeholder; // laid out as the field lays out its text (a search field's clear button too)
    const cut = el.scrollWidth > el.clientWidth;
    el.value = "";
    return cut;
  })
  .map((el) => `${el.dataset.testid ?? el.id}: ${el.placeholder}`)"""
"""The placeholders on screen that their field cuts off (a one-line field does not wrap): each
empty field given its placeholder as its text for a moment (no input event)."""


def test_every_main_screen_in_chinese_shows_no_english(
    contexts: Contexts, harness: HarnessServer, llm: ScriptedLlmServer
) -> None:
    page = contexts.new_page(harness.url, locale="zh-CN")
    found = check_screens(page, llm, harness)
    assert set(found) >= {
        "welcome", "approval", "conversation", "changes", "terminal", "files", "file-viewer",
        "settings", "mcp", "permissions",
    }  # fmt: skip
    assert {name: words for name, words in found.items() if words} == {}


def test_the_browser_languages_pick_chinese_on_a_first_start(
    contexts: Contexts, make_harness: Callable[..., HarnessServer], llm: ScriptedLlmServer
) -> None:
    server = make_harness(openai_args(llm.base_url))
    zh = contexts.new_page(server.url, locale="zh-CN")
    expect(zh.locator("html")).to_have_attribute("lang", "zh-CN")
    expect(zh.get_by_test_id("new-session")).to_have_text("新建会话")
    expect(zh.get_by_test_id("open-settings")).to_have_text("设置")  # index.html's own text too
    en = contexts.new_page(server.url, locale="en-US")
    expect(en.locator("html")).to_have_attribute("lang", "en")
    expect(en.get_by_test_id("new-session")).to_have_text("New session")
    path = server.data_dir / "settings.json"
    settings = json.loads(path.read_text()) if path.exists() else {}
    assert "language" not in settings.get("namespaces", {}).get("ui-appearance", {})  # nothing was chosen


def test_switching_the_language_in_settings_relabels_at_once_and_persists(
    contexts: Contexts, make_harness: Callable[..., HarnessServer], llm: ScriptedLlmServer
) -> None:
    server = make_harness(openai_args(llm.base_url))
    page = contexts.new_page(server.url, locale="en-US")
    ensure_folder(page)
    page.get_by_test_id("new-session").click()
    llm.enqueue(
        Reply(tool_calls=[tool_call("r1", "read_file", path="missing.txt")]),
        Reply(text="It is not there."),
    )
    box = page.get_by_test_id("composer-input")
    box.fill("Read missing.txt")
    box.press("Enter")
    expect(page.get_by_test_id("turn-end")).to_have_count(1)
    box.fill("a draft I am still writing")
    page.evaluate("() => { window.__sameDocument = true; }")
    log = page.get_by_test_id("conversation")
    log.evaluate("(el) => { el.scrollTop = 0; }")

    page.get_by_test_id("open-settings").click()
    section = page.get_by_test_id("settings-ns-ui-appearance")
    section.get_by_test_id("setting-ui-appearance-language-zh-CN").check()
    # at once: the page, the dialog it is in, the conversation's rows
    expect(page.locator("html")).to_have_attribute("lang", "zh-CN")
    expect(page.get_by_test_id("new-session")).to_have_text("新建会话")
    expect(page.locator("#settings-title")).to_have_text("设置")
    expect(page.get_by_test_id("settings-dialog")).to_be_visible()  # the dialog stays open
    assert page.evaluate("() => window.__sameDocument === true")  # no reload
    expect(box).to_have_value("a draft I am still writing")
    assert english_on_screen(page, (*FOREIGN, "Read missing.txt", "missing.txt")) == []
    page.get_by_test_id("settings-close").click()  # not saved: back to the saved language
    expect(page.get_by_test_id("new-session")).to_have_text("New session")
    assert english_on_screen(page, FOREIGN) != []  # the checker does see English when it is there

    page.get_by_test_id("open-settings").click()
    expect(section.get_by_test_id("setting-ui-appearance-language-system")).to_be_checked()  # read again
    section.get_by_test_id("setting-ui-appearance-language-zh-CN").check()
    section.get_by_test_id("settings-save-ui-appearance").click()
    expect(page.get_by_test_id("settings-message")).to_have_text("已保存。")
    page.get_by_test_id("settings-close").click()
    expect(page.get_by_test_id("new-session")).to_have_text("新建会话")
    assert english_on_screen(page, (*FOREIGN, "Read missing.txt", "missing.txt")) == []
    stored = json.loads((server.data_dir / "settings.json").read_text())
    assert stored["namespaces"]["ui-appearance"]["language"] == "zh-CN"
    assert page.evaluate(PLACEHOLDERS_CUT) == []

    # another browser, English by its languages and with nothing stored: the host's setting wins
    other = contexts.new_page(server.url, locale="en-US")
    expect(other.get_by_test_id("new-session")).to_have_text("新建会话")
    page.reload()
    expect(page.locator("html")).to_have_attribute("data-connection", "connected")
    expect(page.get_by_test_id("new-session")).to_have_text("新建会话")
    # and back: English everywhere again, at once
    page.get_by_test_id("open-settings").click()
    expect(section.get_by_test_id("setting-ui-appearance-language-zh-CN")).to_be_checked()
    page.get_by_test_id("setting-ui-appearance-language-en").check()
    page.get_by_test_id("settings-save-ui-appearance").click()
    expect(page.get_by_test_id("settings-message")).to_have_text("Saved.")
    expect(page.get_by_test_id("new-session")).to_have_text("New session")
    expect(other.get_by_test_id("new-session")).to_have_text("New session")  # every window follows
    page.get_by_test_id("settings-close").click()
    assert page.evaluate(PLACEHOLDERS_CUT) == []  # the sidebar's search said "Search (Ctrl+" here


def test_the_preset_badge_keeps_its_name_while_the_presets_are_read_again(
    contexts: Contexts, harness: HarnessServer
) -> None:
    """Saving a setting reads the presets again; the header's badge keeps the name in the page's
    language meanwhile, not the preset's id (a loaded suite once saw "standard" in a Chinese page)."""
    page = contexts.new_page(harness.url, locale="zh-CN")
    ensure_folder(page)
    page.get_by_test_id("new-session").click()
    badge = page.get_by_test_id("session-preset")
    expect(badge).to_have_text("标准")
    page.evaluate(
        """() => {
          const app = window.harnessdesk.app;
          app.presets.ctx.config.listPresets = () => new Promise(() => {}); // read again, slowly
          app.presets.invalidate();
          app.renderHeader();
        }"""
    )
    assert badge.text_content() == "标准"
