"""States a user must see, never a blank screen: first run, provider not configured, model
unavailable, host unreachable."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

import pytest
from playwright.sync_api import Page, expect

from tests.browser.support import (
    MODEL,
    Contexts,
    HarnessServer,
    fresh_session,
    new_session,
    open_app,
    openai_args,
    send,
    turn_ends,
    wait_idle,
)
from tests.support.scripted_llm import Reply, ScriptedLlmServer

pytestmark = pytest.mark.browser


@pytest.fixture
def keyless(make_harness: Callable[..., HarnessServer], llm: ScriptedLlmServer) -> Iterator[HarnessServer]:
    """DeepSeek (which always needs a key) pointed at the scripted server, with no key."""
    llm.require_key = "sk-browser-test"
    yield make_harness(["--provider", "deepseek", "--base-url", llm.base_url, "--model", MODEL], "deepseek")


def test_first_run_empty_state(
    contexts: Contexts, make_harness: Callable[..., HarnessServer], llm: ScriptedLlmServer
) -> None:
    server = make_harness(openai_args(llm.base_url), "first-run")
    page = contexts.warm_page(server.url)
    empty = page.get_by_test_id("empty-state")
    expect(empty).to_be_visible()
    expect(empty.get_by_role("heading")).to_have_text("Welcome to HarnessDesk")
    expect(empty.get_by_test_id("welcome-type-here")).to_contain_text("you choose its folder first")
    expect(empty).not_to_contain_text(str(server.workdir))  # never the launch folder
    expect(empty.get_by_test_id("empty-open-settings")).to_be_visible()
    expect(page.get_by_test_id("session-list-empty")).to_be_visible()
    expect(page.get_by_test_id("session-item")).to_have_count(0)
    expect(page.get_by_test_id("overlay")).to_be_hidden()
    expect(page.get_by_test_id("session-heading")).to_have_text("HarnessDesk")
    expect(page.get_by_test_id("provider-banner")).to_have_count(0)
    expect(page.get_by_test_id("composer-input")).to_be_enabled()

    # typing straight into the empty state starts the first session
    llm.enqueue(Reply(text="Hello, first user."))
    send(page, "Hello?")
    expect(empty).to_be_hidden()
    expect(page.get_by_test_id("assistant-text")).to_have_text("Hello, first user.")
    turn_ends(page)
    expect(page.get_by_test_id("session-item")).to_have_count(1)
    expect(page.get_by_test_id("session-list-empty")).to_be_hidden()

    # the welcome turns into "pick a session" once there is history; New session → its own state
    new_session(page)
    expect(page.get_by_test_id("session-empty")).to_contain_text("New session")


def test_provider_not_configured(contexts: Contexts, keyless: HarnessServer, llm: ScriptedLlmServer) -> None:
    page = contexts.warm_page(keyless.url)
    banner = page.get_by_test_id("provider-banner")
    expect(banner).to_be_visible()
    expect(banner).to_contain_text(
        "The model provider is not ready. DeepSeek needs an API key (DEEPSEEK_API_KEY)"
    )

    banner.get_by_test_id("banner-open-settings").click()
    dialog = page.get_by_test_id("settings-dialog")
    expect(dialog).to_be_visible()
    card = dialog.get_by_test_id("provider-card-deepseek")
    expect(card).to_have_attribute("open", "")  # the provider that needs attention is expanded
    expect(card.get_by_test_id("provider-status")).to_have_text("Needs an API key")
    status = card.get_by_test_id("credential-status")
    expect(status).to_have_text("Not configured")
    card.get_by_test_id("provider-api-key").fill("sk-browser-test")
    card.get_by_test_id("provider-save").click()
    card = dialog.get_by_test_id("provider-card-deepseek")  # the page was rebuilt from the host
    expect(card.get_by_test_id("credential-status")).to_have_text("Configured (file)")
    expect(card.get_by_test_id("provider-status")).to_have_text("Ready")
    expect(card.get_by_test_id("provider-api-key")).to_have_value("")
    dialog.get_by_test_id("settings-close").click()
    expect(dialog).to_be_hidden()
    expect(banner).to_have_count(0)

    # with the key the provider answers (the scripted server insists on it)
    fresh_session(page)
    llm.enqueue(Reply(text="Keyed in."))
    send(page, "Are you there?")
    expect(page.get_by_test_id("assistant-text")).to_have_text("Keyed in.")
    turn_ends(page)
    wait_idle(page)
    assert llm.request_headers[-1]["authorization"] == "Bearer sk-browser-test"


def test_model_unavailable(contexts: Contexts, keyless: HarnessServer, llm: ScriptedLlmServer) -> None:
    page = contexts.warm_page(keyless.url)
    fresh_session(page)
    banner = page.get_by_test_id("model-banner")
    expect(banner).to_be_visible()
    expect(banner).to_contain_text(f"The selected model is unavailable (deepseek/{MODEL})")
    expect(page.get_by_test_id("model-picker")).to_be_visible()

    page.get_by_test_id("composer-input").fill("Try anyway")
    page.get_by_test_id("composer-input").press("Enter")
    toast = page.get_by_test_id("toast")
    expect(toast.first).to_contain_text(f"Model deepseek/{MODEL} is unavailable.")
    # the input is kept so nothing the user typed is lost
    expect(page.get_by_test_id("composer-input")).to_have_value("Try anyway")
    expect(page.get_by_test_id("msg-user")).to_have_count(0)
    assert llm.requests == []

    banner.get_by_test_id("banner-dismiss").click()
    expect(banner).to_have_count(0)


RETRY_FAR_AWAY = """() => { const c = window.harnessdesk.app.connection;
  return c.status.state === "reconnecting" && c.status.retryAt - c.timers.now() > 5000; }"""


def test_host_unreachable_then_retry_now(
    contexts: Contexts, make_harness: Callable[..., HarnessServer], llm: ScriptedLlmServer
) -> None:
    server = make_harness(openai_args(llm.base_url), "unreachable")
    page: Page = contexts.warm_page(server.url)
    expect(page.get_by_test_id("empty-state")).to_be_visible()  # the first rebuild is done
    server.kill()
    banner = page.get_by_test_id("connection-banner")
    expect(banner).to_have_attribute("data-state", "reconnecting")
    # after a few failed attempts the banner says the host is unreachable
    expect(banner).to_have_attribute("data-state", "unreachable", timeout=30_000)
    expect(banner).to_contain_text("Host unreachable.")
    expect(page.locator("html")).to_have_attribute("data-connection", "reconnecting-unreachable")
    # the host comes back while the next try is still seconds away (the backoff reaches 5-10 s),
    # so "Retry now" is what reconnects: a try of the page's own could otherwise win the race
    # with the restart and take the button away before the click (it did once, under load)
    page.wait_for_function(RETRY_FAR_AWAY, timeout=40_000)
    server.start()
    banner.get_by_test_id("reconnect-now").click()
    expect(page.locator("html")).to_have_attribute("data-connection", "connected", timeout=5_000)
    expect(banner).to_be_hidden()


def test_api_key_field_sits_in_a_form(contexts: Contexts, keyless: HarnessServer) -> None:
    """Chrome warns about a password field outside a form; each provider card is a form, whose
    submit (Enter) saves the card and the key without navigating."""
    page = contexts.new_page()
    messages: list[str] = []
    page.on("console", lambda msg: messages.append(f"{msg.type}: {msg.text}"))
    open_app(page, keyless.url)
    url = page.url
    page.evaluate("() => { window.__samePage = true; }")
    page.get_by_test_id("open-settings").click()
    dialog = page.get_by_test_id("settings-dialog")
    card = dialog.get_by_test_id("provider-card-deepseek")
    key = card.get_by_test_id("provider-api-key")
    expect(key).to_be_visible()
    expect(key).to_have_attribute("type", "password")
    expect(key).to_have_attribute("autocomplete", "new-password")
    assert key.evaluate("(el) => el.form?.getAttribute('autocomplete') === 'off'"), (
        "the key input is not in a form"
    )
    same_form = (
        "(el) => el.type === 'submit'"
        " && el.form === document.querySelector('[data-testid=provider-api-key]').form"
    )
    assert card.get_by_test_id("provider-save").evaluate(same_form), "Save does not submit the card's form"

    key.fill("sk-enter-key")
    key.press("Enter")
    card = dialog.get_by_test_id("provider-card-deepseek")
    expect(card.get_by_test_id("credential-status")).to_have_text("Configured (file)")
    expect(card.get_by_test_id("provider-api-key")).to_have_value("")
    expect(dialog.get_by_test_id("settings-message")).to_have_text("Saved.")
    assert page.url == url
    assert page.evaluate("() => window.__samePage === true"), "the form submit navigated"
    expect(dialog).to_be_visible()
    warnings = [m for m in messages if re.search(r"password (field|form)", m, re.I)]
    assert not warnings, warnings


@pytest.mark.model
def test_first_local_turn_shows_the_model_loading(
    contexts: Contexts, make_harness: Callable[..., HarnessServer]
) -> None:
    """The built-in model loads on the first local turn (not at start-up): the window is usable
    at once, and while the model loads a banner says so; it goes once the answer can start."""
    server = make_harness(["--provider", "local"], "local")
    page = contexts.warm_page(server.url)
    expect(page.get_by_test_id("composer-input")).to_be_enabled()
    expect(page.get_by_test_id("model-loading")).to_be_hidden()
    # the load can take well under a second: record every time the banner shows
    page.evaluate(
        """() => {
            window.modelBannerShown = [];
            const banner = document.querySelector("[data-testid=model-loading]");
            const note = () => { if (!banner.hidden) window.modelBannerShown.push(banner.textContent); };
            new MutationObserver(note).observe(banner, { attributes: true, attributeFilter: ["hidden"] });
        }"""
    )
    send(page, "Say hello in three words.")
    # a real model on a shared 2-core machine: the answer may take a minute under load
    expect(page.get_by_test_id("turn-end")).to_have_count(1, timeout=180_000)
    expect(page.get_by_test_id("model-loading")).to_be_hidden()
    shown = page.evaluate("window.modelBannerShown")
    assert shown and "Loading the built-in model" in shown[0]
    expect(page.get_by_test_id("assistant-text").last).not_to_be_empty()
