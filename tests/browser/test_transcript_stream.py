"""The streaming tail of an answer (webui/js/views/transcript-stream.js): text shows as it
arrives, paragraphs a blank line closed are markdown already while the answer still streams (a
code fence's blank line closes nothing), and the settled answer is exactly one parse of the whole
text. A real `harnessdesk serve`, headless Chromium, the scripted provider."""

from __future__ import annotations

import threading

import pytest
from playwright.sync_api import Page, expect

from tests.browser.support import fresh_session, send
from tests.support.scripted_llm import Reply, ScriptedLlmServer

pytestmark = pytest.mark.browser

ANSWER = (
    "# Plan\n\nFirst a **bold** step.\n\n```py\nx = 1\n\ny = 2\n```\n\n"
    "- one\n- two\n\nThe last paragraph with `code` and a few more words to stream"
)
HELD = ANSWER.index("with `code`") + 4  # the provider holds the stream here
TEXT = "[data-testid=assistant-text]"

SAME_AS_ONE_PARSE = """async (text) => {
  const { renderMarkdownInto } = await import("/js/views/markdown.js");
  const whole = renderMarkdownInto(document.createElement("div"), text).innerHTML;
  const shown = [...document.querySelectorAll('[data-testid="assistant-text"]')].at(-1).innerHTML;
  return whole === shown ? "same" : shown;
}"""


def test_a_streaming_answer_is_markdown_paragraph_by_paragraph_and_whole_once_settled(
    page: Page, llm: ScriptedLlmServer
) -> None:
    fresh_session(page)
    gate = threading.Semaphore(0)
    deltas = -(-len(ANSWER) // 4)
    llm.enqueue(Reply(text=ANSWER, chunk_size=4, paced=gate))
    send(page, "make a plan")
    gate.release(HELD // 4 - 1)  # the first delta goes unasked
    text = page.locator(TEXT).last
    sent = ANSWER[: (HELD // 4) * 4]
    expect(text).to_contain_text(sent[-12:])
    expect(page.locator(".msg-assistant.is-partial")).to_have_count(1)
    # closed paragraphs are markdown while the answer is still partial
    expect(text.locator("h1")).to_have_text("Plan")
    expect(text.locator("strong")).to_have_text("bold")
    expect(text.locator(".code-block code")).to_have_text("x = 1\n\ny = 2")
    expect(text.locator("ul > li")).to_have_text(["one", "two"])
    # the open tail shows the text so far: not a character more, none twice
    shown = text.text_content() or ""
    assert shown.count("The last paragraph") == 1, shown
    assert shown.rstrip().endswith(sent.rstrip()[-10:]), shown
    # what a blank line closed is rendered once and kept: the same nodes as the stream goes on
    heading = text.locator("h1").element_handle()
    gate.release(5)
    expect(text).to_contain_text(" and a few mo")  # past the inline code: plain text
    assert heading.evaluate("(h) => h.isConnected"), "a closed paragraph was rendered again"
    gate.release(deltas)
    expect(page.get_by_test_id("turn-end")).to_have_count(1, timeout=60_000)
    expect(page.locator(".msg-assistant.is-partial")).to_have_count(0)
    assert page.evaluate(SAME_AS_ONE_PARSE, ANSWER) == "same"


CODE_ANSWER = "Here it is:\n\n```python\ndef add(a, b):\n    return a + b\n\nprint(add(1, 2))\n```\n\nDone."
OPEN_UNTIL = CODE_ANSWER.index("print(") + 8  # held inside the open fence


def test_a_code_block_streams_plain_and_is_highlighted_once_its_fence_closes(
    page: Page, llm: ScriptedLlmServer
) -> None:
    """Highlighting an open block again every frame cost the window tens of milliseconds a frame
    (docs/decisions/markdown-in-the-window.md): the block streams as plain text."""
    fresh_session(page)
    gate = threading.Semaphore(0)
    llm.enqueue(Reply(text=CODE_ANSWER, chunk_size=4, paced=gate))
    send(page, "write add")
    gate.release(OPEN_UNTIL // 4 - 1)  # the first delta goes unasked
    text = page.locator(TEXT).last
    code = text.locator(".code-block code")
    expect(code).to_contain_text("return a + b")
    expect(code).to_contain_text(CODE_ANSWER[: (OPEN_UNTIL // 4) * 4][-6:])
    page.wait_for_timeout(300)  # several frames' tail renders
    assert code.locator("span").count() == 0, code.inner_html()  # no highlight.js tokens yet
    gate.release(-(-len(CODE_ANSWER) // 4))
    expect(page.get_by_test_id("turn-end")).to_have_count(1, timeout=60_000)
    expect(text.locator(".code-block code .hljs-keyword").first).to_have_text("def")
    assert page.evaluate(SAME_AS_ONE_PARSE, CODE_ANSWER) == "same"
