"""Automations and the Inbox in the page (issue 49; docs/decisions/automations.md): a real
`harnessdesk serve` on a git repository, the real page in Chromium, the scripted provider. The
dialog makes an automation (Full access is refused until its warning is confirmed), Run now
starts it, and the Inbox shows each run's state: running, needs you (waiting on an approval),
answered with its summary, unread first with a count; opening a run opens its session with the
Changes view and marks it read; Archive and Discard run take it out (Discard removes its session
and worktree). A zh-CN page shows the same screens in Chinese."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

from contract.methods import (
    AGENT_PRESET_LIST,
    AUTOMATION_LIST,
    AUTOMATION_RUN_NOW,
    AUTOMATION_RUNS,
    SESSION_LIST,
)
from tests.browser.i18n_screens import english_on_screen
from tests.browser.support import (
    Contexts,
    HarnessServer,
    click_through_redraw,
    openai_args,
    rpc,
    shoot,
    tool_call,
)
from tests.support.git_repos import make_repo
from tests.support.scripted_llm import Reply, ScriptedLlmServer

pytestmark = pytest.mark.browser

WAIT = 30_000
"""The inbox reads the host on each session change and every 15 s: a bound, not a pace."""


@pytest.fixture
def repo_server(make_harness: Callable[..., HarnessServer], llm: ScriptedLlmServer) -> HarnessServer:
    server = make_harness(openai_args(llm.base_url))
    make_repo(server.workdir)
    return server


def fill_form(page: Page, name: str, folder: str, prompt: str) -> None:
    page.get_by_test_id("open-automations").click()
    dialog = page.get_by_test_id("automations-dialog")
    expect(dialog).to_be_visible()
    dialog.get_by_test_id("automation-new").click()
    dialog.get_by_test_id("automation-name").fill(name)
    dialog.get_by_test_id("automation-cwd").fill(folder)
    dialog.get_by_test_id("automation-prompt").fill(prompt)


def test_automation_dialog_run_now_and_the_inbox_states(
    contexts: Contexts, repo_server: HarnessServer, llm: ScriptedLlmServer
) -> None:
    page = contexts.warm_page(repo_server.url)
    page.set_viewport_size({"width": 1600, "height": 900})  # the Changes view beside the conversation
    expect(page.get_by_test_id("inbox-empty")).to_be_visible()
    fill_form(page, "Morning tests", str(repo_server.workdir), "look at the failing tests and @b.txt")
    dialog = page.get_by_test_id("automations-dialog")
    # model and preset offer what this host has: the default model, the built-in presets
    first_model = dialog.locator("[data-testid=automation-models] option").first
    expect(first_model).to_have_attribute("value", re.compile(r"^.+/.+$"))
    preset_ids = [p["id"] for p in rpc(page, AGENT_PRESET_LIST, {})["presets"] if not p.get("broken")]
    expect(dialog.locator("[data-testid=automation-presets] option")).to_have_count(len(preset_ids))
    shoot(page, "automations-form")
    # the schedule presets write the cron expression
    expect(dialog.get_by_test_id("automation-cron")).to_have_value("0 9 * * 1-5")
    dialog.get_by_test_id("automation-time").fill("07:30")
    dialog.get_by_test_id("automation-time").dispatch_event("change")
    expect(dialog.get_by_test_id("automation-cron")).to_have_value("30 7 * * 1-5")
    dialog.get_by_test_id("automation-schedule-preset").select_option("daily")
    expect(dialog.get_by_test_id("automation-cron")).to_have_value("30 7 * * *")
    # Full access is refused until the warning is confirmed
    dialog.get_by_test_id("automation-permission").select_option("danger-full-access")
    expect(dialog.get_by_test_id("automation-confirm-full")).to_be_visible()
    dialog.get_by_test_id("automation-save").click()
    expect(dialog.get_by_test_id("automation-problem")).to_be_visible()
    assert rpc(page, AUTOMATION_LIST, {})["items"] == []
    dialog.get_by_test_id("automation-permission").select_option("auto")
    expect(dialog.get_by_test_id("automation-problem")).to_be_hidden()
    dialog.get_by_test_id("automation-trigger").select_option("manual")
    dialog.get_by_test_id("automation-save").click()
    row = dialog.get_by_test_id("automation-row")
    expect(row).to_have_count(1)
    [item] = rpc(page, AUTOMATION_LIST, {})["items"]
    assert item["trigger"] == {"kind": "manual"} and item["permission"] == "auto"
    assert item["attach"] == [{"path": "b.txt"}]  # the prompt's @ mention rides along with each run

    # a run that waits on an approval: the inbox says it needs the person (no sandbox here: Auto asks)
    llm.enqueue(
        Reply(tool_calls=[tool_call("c1", "write_file", path="notes.md", content="x\n")]),
        Reply(text="Wrote the notes\n\nMore words."),
    )
    row.get_by_test_id("automation-run-now").click()
    dialog.get_by_test_id("automations-close").click()
    run = page.get_by_test_id("inbox-run")
    expect(run).to_have_attribute("data-outcome", "needs-you", timeout=WAIT)
    assert any("bee" in json.dumps(r["messages"]) for r in llm.requests)  # b.txt, read in the run's worktree
    expect(page.get_by_test_id("inbox-unread")).to_have_text("1")
    run.click()  # opens the run's session with the Changes view, and marks it read
    [value] = rpc(page, AUTOMATION_RUNS, {})["items"]
    expect(page.get_by_test_id("changes-panel")).to_be_visible()
    assert page.evaluate("() => window.harnessdesk.app.manager.activeId") == value["sessionId"]
    card = page.locator("[data-testid=approval-card][data-tool-name='write_file']")
    card.get_by_test_id("approval-allow-once").click()
    expect(run).to_have_attribute("data-outcome", "changed", timeout=WAIT)
    expect(run.get_by_test_id("inbox-summary")).to_have_text("Wrote the notes")
    expect(run.get_by_test_id("inbox-outcome")).to_have_text("changed 1 file")

    # a second run: answered, unread, listed first
    llm.enqueue(Reply(text="All tests pass today"))
    rpc(page, AUTOMATION_RUN_NOW, {"automationId": item["automationId"]})
    first = page.get_by_test_id("inbox-run").first
    expect(first).to_have_attribute("data-outcome", "answered", timeout=WAIT)
    expect(first).to_have_attribute("data-read", "false")
    expect(first.get_by_test_id("inbox-summary")).to_have_text("All tests pass today")
    expect(page.get_by_test_id("inbox-run")).to_have_count(2)
    shoot(page, "automations-inbox")

    # Archive takes the first out of the inbox; Discard run removes the other and its session
    # (the inbox read again between the press and the release: the click still lands)
    archive = page.get_by_test_id("inbox-item").first.get_by_test_id("inbox-archive")
    click_through_redraw(page, archive, "() => window.harnessdesk.app.runInbox.render()")
    expect(page.get_by_test_id("inbox-run")).to_have_count(1)
    page.get_by_test_id("inbox-item").first.get_by_test_id("inbox-discard").click()
    page.get_by_test_id("inbox-discard-yes").click()
    expect(page.get_by_test_id("inbox-empty")).to_be_visible()
    sessions = [s["sessionId"] for s in rpc(page, SESSION_LIST, {})["items"]]
    assert value["sessionId"] not in sessions


def test_automations_and_the_inbox_in_chinese(
    contexts: Contexts, repo_server: HarnessServer, llm: ScriptedLlmServer
) -> None:
    page = contexts.new_page(repo_server.url, locale="zh-CN")
    theirs = ("晨间测试", str(repo_server.workdir), "看看失败的测试", "0 9 * * 1-5")
    expect(page.get_by_test_id("inbox-empty")).to_be_visible()
    assert english_on_screen(page, theirs) == []
    fill_form(page, "晨间测试", str(repo_server.workdir), "看看失败的测试")
    zone = page.get_by_test_id("automation-zone").input_value()
    assert english_on_screen(page, (*theirs, zone)) == []
    page.get_by_test_id("automation-save").click()
    expect(page.get_by_test_id("automation-row")).to_have_count(1)
    llm.enqueue(Reply(text="一切正常"))
    page.get_by_test_id("automation-run-now").click()
    page.get_by_test_id("automations-close").click()
    expect(page.get_by_test_id("inbox-run")).to_have_attribute("data-outcome", "answered", timeout=WAIT)
    assert english_on_screen(page, (*theirs, "一切正常")) == []
