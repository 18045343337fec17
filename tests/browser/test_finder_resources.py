"""An MCP resource through the `@` menu, as a person uses it: the real server-everything is one of
the person's servers; typing `@` and letters offers its document beside the folder's files (its
own icon and the server's name), Enter attaches it as a chip, sending gives the scripted provider
the document's text, and the sent message keeps the chip after a reload (docs/architecture.md,
"The @ finder")."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import Page, expect

from tests.browser.support import ROOT, HarnessServer, fresh_session, shoot, snap, turn_ends, wait_for_call
from tests.mcp.conftest import EVERYTHING, needs_everything
from tests.support.scripted_llm import Reply, ScriptedLlmServer

pytestmark = pytest.mark.browser

DOCS = EVERYTHING.resolve().parent.parent / "dist" / "docs"
SHOTS = ROOT / "tests" / "screenshots"


def test_at_offers_a_resource_attaches_it_and_the_model_reads_it(
    page: Page, harness: HarnessServer, llm: ScriptedLlmServer
) -> None:
    needs_everything()
    features = DOCS / "features.md"
    if not features.is_file():
        pytest.skip(f"server-everything's documents are not at {DOCS}")
    everything = {"everything": {"command": str(EVERYTHING), "args": ["stdio"]}}
    (harness.data_dir / "mcp.json").write_text(json.dumps({"mcpServers": everything}), encoding="utf-8")
    (harness.workdir / "features_todo.txt").write_text("to do\n")
    sid = fresh_session(page)
    # the server is up before the first `@` (the menu also asks again while one starts, but a
    # loaded machine may start node more slowly than that)
    wait_for_call(
        page,
        """async (sid) => {
            const r = await window.harnessdesk.client.call("mcp.list", {sessionId: sid});
            return r.ok && r.value.servers.some((s) => s.name === "everything" && s.state === "ready");
        }""",
        sid,
        timeout=60,
    )
    box = page.get_by_test_id("composer-input")
    box.click()
    box.press_sequentially("compare @features")
    menu = page.get_by_test_id("finder-menu")
    expect(menu).to_be_visible()
    resource = page.locator(
        "[data-testid=finder-item][data-kind=resource][data-path='everything:features.md']"
    )
    expect(resource).to_be_visible(timeout=60_000)
    expect(resource).to_have_attribute("data-uri", "demo://resource/static/document/features.md")
    expect(resource.get_by_test_id("finder-server")).to_have_text("MCP · everything")
    expect(page.locator("[data-testid=finder-item][data-path='features_todo.txt']")).to_be_visible()
    expect(resource.locator("mark")).to_have_text("features")
    SHOTS.mkdir(parents=True, exist_ok=True)  # the focus kept: an open menu closes on blur
    for theme in ("dark", "light"):
        page.emulate_media(color_scheme=theme)
        snap(page, SHOTS / f"finder-resource-menu-{theme}.png")
    while resource.get_attribute("aria-selected") != "true":
        box.press("ArrowDown")
    box.press("Enter")  # attaches; sends nothing
    expect(menu).to_be_hidden()
    chip = page.locator("[data-testid=context-chip][data-kind=resource]")
    expect(chip).to_have_count(1)
    expect(chip).to_have_attribute("data-path", "everything:features.md")
    expect(chip).to_have_attribute(
        "title",
        "MCP resource sent with the message: demo://resource/static/document/features.md"
        " from the server everything",
    )
    expect(box).to_have_value("compare ")

    llm.enqueue(Reply(text="they compare well"))
    box.press_sequentially("them")
    box.press("Enter")
    turn_ends(page, 1)
    said = llm.requests[-1]["messages"][-1]
    assert said["role"] == "user"
    head = "compare them\n\nContents of the MCP resource `everything:features.md` ("
    assert said["content"].startswith(head), said["content"][:200]
    first_line = features.read_text(encoding="utf-8").strip().splitlines()[0]
    assert first_line in said["content"]
    sent = page.get_by_test_id("msg-user").last
    expect(sent.locator(".user-text")).to_have_text("compare them")
    expect(sent.locator("[data-testid=msg-context-chip][data-kind=resource]")).to_have_attribute(
        "data-path", "everything:features.md"
    )
    shoot(page, "finder-resource-sent")

    page.reload()
    expect(page.locator("html")).to_have_attribute("data-connection", "connected")
    page.evaluate("(sid) => window.harnessdesk.app.open(sid)", sid)
    again = page.get_by_test_id("msg-user").last
    expect(again.locator("[data-testid=msg-context-chip][data-kind=resource]")).to_be_visible()
    expect(again.locator(".user-text")).to_have_text("compare them")
