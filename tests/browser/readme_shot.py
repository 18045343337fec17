"""`python -m tests.browser.readme_shot`: the README's "first five minutes" screenshot
(docs/img/first-five-minutes.png), taken as the browser tests take theirs: a real
`harnessdesk serve`, Debian's Chromium, and the scripted OpenAI-compatible server standing in
for a model (the only double). A project folder is opened, a task typed, the agent's file edit
approved, and the answer shown.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import expect, sync_playwright

from tests.browser.support import CHROMIUM, CHROMIUM_ARGS, ROOT, HarnessServer, openai_args
from tests.support.scripted_llm import Reply, ScriptedLlmServer

OUT = ROOT / "docs" / "img" / "first-five-minutes.png"


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp, ScriptedLlmServer() as llm:
        home = Path(tmp) / "home"
        project = home / "projects" / "recipes"
        project.mkdir(parents=True)
        (project / "README.md").write_text("# Recipes\n\nA few recipes, one file each.\n")
        (project / "pancakes.md").write_text("# Pancakes\n\n- 2 eggs\n- 250 ml milk\n- 125 g flour\n")
        os.environ["HOME"] = str(home)
        server = HarnessServer(Path(tmp) / "serve", openai_args(llm.base_url))
        server.start()
        try:
            edit = {
                "path": "pancakes.md",
                "old_string": "- 125 g flour\n",
                "new_string": "- 125 g flour\n- a pinch of salt\n",
            }
            llm.enqueue(
                Reply(tool_calls=[("c1", "edit_file", json.dumps(edit))]),
                Reply(text="Added a pinch of salt to **pancakes.md**, after the flour. Anything else?"),
            )
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                page = browser.new_page(viewport={"width": 1280, "height": 760}, locale="en-US")
                page.goto(server.url)
                expect(page.locator("html")).to_have_attribute("data-connection", "connected")
                page.get_by_test_id("onboarding-ack").click()  # read once, as a newcomer would
                page.get_by_test_id("open-folder").click()
                dialog = page.get_by_test_id("folder-dialog")
                for name in ("projects", "recipes"):
                    dialog.get_by_test_id("folder-entry").filter(has_text=name).click()
                dialog.get_by_test_id("folder-open").click()
                box = page.get_by_test_id("composer-input")
                box.fill("Add a pinch of salt to the pancake recipe")
                box.press("Enter")
                allow = page.get_by_test_id("approval-allow-once")
                allow.or_(page.get_by_test_id("turn-end")).first.wait_for()
                if allow.count():
                    allow.click()
                expect(page.get_by_test_id("turn-end")).to_have_count(1)
                expect(page.get_by_test_id("working-indicator")).to_be_hidden()
                page.evaluate("() => document.activeElement?.blur?.()")
                OUT.parent.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(OUT), animations="disabled", caret="hide")
                browser.close()
        finally:
            server.stop()
    print(OUT)
    return 0


if __name__ == "__main__":
    sys.exit(main())
