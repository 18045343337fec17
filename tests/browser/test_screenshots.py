"""Screenshots of the main states in the light and dark themes (tests/screenshots/<name>-<theme>.png).

Each state is also asserted, so a screenshot never shows something other than what it is named
after; the files are for a human to look at (they are not compared to references).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.support import (
    Contexts,
    HarnessServer,
    fresh_session,
    openai_args,
    send,
    shoot,
    tool_call,
    turn_ends,
    wait_idle,
)
from tests.support.scripted_llm import Reply, ScriptedLlmServer

pytestmark = pytest.mark.browser


MARKDOWN = """## Plan

Here is what I will do, **step by step**:

1. Read `setup.cfg` and *list* the options
2. Move them to `pyproject.toml`

```python
def load(path: str) -> dict[str, str]:
    \"\"\"Read the options.\"\"\"
    with open(path) as fh:
        return dict(line.split("=", 1) for line in fh if "=" in line)
```

> Nothing is written until you approve it.

"""
TAIL = "Then I will run the tests and report what changed in the build configuration."


def shoot_theme(page: Page, name: str, theme: str) -> Path:
    return shoot(page, f"{name}-{theme}")


def luminance(css_color: str) -> float:
    r, g, b = (int(x) for x in re.findall(r"\d+", css_color)[:3])
    return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_screenshots(
    contexts: Contexts, make_harness: Callable[..., HarnessServer], llm: ScriptedLlmServer, theme: str
) -> None:
    server = make_harness(openai_args(llm.base_url), f"shots-{theme}")
    (server.workdir / "setup.cfg").write_text("[metadata]\nname = demo\nversion = 0.1\n")
    page = contexts.new_page(server.url, color_scheme=theme)
    background = luminance(page.evaluate("() => getComputedStyle(document.body).backgroundColor"))
    assert (background < 0.3) if theme == "dark" else (background > 0.8), background

    # first run
    expect(page.get_by_test_id("empty-state")).to_be_visible()
    shoot_theme(page, "empty", theme)

    # a streaming answer with markdown and a code block, frozen mid-stream
    fresh_session(page)
    chunk = 24
    llm.enqueue(Reply(text=MARKDOWN + TAIL, chunk_size=chunk, hang_after=-(-len(MARKDOWN) // chunk)))
    send(page, "Move the build options from setup.cfg to pyproject.toml")
    answer = page.get_by_test_id("assistant-text")
    expect(answer.locator("pre code")).to_contain_text("def load(path: str)")
    expect(answer.locator("blockquote")).to_be_visible()
    expect(answer.get_by_test_id("copy-code")).to_be_visible()
    expect(page.get_by_test_id("composer-stop")).to_be_visible()
    shoot_theme(page, "streaming", theme)
    page.get_by_test_id("composer-stop").click()
    expect(turn_ends(page).first).to_have_attribute("data-reason", "aborted")
    wait_idle(page)

    # an approval card
    llm.enqueue(
        Reply(
            text="I will write the new file.",
            tool_calls=[
                tool_call(
                    "c-w",
                    "write_file",
                    path="pyproject.toml",
                    content='[project]\nname = "demo"\nversion = "0.1"\n',
                )
            ],
        ),
    )
    send(page, "Go ahead")
    card = page.get_by_test_id("approval-card")
    expect(card.get_by_test_id("approval-args")).to_contain_text("pyproject.toml")
    shoot_theme(page, "approval", theme)
    llm.enqueue(
        Reply(
            tool_calls=[
                tool_call(
                    "c-q",
                    "ask_user",
                    questions=[
                        {
                            "id": "fmt",
                            "header": "Format",
                            "question": "Which build backend should the project use?",
                            "options": [
                                {"label": "setuptools", "description": "keeps the current behaviour"},
                                {"label": "hatchling"},
                            ],
                        },
                        {
                            "id": "extras",
                            "question": "Which extras should be kept?",
                            "options": [{"label": "dev"}, {"label": "docs"}, {"label": "test"}],
                            "multiSelect": True,
                        },
                    ],
                )
            ]
        ),
    )
    card.get_by_test_id("approval-allow-once").click()

    # a question card
    question = page.get_by_test_id("question-card")
    expect(question.get_by_test_id("question")).to_have_count(2)
    question.locator('[data-label="setuptools"]').click()
    question.locator('[data-label="dev"]').click()
    shoot_theme(page, "question", theme)
    llm.enqueue(
        Reply(
            tool_calls=[
                tool_call(
                    "c-t",
                    "todo_write",
                    todos=[
                        {"content": "Write pyproject.toml", "status": "completed"},
                        {"content": "Remove setup.cfg options", "status": "in_progress"},
                        {"content": "Run the tests", "status": "pending"},
                    ],
                )
            ]
        ),
        Reply(tool_calls=[tool_call("c-b", "bash", command="ls -la && cat setup.cfg")]),
        Reply(
            tool_calls=[
                tool_call("c-e", "edit_file", path="setup.cfg", old_string="version = 0.1\n", new_string="")
            ]
        ),
        Reply(text="Done: the options now live in `pyproject.toml`."),
    )
    question.get_by_test_id("question-submit").click()

    # tool cards: terminal, diff, todo panel
    approval = page.get_by_test_id("approval-card")
    expect(approval).to_have_attribute("data-tool-name", "bash")
    approval.get_by_test_id("approval-allow-once").click()
    expect(approval).to_have_attribute("data-tool-name", "edit_file")
    approval.get_by_test_id("approval-allow-once").click()
    expect(page.get_by_test_id("assistant-text").last).to_contain_text("Done: the options")
    turn_ends(page, 2)
    wait_idle(page)
    page.get_by_test_id("todo-toggle").click()
    expect(page.get_by_test_id("todo-panel")).to_be_visible()
    page.locator('[data-testid="tool-card"][data-tool-name="bash"]').scroll_into_view_if_needed()
    expect(page.get_by_test_id("tool-terminal")).to_contain_text("version = 0.1")
    shoot_theme(page, "tools", theme)
    page.get_by_test_id("tool-diff").last.scroll_into_view_if_needed()
    shoot_theme(page, "tools-diff", theme)

    # the settings dialog
    page.get_by_test_id("open-settings").click()
    dialog = page.get_by_test_id("settings-dialog")
    deepseek = dialog.get_by_test_id("provider-card-deepseek")
    deepseek.locator("summary").click()
    expect(deepseek.get_by_test_id("credential-status")).to_have_text("Not configured")
    expect(deepseek.get_by_test_id("provider-status")).to_have_text("Needs an API key")
    shoot_theme(page, "settings", theme)
    dialog.get_by_test_id("settings-close").click()
    expect(dialog).to_be_hidden()

    # the reconnecting banner
    server.kill()
    expect(page.get_by_test_id("connection-banner")).to_have_attribute("data-state", "reconnecting")
    expect(page.get_by_test_id("reconnect-countdown")).to_be_visible()
    shoot_theme(page, "reconnecting", theme)
