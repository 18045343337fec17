"""Honest states (issue 18, item 7): the embedded model is labelled chat-only where the user
types, and the welcome names the provider and model new sessions start on."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

from tests.browser.shots import shoot_all
from tests.browser.support import MODEL, Contexts, HarnessServer, fresh_session, open_app

pytestmark = pytest.mark.browser

PICK = """(prefix) => {
    const select = document.querySelector('[data-testid=model-picker]');
    const option = [...select.options].find((o) => o.value.startsWith(prefix + '\\u0001'));
    if (!option) return false;
    select.value = option.value;
    select.dispatchEvent(new Event('change'));
    return true;
}"""


def test_the_built_in_model_is_labelled_chat_only(
    contexts: Contexts, make_harness: Callable[..., HarnessServer]
) -> None:
    server = make_harness([], "local")  # no flags: new sessions start on the built-in model
    page = contexts.warm_page(server.url)
    welcome = page.get_by_test_id("welcome-model")
    expect(welcome).to_contain_text("Built-in model (offline)")
    expect(welcome).to_contain_text("chat only — it cannot read files or run commands")
    expect(page.get_by_test_id("onboarding-model")).to_contain_text("only chats (no files, no commands)")
    chip = page.get_by_test_id("chat-only")
    expect(chip).to_have_text("Built-in model (offline): chat only, no tools")  # typing starts a session
    shoot_all(page, "welcome-local")
    fresh_session(page)
    expect(chip).to_be_visible()
    expect(page.get_by_test_id("composer-input")).to_have_attribute(
        "placeholder", "Ask a question (this model only chats: no files, no commands)…"
    )
    picked = page.get_by_test_id("model-picker").locator("option:checked")
    expect(picked).to_have_text("SmolLM2 135M Instruct (built-in, offline)")
    shoot_all(page, "chat-only")
    # the model's name is the catalogue's, in the page's language (the host names it in English)
    zh = contexts.new_page(server.url, locale="zh-CN")
    fresh_session(zh)
    expect(zh.get_by_test_id("model-picker").locator("option:checked")).to_have_text(
        "SmolLM2 135M Instruct（内置，离线）"  # noqa: RUF001 (Chinese punctuation)
    )


def test_the_welcome_names_the_configured_model_and_the_label_follows_the_picker(
    contexts: Contexts, harness: HarnessServer, page: Page
) -> None:
    fresh = contexts.new_page()
    open_app(fresh, harness.url)
    welcome = fresh.get_by_test_id("welcome-model")
    expect(welcome).to_contain_text(f"New sessions start on OpenAI-compatible (command line) · {MODEL}.")
    expect(fresh.get_by_test_id("chat-only")).to_be_hidden()
    fresh.close()

    fresh_session(page)
    chip = page.get_by_test_id("chat-only")
    expect(page.get_by_test_id("model-picker")).to_have_value(f"openai-compatible\u0001{MODEL}")
    expect(chip).to_be_hidden()
    assert page.evaluate(PICK, "local"), "the built-in model is offered"
    expect(chip).to_be_visible()
    expect(chip).to_contain_text("chat only, no tools")
    assert page.evaluate(PICK, "openai-compatible")  # back: the pick is also the host's default
    expect(page.get_by_test_id("model-picker")).to_have_value(f"openai-compatible\u0001{MODEL}")
    expect(chip).to_be_hidden()
