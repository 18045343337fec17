"""Presets, skills and commands in the browser: the slash menu, the preset picker and viewer,
command rows; screenshots of the menu and the picker land in the test's folder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.support import HarnessServer, fresh_session, send, snap, turn_ends, wait_idle
from tests.support.scripted_llm import Reply, ScriptedLlmServer

pytestmark = pytest.mark.browser

WRITE_TOOLS = {"write_file", "edit_file", "bash"}
SHOTS = Path(os.environ.get("HARNESSDESK_SCREENSHOTS", "/tmp/harnessdesk-shots"))


def skill(root: Path, name: str, description: str, body: str) -> None:
    (root / name).mkdir(parents=True, exist_ok=True)
    (root / name / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {description}\n---\n{body}\n")


def tools_of(request: dict) -> set[str]:
    return {t["function"]["name"] for t in request.get("tools") or []}


def test_the_slash_menu_inserts_a_skill_that_reaches_the_model(
    page: Page, harness: HarnessServer, llm: ScriptedLlmServer
) -> None:
    skills = harness.workdir / ".agents" / "skills"
    skill(skills, "pdf-forms", "Fill and flatten PDF forms with pdftk", "Always flatten the form last.")
    skill(skills, "release-notes", "Write release notes from the git log", "Group by area.")
    (harness.workdir / "AGENTS.md").write_text("Run the tests before you finish.\n")
    fresh_session(page)
    box = page.get_by_test_id("composer-input")
    box.fill("Please handle this with ")
    box.press("End")
    box.press_sequentially("/pd")
    menu = page.get_by_test_id("slash-menu")
    expect(menu).to_be_visible()
    items = page.get_by_test_id("slash-item")
    expect(items).to_have_count(1)  # mid-message: skills only, filtered by the typed prefix
    expect(items.first).to_have_attribute("data-name", "pdf-forms")
    expect(items.first).to_contain_text("Fill and flatten PDF forms")
    box.press("Enter")  # chooses; does not send
    expect(menu).to_be_hidden()
    expect(box).to_have_value("Please handle this with /pdf-forms ")
    box.press_sequentially("please")
    llm.enqueue(Reply(text="Flattened."))
    box.press("Enter")
    expect(box).to_have_value("")
    expect(page.get_by_test_id("skill-row")).to_contain_text("/pdf-forms")
    expect(turn_ends(page).last).to_have_attribute("data-reason", "completed")
    texts = [str(m["content"]) for m in llm.requests[-1]["messages"] if m["role"] == "user"]
    invoked = [t for t in texts if t.startswith('<skill_content name="pdf-forms">')]
    assert len(invoked) == 1 and "flatten the form last" in invoked[0]
    assert "Run the tests before you finish." in llm.requests[-1]["messages"][0]["content"]
    badge = page.get_by_test_id("instructions-file")
    expect(badge).to_contain_text("AGENTS.md")
    expect(badge).to_have_attribute("title", f"Project instructions in use: {harness.workdir / 'AGENTS.md'}")
    snap(page, SHOTS / "skill-row.png")
    wait_idle(page)


def test_the_preset_picker_starts_a_read_only_session(page: Page, llm: ScriptedLlmServer) -> None:
    fresh_session(page)
    picker = page.get_by_test_id("preset-picker")
    expect(picker.get_by_test_id("preset-option")).to_have_count(3)
    standard = picker.locator('[data-preset-id="standard"]')
    expect(standard.get_by_role("radio")).to_be_checked()
    snap(page, SHOTS / "preset-picker.png")
    picker.get_by_text("Read-only", exact=True).click()
    expect(page.get_by_test_id("session-preset")).to_have_text("Read-only")
    expect(picker.locator('[data-preset-id="read-only"]').get_by_role("radio")).to_be_checked()
    llm.enqueue(Reply(text="I can only look."))
    send(page, "What is in this folder?")
    expect(page.get_by_test_id("assistant-text").last).to_have_text("I can only look.")
    expect(picker).to_be_hidden()  # the session has started: its preset is fixed
    tools = tools_of(llm.requests[-1])
    assert tools and not tools & WRITE_TOOLS
    wait_idle(page)


def test_a_broken_preset_is_greyed_and_the_viewer_copies_and_removes(
    page: Page, harness: HarnessServer
) -> None:
    broken = harness.data_dir / "agent-presets" / "half-done"
    broken.mkdir(parents=True, exist_ok=True)
    (broken / "preset.toml").write_text('name = "Half done"\ntools = ["teleport"]\n')
    page.reload()
    fresh_session(page)
    picker = page.get_by_test_id("preset-picker")
    option = picker.locator('[data-preset-id="half-done"]')
    expect(option.get_by_role("radio")).to_be_disabled()
    expect(option.get_by_test_id("preset-broken")).to_contain_text("unknown tool 'teleport'")
    picker.locator('[data-preset-id="read-only"]').get_by_test_id("preset-details").click()
    viewer = page.get_by_test_id("preset-viewer")
    expect(viewer.get_by_test_id("preset-content")).to_contain_text('tools = ["read_file"')
    expect(viewer.get_by_test_id("preset-remove")).to_have_count(0)  # shipped: read-only
    viewer.get_by_test_id("preset-copy").click()
    viewer.get_by_test_id("preset-copy-id").fill("my-reader")
    viewer.get_by_test_id("preset-copy-name").fill("My reader")
    viewer.get_by_test_id("preset-copy-save").click()
    expect(viewer.get_by_test_id("preset-content")).to_contain_text('name = "My reader"')
    expect(picker.locator('[data-preset-id="my-reader"]')).to_contain_text("My reader")
    viewer.get_by_test_id("preset-open-folder").click()
    expect(viewer.get_by_test_id("preset-path")).to_contain_text(
        str(harness.data_dir / "agent-presets" / "my-reader")
    )
    viewer.get_by_test_id("preset-make-default").click()
    expect(viewer).to_be_hidden()
    expect(picker.locator('[data-preset-id="my-reader"]')).to_be_visible()
    page.wait_for_function(
        "() => window.harnessdesk.app.presets.value?.presets.find((p) => p.id === 'my-reader')?.isDefault"
    )
    picker.locator('[data-preset-id="my-reader"]').get_by_test_id("preset-details").click()
    expect(viewer.get_by_test_id("preset-is-default")).to_be_visible()
    viewer.get_by_test_id("preset-remove").click()
    viewer.get_by_test_id("preset-remove").click()  # confirm
    expect(viewer).to_be_hidden()
    expect(picker.locator('[data-preset-id="my-reader"]')).to_have_count(0)
    assert not (harness.data_dir / "agent-presets" / "my-reader").exists()
    page.wait_for_function(
        "() => window.harnessdesk.app.presets.value?.presets.find((p) => p.id === 'standard')?.isDefault"
    )  # the removed preset stopped being the default


def test_a_new_or_edited_skill_shows_in_the_slash_menu_without_switching_sessions(
    page: Page, harness: HarnessServer
) -> None:
    skills = harness.workdir / ".agents" / "skills"
    skill(skills, "pdf-forms", "Fill and flatten PDF forms with pdftk", "Always flatten the form last.")
    fresh_session(page)
    box = page.get_by_test_id("composer-input")
    items = page.get_by_test_id("slash-item")
    box.press_sequentially("/")
    expect(items.filter(has_text="pdf-forms")).to_have_count(1)
    expect(items.filter(has_text="changelog")).to_have_count(0)
    box.fill("")
    expect(page.get_by_test_id("slash-menu")).to_be_hidden()
    # written while the session stays open: the next `/` lists it, and an edit shows too
    skill(skills, "changelog", "Keep a changelog in the project's style", "Newest first.")
    skill(skills, "pdf-forms", "Fill PDF forms and keep them editable", "Never flatten.")
    box.press_sequentially("/")
    expect(items.filter(has_text="changelog")).to_contain_text("Keep a changelog")
    expect(items.filter(has_text="pdf-forms")).to_contain_text("keep them editable")
    snap(page, SHOTS / "slash-menu-new-skill.png")
    box.fill("")


# (last in the module: a session where only commands ran stays blank, and a new page's "New
# session" would reuse it)
def test_the_slash_menu_lists_commands_at_the_start_and_runs_them(page: Page, llm: ScriptedLlmServer) -> None:
    fresh_session(page)
    box = page.get_by_test_id("composer-input")
    box.press_sequentially("/")
    items = page.get_by_test_id("slash-item")
    expect(items.filter(has_text="/plan")).to_have_count(1)
    expect(items.filter(has_text="[off|message]")).to_have_count(1)
    for client in ("model", "new", "help"):
        expect(page.locator(f'[data-testid="slash-item"][data-name="{client}"]')).to_have_count(1)
    snap(page, SHOTS / "slash-menu.png")
    box.press("ArrowDown")
    box.press("ArrowUp")
    active = page.locator('[data-testid="slash-item"][aria-selected="true"]')
    expect(active).to_have_count(1)
    box.press("Escape")
    expect(page.get_by_test_id("slash-menu")).to_be_hidden()
    box.fill("")
    box.press_sequentially("/pla")
    box.press("Tab")
    expect(box).to_have_value("/plan ")
    box.press("Enter")  # runs the command
    expect(box).to_have_value("")
    row = page.get_by_test_id("command-row")
    expect(row).to_have_attribute("data-status", "success")
    expect(row.get_by_test_id("command-result")).to_contain_text("Plan mode on")
    expect(page.get_by_test_id("plan-badge")).to_be_visible()
    box.press_sequentially("/mo")
    box.press("Enter")  # a client command runs at once: the model picker takes the focus
    expect(page.get_by_test_id("model-picker")).to_be_focused()
    expect(box).to_have_value("")
    box.focus()
    box.press_sequentially("/help")
    box.press("Enter")
    expect(page.get_by_test_id("help-dialog")).to_be_visible()
    expect(page.get_by_test_id("help-entry").filter(has_text="/plan")).to_have_count(1)
    page.get_by_test_id("help-close").click()
    send(page, "/plan off")
    expect(page.get_by_test_id("command-row").last.get_by_test_id("command-result")).to_contain_text(
        "Plan mode off"
    )
    expect(page.get_by_test_id("plan-badge")).to_be_hidden()
    assert llm.requests == []  # commands never reach the model
