"""Settings in the person's words (issue 31, item 8), in headless Chromium: an endpoint's key is
stored under a slot named after the endpoint and follows a rename (nothing left under the old
name), and a refused field says so beside it in words ("Endpoint 1 · Base URL"), never as a
schema path. Screenshots at 800/1100/1600 px, light and dark: tests/screenshots/settings-words-*.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.browser.shots import SHOTS
from tests.browser.support import VIEWPORT, HarnessServer, snap
from tests.browser.test_settings import open_settings
from tests.support.scripted_llm import ScriptedLlmServer

pytestmark = pytest.mark.browser


def stored_keys(harness: HarnessServer) -> dict[str, str]:
    path = Path(harness.data_dir) / "credentials.json"
    return json.loads(path.read_text())["credentials"] if path.exists() else {}


def endpoint(dialog: Locator) -> Locator:
    return dialog.locator('[data-testid^="provider-card-my-endpoint"]')


def unfold(card: Locator) -> None:
    """Open the card (a saved card may render closed)."""
    if not card.evaluate("(el) => el.open"):
        card.locator("summary").click()
    expect(card).to_have_attribute("open", "")


def shots(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    for width in (800, 1100, 1600):
        page.set_viewport_size({"width": width, "height": 900})
        for theme in ("light", "dark"):
            page.emulate_media(color_scheme=theme)
            snap(page, SHOTS / f"settings-words-{name}-{width}-{theme}.png")
    page.set_viewport_size(VIEWPORT)
    page.emulate_media(color_scheme="light")


def test_the_key_slot_follows_the_name_and_errors_sit_by_their_field(
    page: Page, llm: ScriptedLlmServer, harness: HarnessServer
) -> None:
    dialog = open_settings(page)
    dialog.get_by_test_id("settings-add-endpoint").click()
    card = endpoint(dialog)
    card.get_by_test_id("provider-name-input").fill("Scripted box")
    expect(card.get_by_test_id("provider-key-slot")).to_have_text(" · stored as SCRIPTED_BOX_API_KEY")
    card.get_by_test_id("provider-base-url").fill(llm.base_url)
    card.get_by_test_id("provider-api-key").fill("sk-scripted-0123456789")
    card.get_by_test_id("provider-save").click()
    expect(dialog.get_by_test_id("settings-message")).to_have_text("Saved.")
    assert stored_keys(harness) == {"SCRIPTED_BOX_API_KEY": "sk-scripted-0123456789"}  # never MY_ENDPOINT_…

    # a rename moves the stored key with it
    card = endpoint(dialog)
    unfold(card)
    card.get_by_test_id("provider-name-input").fill("Work box")
    expect(card.get_by_test_id("provider-key-slot")).to_have_text(" · stored as WORK_BOX_API_KEY")
    card.get_by_test_id("provider-save").click()
    expect(dialog.get_by_test_id("settings-message")).to_have_text("Saved.")
    assert stored_keys(harness) == {"WORK_BOX_API_KEY": "sk-scripted-0123456789"}
    card = endpoint(dialog)
    unfold(card)
    expect(card.get_by_test_id("credential-status")).to_have_text("Configured (file)")
    expect(card.get_by_test_id("provider-key-slot")).to_have_text(" · stored as WORK_BOX_API_KEY")
    settings = json.loads((Path(harness.data_dir) / "settings.json").read_text())
    profile = settings["namespaces"]["llm-openai-compatible"]["profiles"][0]
    assert (profile["name"], profile["apiKeyEnv"]) == ("Work box", "WORK_BOX_API_KEY")

    # a refused field: the reason in words, next to it; nothing saved
    card.get_by_test_id("provider-base-url").fill("ftp://127.0.0.1/v1")
    card.get_by_test_id("provider-save").click()
    error = card.get_by_test_id("field-error")
    expect(error).to_have_count(1)
    expect(error).to_contain_text("Endpoint 1 · Base URL:")
    url_field = card.locator('[data-setting-field="baseURL"]')
    expect(url_field.get_by_test_id("field-error")).to_have_count(1)
    message = dialog.get_by_test_id("settings-message")
    expect(message).to_contain_text("Endpoint 1 · Base URL:")
    expect(message).not_to_contain_text("profiles.0")
    error.scroll_into_view_if_needed()
    shots(page, "field-error")
    card.get_by_test_id("provider-base-url").fill(llm.base_url)
    card.get_by_test_id("provider-save").click()
    expect(dialog.get_by_test_id("settings-message")).to_have_text("Saved.")
    expect(endpoint(dialog).get_by_test_id("field-error")).to_have_count(0)

    # removed again (the module's other tests start from the same settings)
    unfold(endpoint(dialog))
    endpoint(dialog).get_by_test_id("provider-remove").click()
    expect(endpoint(dialog)).to_have_count(0)
    dialog.get_by_test_id("settings-close").click()
