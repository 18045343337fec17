"""The agent's reach in the window (issue 45): "Always allow commands like this" on a card saves an
edited pattern rule that lets the next matching command run without a card; Settings lists the
rule and removes it; "Rewind to here" folds the rewound turn and puts its text back in the
composer (docs/decisions.md, "Rules by pattern", "Rewind in place")."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import Page, expect

from tests.browser.support import HarnessServer, fresh_session, send, shoot, tool_call, turn_ends
from tests.support.scripted_llm import Reply, ScriptedLlmServer

pytestmark = pytest.mark.browser


def _rules(server: HarnessServer) -> list[dict[str, object]]:
    path = server.data_dir / "settings.json"
    if not path.exists():
        return []
    namespaces = json.loads(path.read_text())["namespaces"]
    rules: list[dict[str, object]] = namespaces.get("permission", {}).get("rules", [])
    return rules


def test_a_card_saves_an_edited_pattern_and_the_next_command_runs_unasked(
    page: Page, llm: ScriptedLlmServer, harness: HarnessServer
) -> None:
    fresh_session(page)
    llm.enqueue(Reply(tool_calls=[tool_call("b1", "bash", command="echo first")]), Reply(text="Said it."))
    send(page, "Say first")
    card = page.get_by_test_id("approval-card")
    editor = card.get_by_test_id("rule-editor")
    editor.locator("summary").click()
    pattern = editor.get_by_test_id("rule-pattern")
    expect(pattern).to_have_value("echo first *")  # program and subcommand, then *
    pattern.fill("echo f*")
    shoot(page, "approval-rule-editor")
    editor.get_by_test_id("rule-save").click()
    turn_ends(page)
    rules = _rules(harness)
    assert [(r["tool"], r["pattern"], r.get("decision")) for r in rules] == [("bash", "echo f*", "allow")]
    assert rules[0]["folder"] == str(harness.workdir.resolve())

    llm.enqueue(Reply(tool_calls=[tool_call("b2", "bash", command="echo fine")]), Reply(text="Again."))
    send(page, "Say fine")
    turn_ends(page, 2)
    expect(page.get_by_test_id("approval-card")).to_have_count(0)  # covered by the rule: no card

    llm.enqueue(Reply(tool_calls=[tool_call("b3", "bash", command="echo other")]), Reply(text="Asked."))
    send(page, "Say other")
    card = page.get_by_test_id("approval-card")  # not covered: asked
    expect(card).to_be_visible()
    card.get_by_test_id("approval-reject").click()
    turn_ends(page, 3)

    page.get_by_test_id("open-settings").click()
    settings = page.get_by_test_id("settings-dialog")
    block = settings.get_by_test_id("rules-block")
    expect(block.get_by_test_id("rule-item")).to_have_count(1)
    expect(block.get_by_test_id("rule-item")).to_contain_text("echo f*")
    shoot(page, "settings-rules")
    block.get_by_test_id("rule-remove").click()
    block.get_by_test_id("rules-save").click()
    expect(settings.get_by_test_id("settings-message")).to_have_text("Saved.")
    assert _rules(harness) == []
    settings.get_by_test_id("settings-close").click()


def test_rewind_to_here_folds_the_turn_and_gives_back_the_text(page: Page, llm: ScriptedLlmServer) -> None:
    fresh_session(page)
    llm.enqueue(Reply(text="First answer."))
    send(page, "first question")
    turn_ends(page)
    llm.enqueue(Reply(text="Second answer."))
    send(page, "second question")
    turn_ends(page, 2)
    second = page.get_by_test_id("msg-user").filter(has_text="second question")
    second.hover()
    second.get_by_test_id("rewind-here").click()
    dialog = page.get_by_test_id("rewind-dialog")
    expect(dialog).to_be_visible()
    dialog.get_by_test_id("rewind-keep-files").click()
    row = page.get_by_test_id("rewound-row")
    expect(row).to_contain_text("Rewound: 2 messages taken back")
    expect(page.get_by_test_id("composer-input")).to_have_value("second question")
    expect(second).to_be_hidden()
    expect(page.get_by_test_id("msg-user").filter(has_text="first question")).to_be_visible()
    row.get_by_test_id("rewound-toggle").click()
    expect(second).to_be_visible()
    expect(second).to_have_attribute("data-rewound", "true")
    shoot(page, "rewound-shown")
    row.get_by_test_id("rewound-toggle").click()
    expect(second).to_be_hidden()

    llm.enqueue(Reply(text="Third answer."))
    page.get_by_test_id("composer-input").fill("second question, better")
    page.get_by_test_id("composer-input").press("Enter")
    turn_ends(page, 3)
    sent = [m.get("content") for m in llm.requests[-1]["messages"]]
    assert "first question" in sent and "second question" not in sent and "second question, better" in sent

    # the rewound turns can be restored: a new session through the last rewound turn
    page.get_by_test_id("rewound-row").get_by_test_id("rewound-restore").click()
    back = page.get_by_test_id("msg-user").filter(has_text="second question")
    expect(back).to_have_count(1)
    expect(back).to_be_visible()
    expect(back).not_to_have_attribute("data-rewound", "true")
    expect(page.get_by_text("Third answer.")).to_have_count(0)
    llm.enqueue(Reply(text="Fourth answer."))
    send(page, "and now?")
    turn_ends(page, 3)
    sent = [m.get("content") for m in llm.requests[-1]["messages"]]
    assert "second question" in sent and "second question, better" not in sent
