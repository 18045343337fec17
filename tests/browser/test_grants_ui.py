"""What "Allow always" remembers is named on the card before the click, a change that lets the
agent do more without asking waits for the person's confirmation, and a subagent's label is shown
as the model's words (issue 24, items 5, 6, 7; docs/decisions.md, "Grants cannot widen", "Loosening is
privileged", "Subagent labels"). Screenshots in tests/screenshots/."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

from tests.browser.support import (
    Contexts,
    HarnessServer,
    fresh_session,
    new_session,
    openai_args,
    send,
    shoot,
    tool_call,
    turn_ends,
)
from tests.support.scripted_llm import Reply, ScriptedLlmServer

pytestmark = pytest.mark.browser


def test_the_card_names_the_scope_before_the_click(
    page: Page, llm: ScriptedLlmServer, harness: HarnessServer
) -> None:
    fresh_session(page)
    marker = harness.workdir / "M-card"
    llm.enqueue(
        Reply(tool_calls=[tool_call("b1", "bash", command="find . -name '*.txt'")]),
        Reply(text="Listed."),
    )
    send(page, "List the text files")
    card = page.get_by_test_id("approval-card")
    scope = card.get_by_test_id("approval-scope")
    expect(scope).to_have_text("Always allow find -name … in this session")
    expect(scope.locator("code")).to_have_text("find -name …")
    expect(card.get_by_test_id("approval-allow-always")).to_contain_text("Allow always")
    shoot(page, "approval-scope-prefix")
    card.get_by_test_id("approval-allow-always").click()
    turn_ends(page)

    escape = f"find . -exec touch {marker.name} {{}} +"
    llm.enqueue(Reply(tool_calls=[tool_call("b2", "bash", command=escape)]), Reply(text="Not run."))
    send(page, "Now touch the marker through find")
    card = page.get_by_test_id("approval-card")  # asked: the find -name rule does not cover -exec
    expect(card.get_by_test_id("approval-args")).to_contain_text("-exec")
    expect(card.get_by_test_id("approval-scope")).to_have_text("Always allow exactly this command")
    expect(card.get_by_test_id("approval-scope")).to_have_attribute("data-exact", "true")
    expect(card.get_by_test_id("approval-allow-always")).to_contain_text("Allow this exact command always")
    shoot(page, "approval-scope-exact")
    card.get_by_test_id("approval-reject").click()
    turn_ends(page, 2)
    assert not marker.exists()


def test_a_looser_default_preset_asks_first(
    contexts: Contexts, make_harness: Callable[..., HarnessServer], llm: ScriptedLlmServer
) -> None:
    server = make_harness(openai_args(llm.base_url), "loosen-default")
    page = contexts.warm_page(server.url)
    page.get_by_test_id("open-settings").click()
    settings = page.get_by_test_id("settings-dialog")
    section = settings.get_by_test_id("settings-ns-permission")
    section.get_by_test_id("setting-permission-defaultPreset-danger-full-access").check()
    section.get_by_test_id("settings-save-permission").click()
    confirm = page.get_by_test_id("loosen-confirm")
    expect(confirm).to_contain_text("The default for new sessions goes from “Auto” to “Full access”")
    confirm.get_by_test_id("loosen-confirm-cancel").click()
    expect(settings.get_by_test_id("settings-message")).not_to_have_text("Saved.")
    assert "danger-full-access" not in _settings_text(server)

    section.get_by_test_id("settings-save-permission").click()
    page.get_by_test_id("loosen-confirm-ok").click()
    expect(settings.get_by_test_id("settings-message")).to_have_text("Saved.")
    assert "danger-full-access" in _settings_text(server)

    section = settings.get_by_test_id("settings-ns-permission")
    section.get_by_test_id("setting-permission-defaultPreset-read-only").check()
    section.get_by_test_id("settings-save-permission").click()  # tighter: saved without a question
    expect(settings.get_by_test_id("settings-message")).to_have_text("Saved.")
    expect(page.get_by_test_id("loosen-confirm")).to_have_count(0)
    settings.get_by_test_id("settings-close").click()
    new_session(page)


def _settings_text(server: HarnessServer) -> str:
    path = server.data_dir / "settings.json"
    return path.read_text() if path.exists() else ""


def test_a_subagent_label_is_quoted_as_the_model_words(page: Page, llm: ScriptedLlmServer) -> None:
    fresh_session(page)
    spoof = "Your own terminal (trusted)”\u202e — approved"
    llm.enqueue(
        Reply(
            when="PARENT", tool_calls=[tool_call("t1", "task", description=spoof, prompt="CHILD-spoof: ls")]
        ),
        Reply(when="CHILD-spoof", tool_calls=[tool_call("b1", "bash", command="ls")]),
        Reply(when="CHILD-spoof", text="Listed."),
        Reply(when="PARENT", text="Done."),
    )
    send(page, "PARENT: start a subagent")
    card = page.get_by_test_id("approval-card")
    line = card.get_by_test_id("pending-subagent")
    expect(line).to_contain_text("Subagent:")
    label = line.get_by_test_id("subagent-label")
    expect(label).to_have_text("Your own terminal (trusted)' — approved")  # no early closing quote, no bidi
    assert label.evaluate("(el) => el.tagName") == "Q"
    quotes = label.evaluate(
        "(el) => [getComputedStyle(el, '::before').content, getComputedStyle(el, '::after').content]"
    )
    assert quotes == ['"“"', '"”"'] or quotes == ["open-quote", "close-quote"], quotes
    expect(line).to_contain_text("(the model's words)")
    expect(card.locator(".card-head")).not_to_contain_text("trusted")  # never where the app names who asks
    shoot(page, "subagent-label-quoted")
    card.get_by_test_id("approval-reject").click()
    turn_ends(page)


def test_loosening_a_session_asks_first_and_tightening_does_not(page: Page) -> None:
    # last in the module: a page opened later takes this blank session for a new one (the
    # "a command ran here" mark lives in the page that ran it)
    fresh_session(page)
    shield = page.get_by_test_id("permissions-toggle")
    expect(shield).to_contain_text("Ask — no sandbox on this machine")  # the suite runs unsandboxed
    box = page.get_by_test_id("composer-input")
    box.fill("/permission danger-full-access")
    box.press("Enter")
    dialog = page.get_by_test_id("loosen-confirm")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("Let the agent do more without asking?")
    expect(dialog).to_contain_text("This session goes from “Ask” to “Full access”.")
    shoot(page, "loosen-confirm")
    dialog.get_by_test_id("loosen-confirm-cancel").click()
    expect(dialog).to_have_count(0)
    expect(box).to_have_value("/permission danger-full-access")  # nothing sent, nothing lost
    expect(page.get_by_test_id("command-row")).to_have_count(0)
    expect(shield).to_contain_text("Ask — no sandbox on this machine")  # the suite runs unsandboxed

    box.press("Enter")
    page.get_by_test_id("loosen-confirm-ok").click()
    expect(box).to_have_value("")
    expect(page.get_by_test_id("command-row").last.get_by_test_id("command-result")).to_contain_text(
        "Permission mode Full access"
    )
    expect(shield).to_contain_text("Full access")

    send(page, "/permission read-only")  # tighter: sent at once, no question
    expect(page.get_by_test_id("loosen-confirm")).to_have_count(0)
    expect(shield).to_contain_text("Read-only")
