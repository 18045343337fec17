"""What a failed browser test's report shows besides the assertion: each page's state, the last
lines its console logged, the tail of each server's log and what the scripted LLM still held.

CI prints only the report of a failed test, and a failure that happens once in a busy run cannot
be run again to look: the report has to carry what one would have looked at
(docs/decisions/test-failure-reports.md).
"""

from __future__ import annotations

from collections.abc import Iterable

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page

from tests.browser.support import Contexts, HarnessServer
from tests.support.scripted_llm import ScriptedLlmServer

PAGE_STATE = """(root) => {
  const text = (el, n) => (el ? (el.innerText || el.value || "").trim().slice(-n) : null);
  const describe = (el) =>
    el ? el.tagName.toLowerCase() + (el.dataset?.testid ? `[${el.dataset.testid}]` : "") : null;
  const box = document.querySelector("[data-testid=composer-input]");
  const app = window.harnessdesk?.app;
  const sessions = app ? [...app.manager.summaries.values()].map(
    (s) => `${s.sessionId.slice(0, 8)}${s.running ? " running" : ""} ${s.attention ?? "idle"}`) : null;
  return {
    url: location.href,
    focus: describe(document.activeElement),
    alerts: [...root.querySelectorAll("[role=alert], [role=alertdialog], [data-testid$=-error]")]
      .map((el) => text(el, 200)).filter(Boolean),
    composer: box ? box.value.slice(-200) : null,
    sessions,
    conversation: text(root.querySelector("[data-testid=conversation]"), 800),
  };
}"""
LOG_TAIL = 2500


def report(contexts: Contexts | None, servers: Iterable[HarnessServer], llm: ScriptedLlmServer | None) -> str:
    parts: list[str] = []
    if contexts is not None:
        for i, page in enumerate(contexts.pages):
            parts.append(f"page {i}: {_page_state(page)}")
        if contexts.console:
            parts.append("console (last lines):\n  " + "\n  ".join(contexts.console))
    if llm is not None:
        parts.append(f"scripted LLM: {llm.pending} replies not taken")
    for server in servers:
        tail = server.stderr()[-LOG_TAIL:]
        parts.append(f"server {server.root.name} (starts {server.starts}) stderr tail:\n{tail}")
    return "\n".join(parts)


def _page_state(page: Page) -> str:
    if page.is_closed():
        return "closed"
    try:
        return str(page.locator("body").evaluate(PAGE_STATE, timeout=3000))
    except PlaywrightError as exc:
        return f"not read: {str(exc).splitlines()[0]}"
    except Exception as exc:  # the driver itself gone: the report must still be made
        return f"not read: {exc!r}"
