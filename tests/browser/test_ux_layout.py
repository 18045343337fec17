"""Layout and theme (issue 18, item 8): the conversation widens on large windows and terminal
blocks use the width; a theme choice (system, light, dark) in Settings, kept by the host."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

from tests.browser.shots import SHOTS, shoot_all
from tests.browser.support import (
    Contexts,
    HarnessServer,
    fresh_session,
    openai_args,
    send,
    snap,
    tool_call,
    turn_ends,
    wait_idle,
)
from tests.support.scripted_llm import Reply, ScriptedLlmServer
from tests.support.shadows import SHADOW_TOKENS, blur_radii

pytestmark = pytest.mark.browser

WIDE_LINE = "x" * 120


def width(page: Page, selector: str) -> float:
    return float(page.locator(selector).first.evaluate("(el) => el.getBoundingClientRect().width"))


def luminance(page: Page) -> float:
    color = page.evaluate("() => getComputedStyle(document.body).backgroundColor")
    r, g, b = (int(x) for x in re.findall(r"\d+", color)[:3])
    return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255


def test_the_conversation_widens_on_large_windows(page: Page, llm: ScriptedLlmServer) -> None:
    fresh_session(page)
    llm.enqueue(
        Reply(tool_calls=[tool_call("wide", "bash", command=f"printf '%s\\n' {WIDE_LINE} && echo done")]),
        Reply(text="Printed a wide line.\n\n```\n" + WIDE_LINE + "\n```"),
    )
    send(page, "Print something wide")
    page.get_by_test_id("approval-allow-once").click()
    turn_ends(page, 1)
    wait_idle(page)
    expect(page.get_by_test_id("tool-terminal")).to_contain_text("done")

    page.set_viewport_size({"width": 1920, "height": 1000})
    wide_log = width(page, ".log-inner")
    wide_term = width(page, '[data-testid="tool-terminal"]')
    assert wide_log > 1100 and wide_term > 1050, (wide_log, wide_term)
    # the wide line fits the terminal block without wrapping (one line of output)
    lines = page.get_by_test_id("tool-terminal").evaluate(
        "(el) => Math.round(el.querySelector('.term-out').getBoundingClientRect().height"
        " / parseFloat(getComputedStyle(el).lineHeight))"
    )
    assert lines == 2, f"the 120-character line wrapped at 1920 px ({lines} lines)"
    shoot_all(page, "wide-terminal")
    page.set_viewport_size({"width": 1600, "height": 900})
    mid = width(page, ".log-inner")
    page.set_viewport_size({"width": 800, "height": 900})
    narrow = width(page, ".log-inner")
    assert narrow <= 800 and narrow < mid < wide_log, (narrow, mid, wide_log)
    overflow = page.evaluate(
        "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    assert overflow == 0, "the page scrolls sideways at 800 px"


def test_a_browser_keeps_the_blurred_shadows(page: Page) -> None:
    """Only the window painting without a GPU drops the blur (docs/decisions/cheap-scroll-frames.md):
    a browser rasterises it once, and it keeps the look."""
    fresh_session(page)
    assert page.evaluate("document.documentElement.dataset.paint ?? null") is None
    shadow = page.evaluate(SHADOW_TOKENS)
    assert max(blur_radii(shadow)) > 0, shadow


def test_the_theme_is_chosen_in_settings_and_kept(
    contexts: Contexts, make_harness: Callable[..., HarnessServer], llm: ScriptedLlmServer
) -> None:
    server = make_harness(openai_args(llm.base_url), "theme")
    page = contexts.new_page(server.url, color_scheme="light")
    html = page.locator("html")
    expect(html).to_have_attribute("data-theme", "system")
    assert luminance(page) > 0.8
    page.emulate_media(color_scheme="dark")  # "system" follows the computer live
    page.wait_for_function("() => getComputedStyle(document.body).backgroundColor !== 'rgb(255, 255, 255)'")
    assert luminance(page) < 0.3
    page.emulate_media(color_scheme="light")

    page.get_by_test_id("open-settings").click()
    section = page.get_by_test_id("settings-ns-ui-appearance")
    expect(section).to_contain_text("Appearance")
    expect(section.get_by_test_id("setting-ui-appearance-theme-system")).to_be_checked()
    section.get_by_test_id("setting-ui-appearance-theme-dark").check()
    expect(html).to_have_attribute("data-theme", "dark")  # previewed before Save
    page.get_by_test_id("settings-close").click()  # closed without saving: back to the saved one
    expect(html).to_have_attribute("data-theme", "system")
    assert luminance(page) > 0.8
    page.get_by_test_id("open-settings").click()
    expect(section.get_by_test_id("setting-ui-appearance-theme-system")).to_be_checked()
    section.get_by_test_id("setting-ui-appearance-theme-dark").check()
    section.get_by_test_id("settings-save-ui-appearance").click()
    expect(html).to_have_attribute("data-theme", "dark")
    assert luminance(page) < 0.3, "dark although the computer is light"
    expect(page.get_by_test_id("settings-message")).to_have_text("Saved.")
    expect(section.get_by_test_id("setting-ui-appearance-theme-dark")).to_be_checked()  # reloaded
    page.wait_for_function(
        "() => { const el = document.querySelector('[data-testid=settings-ns-ui-appearance]');"
        " el?.scrollIntoView({block: 'center'}); return !!el; }"
    )
    shoot_all(page, "settings-theme")
    page.get_by_test_id("settings-close").click()

    other = contexts.new_page(server.url, color_scheme="light")  # another window, no cache of its own
    expect(other.locator("html")).to_have_attribute("data-theme", "dark")
    assert luminance(other) < 0.3
    page.reload()
    expect(page.locator("html")).to_have_attribute("data-connection", "connected")
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")

    page.emulate_media(color_scheme="dark")
    page.get_by_test_id("open-settings").click()
    page.get_by_test_id("setting-ui-appearance-theme-light").check()
    page.get_by_test_id("settings-save-ui-appearance").click()
    expect(page.locator("html")).to_have_attribute("data-theme", "light")
    assert luminance(page) > 0.8, "light although the computer is dark"
    expect(other.locator("html")).to_have_attribute("data-theme", "light")  # announced to every window
    settings = (server.data_dir / "settings.json").read_text()
    assert '"ui-appearance"' in settings and '"light"' in settings, settings


def not_cut(page: Page, selector: str) -> None:
    """The element shows all of its text: nothing clipped by an ellipsis or a narrow box."""
    cut = page.locator(selector).first.evaluate(
        "(el) => { const r = el.getBoundingClientRect();"
        " return {scroll: el.scrollWidth, client: el.clientWidth, w: r.width,"
        " right: r.right, vw: document.documentElement.clientWidth}; }"
    )
    assert cut["w"] > 0, (selector, cut)
    assert cut["scroll"] <= cut["client"] + 1 and cut["right"] <= cut["vw"] + 1, (selector, cut)


@pytest.mark.parametrize("width", [800, 1100, 1600])
def test_the_header_shows_title_mode_and_model_in_full(
    page: Page, llm: ScriptedLlmServer, width: int
) -> None:
    """Issue 31, item 6: at 800, 1100 and 1600 px the title, the mode badge and the model picker
    are never shortened (the actions wrap below the title instead)."""
    fresh_session(page)
    llm.enqueue(Reply(text="Looked."))
    send(page, "Look at the payment form")
    turn_ends(page)
    wait_idle(page)
    title = "Fix the login form validation and its tests"
    sid = page.evaluate("() => window.harnessdesk.app.manager.activeId")
    page.evaluate("([sid, t]) => window.harnessdesk.app.manager.rename(sid, t)", [sid, title])
    heading = page.get_by_test_id("session-heading")
    expect(heading).to_have_text(title)
    page.set_viewport_size({"width": width, "height": 740})
    expect(page.get_by_test_id("permission-mode-name")).to_be_visible()
    for selector in (
        '[data-testid="session-heading"]',
        '[data-testid="permission-mode-name"]',
        '[data-testid="session-preset"]',
        ".model-select",
    ):
        not_cut(page, selector)
    # the select shows its chosen model's whole name
    fits = page.locator(".model-select").first.evaluate(
        "(el) => { const c = document.createElement('canvas').getContext('2d');"
        " c.font = getComputedStyle(el).font;"
        " return c.measureText(el.selectedOptions[0].text).width <= el.clientWidth; }"
    )
    assert fits, "the model's name is cut off"
    overflow = page.evaluate(
        "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    assert overflow == 0
    page.evaluate("() => document.activeElement?.blur?.()")
    SHOTS.mkdir(parents=True, exist_ok=True)
    for theme in ("light", "dark"):
        page.emulate_media(color_scheme=theme)
        snap(page, SHOTS / f"ux-header-{width}-{theme}.png")
    page.emulate_media(color_scheme="light")
