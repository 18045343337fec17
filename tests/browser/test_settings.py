"""The Settings page and the session's permissions, driven as a user would in headless Chromium:
add an OpenAI-compatible endpoint, test it, pick one of its models and run a turn on it; a
read-only session refuses a write; "Allow always" on `npm test` does not cover `rm -rf x`, and
revoking the rule asks again."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.browser.support import (
    ROOT,
    Contexts,
    HarnessServer,
    fresh_session,
    new_session,
    openai_args,
    send,
    snap,
    tool_call,
    turn_ends,
    wait_idle,
)
from tests.support.scripted_llm import Reply, ScriptedLlmServer

pytestmark = pytest.mark.browser

SEP = "\u0001"


def open_settings(page: Page) -> Locator:
    page.get_by_test_id("open-settings").click()
    dialog = page.get_by_test_id("settings-dialog")
    expect(dialog).to_be_visible()
    expect(dialog.get_by_test_id("provider-card-deepseek")).to_be_visible()
    return dialog


def test_add_an_endpoint_test_it_pick_a_model_and_run_a_turn(
    page: Page, llm: ScriptedLlmServer, harness: HarnessServer
) -> None:
    llm.models = ["scripted-small", "scripted-large", "coder-7b"]
    dialog = open_settings(page)
    dialog.get_by_test_id("settings-add-endpoint").click()
    card = dialog.locator('[data-testid^="provider-card-my-endpoint"]')
    expect(card.get_by_test_id("provider-status")).to_have_text("Not saved yet")
    card.get_by_test_id("provider-name-input").fill("Scripted box")
    card.get_by_test_id("provider-base-url").fill(llm.base_url)
    card.get_by_test_id("provider-test").click()
    expect(card.get_by_test_id("provider-test-result")).to_have_text("Connected: 3 models available.")
    found = card.get_by_test_id("provider-discovered")
    expect(found.locator("option")).to_have_text(
        ["Choose a model…", "scripted-small", "scripted-large", "coder-7b"]
    )
    found.select_option("coder-7b")
    card.get_by_test_id("provider-save").click()
    expect(dialog.get_by_test_id("settings-message")).to_have_text("Saved.")

    saved = dialog.locator('[data-testid^="provider-card-my-endpoint"]')  # the id stays, the name changed
    expect(saved.locator(".provider-name")).to_have_text("Scripted box")
    expect(saved.get_by_test_id("provider-status")).to_have_text("Ready")
    expect(saved.get_by_test_id("provider-model")).to_have_count(1)
    on_disk = json.loads((harness.data_dir / "settings.json").read_text())
    profile = on_disk["namespaces"]["llm-openai-compatible"]["profiles"][0]
    assert (profile["name"], profile["baseURL"], profile["models"]) == (
        "Scripted box",
        llm.base_url,
        [{"id": "coder-7b"}],
    )
    dialog.get_by_test_id("settings-close").click()

    fresh_session(page)
    picker = page.get_by_test_id("model-picker")
    picker.focus()
    route = profile["id"]
    expect(
        picker.locator(f'optgroup[label="Scripted box"] option[value="{route}{SEP}coder-7b"]')
    ).to_have_count(1)
    expect(picker.locator(f'option[value="openai-compatible{SEP}scripted-large"]')).to_have_count(
        1
    )  # every route
    picker.select_option(f"{route}{SEP}coder-7b")
    page.wait_for_function(
        "(want) => window.harnessdesk.app.modelPicker.value?.current?.provider === want", arg=route
    )
    llm.enqueue(Reply(text="Hello from the endpoint profile."))
    send(page, "Which model are you?")
    expect(page.get_by_test_id("assistant-text").last).to_have_text("Hello from the endpoint profile.")
    turn_ends(page)
    wait_idle(page)
    assert llm.requests[-1]["model"] == "coder-7b"
    fold_model = page.evaluate("() => window.harnessdesk.app.manager.active.fold.model")
    assert fold_model["provider"] == route and fold_model["model"] == "coder-7b"

    # remove the profile again (the module's other tests start from the same settings)
    dialog = open_settings(page)
    dialog.locator('[data-testid^="provider-card-my-endpoint"] summary').click()
    dialog.locator('[data-testid^="provider-card-my-endpoint"]').get_by_test_id("provider-remove").click()
    expect(dialog.locator('[data-testid^="provider-card-my-endpoint"]')).to_have_count(0)
    dialog.get_by_test_id("settings-close").click()


def test_an_endpoints_error_names_it_as_the_person_named_it(
    page: Page, llm: ScriptedLlmServer, harness: HarnessServer
) -> None:
    """Issue 31, item 8: a failed request says "Scripted box: …", never the route id."""
    llm.models = ["coder-7b"]
    dialog = open_settings(page)
    dialog.get_by_test_id("settings-add-endpoint").click()
    card = dialog.locator('[data-testid^="provider-card-my-endpoint"]')
    card.get_by_test_id("provider-name-input").fill("Scripted box")
    card.get_by_test_id("provider-base-url").fill(llm.base_url)
    card.get_by_test_id("provider-test").click()
    expect(card.get_by_test_id("provider-test-result")).to_have_text("Connected: 1 model available.")
    card.get_by_test_id("provider-discovered").select_option("coder-7b")
    card.get_by_test_id("provider-save").click()
    expect(dialog.get_by_test_id("settings-message")).to_have_text("Saved.")
    route = json.loads((harness.data_dir / "settings.json").read_text())["namespaces"][
        "llm-openai-compatible"
    ]["profiles"][0]["id"]
    dialog.get_by_test_id("settings-close").click()
    fresh_session(page)
    page.get_by_test_id("model-picker").select_option(f"{route}{SEP}coder-7b")
    page.wait_for_function(
        "(want) => window.harnessdesk.app.modelPicker.value?.current?.provider === want", arg=route
    )
    llm.enqueue(Reply(status=400, error_message="the model is not loaded"))
    send(page, "Which model are you?")
    error = page.get_by_test_id("turn-error")
    expect(error).to_contain_text("Scripted box:")
    expect(error).not_to_contain_text(f"{route}:")
    snap(page, ROOT / "tests" / "screenshots" / "error-names-the-endpoint.png")
    wait_idle(page)
    dialog = open_settings(page)  # the module's other tests start from the same settings
    dialog.locator('[data-testid^="provider-card-my-endpoint"] summary').click()
    dialog.locator('[data-testid^="provider-card-my-endpoint"]').get_by_test_id("provider-remove").click()
    expect(dialog.locator('[data-testid^="provider-card-my-endpoint"]')).to_have_count(0)
    dialog.get_by_test_id("settings-close").click()


def test_a_read_only_session_is_refused_a_write(
    contexts: Contexts, make_harness: Callable[..., HarnessServer], llm: ScriptedLlmServer
) -> None:
    server = make_harness(openai_args(llm.base_url), "read-only")
    page = contexts.warm_page(server.url)
    dialog = open_settings(page)
    section = dialog.get_by_test_id("settings-ns-permission")
    section.get_by_test_id("setting-permission-defaultPreset-read-only").check()
    section.get_by_test_id("settings-save-permission").click()
    expect(dialog.get_by_test_id("settings-message")).to_have_text("Saved.")
    dialog.get_by_test_id("settings-close").click()

    new_session(page)
    write = tool_call("w1", "write_file", path="notes.txt", content="should never land\n")
    llm.enqueue(Reply(tool_calls=[write]), Reply(text="I could not write it: this session is read-only."))
    send(page, "Write notes.txt")
    turn_ends(page)
    tool = page.locator('[data-testid="tool-card"][data-call-id="w1"]')
    expect(tool.get_by_test_id("tool-result")).to_contain_text("read-only")
    expect(page.get_by_test_id("approval-card")).to_have_count(0)  # refused, never asked
    assert not (server.workdir / "notes.txt").exists()
    shield = page.get_by_test_id("permissions-toggle")
    expect(shield).to_contain_text("Read-only — ")
    shield.click()
    expect(page.get_by_test_id("permission-preset")).to_contain_text("Read-only")
    expect(page.get_by_test_id("permission-rules-empty")).to_be_visible()


def test_allow_always_is_scoped_and_revoking_asks_again(
    page: Page, llm: ScriptedLlmServer, harness: HarnessServer
) -> None:
    fresh_session(page)
    llm.enqueue(Reply(tool_calls=[tool_call("b1", "bash", command="npm test")]), Reply(text="Tests ran."))
    send(page, "Run the tests")
    card = page.get_by_test_id("approval-card")
    expect(card.get_by_test_id("approval-scope")).to_have_text("Always allow npm test … in this session")
    card.get_by_test_id("approval-allow-always").click()
    turn_ends(page)
    shield = page.get_by_test_id("permissions-toggle")
    expect(shield).to_contain_text("Ask — ")  # the suite's machine has no sandbox: Auto asks like Ask
    expect(shield).to_contain_text("· 1 rule")

    llm.enqueue(Reply(tool_calls=[tool_call("b2", "bash", command="npm test unit")]), Reply(text="Again."))
    send(page, "Once more, only the unit tests")
    turn_ends(page, 2)
    expect(page.get_by_test_id("approval-card")).to_have_count(0)  # covered by the rule: not asked

    llm.enqueue(Reply(tool_calls=[tool_call("b3", "bash", command="rm -rf x")]), Reply(text="Not removed."))
    send(page, "Clean up")
    card = page.get_by_test_id("approval-card")
    expect(card).to_have_attribute("data-tool-name", "bash")
    expect(card.get_by_test_id("approval-args")).to_contain_text("rm -rf x")  # npm test does not cover it
    card.get_by_test_id("approval-reject").click()
    turn_ends(page, 3)

    shield.click()
    rules = page.get_by_test_id("permission-rule")
    expect(rules).to_have_count(1)
    expect(rules.first).to_have_text("bash: npm test …Revoke")
    rules.first.get_by_test_id("permission-revoke").click()
    expect(page.get_by_test_id("permission-rules-empty")).to_be_visible()
    expect(shield).not_to_contain_text("rule")
    page.get_by_test_id("permissions-close").click()

    llm.enqueue(Reply(tool_calls=[tool_call("b4", "bash", command="npm test")]), Reply(text="Asked."))
    send(page, "Run the tests again")
    card = page.get_by_test_id("approval-card")
    expect(card.get_by_test_id("approval-args")).to_contain_text("npm test")  # asked again
    card.get_by_test_id("approval-reject").click()
    turn_ends(page, 4)
    wait_idle(page)
