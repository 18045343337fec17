"""The MCP servers panel as a person sees it: a cloned folder's trust prompt with the exact
command lines, trusting and approving, a user server's tools, and a failed server's stderr tail
(with screenshots; docs/decisions.md, "MCP servers")."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.support import ROOT, HarnessServer, click_through_redraw, shoot
from tests.support.scripted_llm import ScriptedLlmServer

pytestmark = pytest.mark.browser

BIN = Path(sys.executable).parent
FAULTY = ROOT / "tests" / "mcp" / "servers" / "faulty.py"


def servers(path: Path, entries: dict[str, object]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"mcpServers": entries}), encoding="utf-8")


def test_trust_prompt_approve_tools_and_a_failed_server(
    page: Page, llm: ScriptedLlmServer, harness: HarnessServer, tmp_path: Path
) -> None:
    repo = tmp_path / "cloned-repo"
    marker = repo / "MARKER"  # inside: the sandbox lets a server write only in its project
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    clock = f"touch {marker}; exec {BIN / 'mcp-server-time'} --local-timezone UTC"
    servers(repo / ".mcp.json", {"clock": {"command": "/bin/sh", "args": ["-c", clock]}})
    flood = {"command": sys.executable, "args": [str(FAULTY), "flood"]}
    user = {"time": {"command": str(BIN / "mcp-server-time")}, "noisy": flood}
    servers(harness.data_dir / "mcp.json", user)
    sid = page.evaluate(
        """async (path) => {
            const {client, app} = window.harnessdesk;
            const w = await client.call("workspace.create", {path});
            const s = await client.call("session.create", {workspaceId: w.value.workspace.workspaceId});
            await app.open(s.value.sessionId);
            return s.value.sessionId;
        }""",
        str(repo),
    )
    assert sid
    toggle = page.get_by_test_id("mcp-toggle")
    expect(toggle).to_be_visible()
    toggle.click()
    panel = page.get_by_test_id("mcp-panel")
    prompt = panel.get_by_test_id("mcp-trust-prompt")
    expect(prompt).to_be_visible()
    expect(prompt.get_by_test_id("mcp-trust-command")).to_have_text(f"/bin/sh -c '{clock}'")
    clock_row = panel.locator('[data-testid="mcp-server"][data-name="clock"]')
    expect(clock_row).to_have_attribute("data-state", "needs-trust")
    noisy = panel.locator('[data-testid="mcp-server"][data-name="noisy"]')
    expect(noisy).to_have_attribute("data-state", "failed")
    expect(noisy.get_by_test_id("mcp-stderr")).to_contain_text("FLOOD-END")
    time_row = panel.locator('[data-testid="mcp-server"][data-name="time"]')
    expect(time_row).to_have_attribute("data-state", "ready")
    expect(time_row.get_by_test_id("mcp-tools")).to_contain_text("get_current_time")
    shoot(page, "mcp-trust-prompt")
    assert not marker.exists()

    prompt.get_by_test_id("mcp-trust").click()
    expect(clock_row).to_have_attribute("data-state", "needs-approval")
    expect(prompt).to_have_count(0)
    assert not marker.exists()
    # the panel read again between the press and the release (a server's state changed): it lands
    redraw = "() => window.harnessdesk.app.mcpPanel.render()"
    click_through_redraw(page, clock_row.get_by_test_id("mcp-approve"), redraw)
    expect(clock_row).to_have_attribute("data-state", "ready")
    assert marker.exists()
    expect(clock_row.get_by_test_id("mcp-tools")).to_contain_text("convert_time")
    shoot(page, "mcp-servers-panel")

    time_row.get_by_test_id("mcp-enable").click()
    expect(time_row).to_have_attribute("data-state", "disabled")
    time_row.get_by_test_id("mcp-enable").click()
    expect(time_row).to_have_attribute("data-state", "ready")
