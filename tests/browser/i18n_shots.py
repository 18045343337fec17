"""`python -m tests.browser.i18n_shots`: the main screens in Chinese and in English
(docs/img/zh-CN-*.png, docs/img/en-*.png; README's "The first five minutes"), taken as the
browser tests take theirs: a real `harnessdesk serve` per language, Debian's Chromium with the
browser's language set (the page follows it; nothing is chosen in Settings), the scripted
OpenAI-compatible server standing in for a model (the only double), and the screens the language
test walks (tests/browser/i18n_screens.py). Chinese needs `fonts-noto-cjk`
(scripts/install.sh --dev). Look at them before committing: nothing cut, nothing untranslated,
no boxes.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import expect, sync_playwright

from tests.browser.i18n_screens import main_screens
from tests.browser.support import CHROMIUM, CHROMIUM_ARGS, ROOT, HarnessServer, open_app, openai_args
from tests.support.scripted_llm import ScriptedLlmServer

OUT = ROOT / "docs" / "img"
SHOWN = ("welcome", "approval", "conversation", "changes", "settings")
"""The screens kept (the language test checks every one it walks)."""
LOCALES = {"zh-CN": "zh-CN", "en": "en-US"}


def shoot(language: str, locale: str, tmp: Path) -> list[Path]:
    home = tmp / language / "home"
    home.mkdir(parents=True)
    os.environ["HOME"] = str(home)  # the folder browser and the paths shown start here
    saved: list[Path] = []
    with ScriptedLlmServer() as llm:
        server = HarnessServer(tmp / language / "serve", openai_args(llm.base_url))
        server.start()
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                page = browser.new_page(viewport={"width": 1280, "height": 800}, locale=locale)
                open_app(page, server.url)
                page.get_by_test_id("onboarding-ack").click()  # read once, as a newcomer would
                expect(page.get_by_test_id("onboarding-notice")).to_be_hidden()
                for name in main_screens(page, llm, server):
                    if name not in SHOWN:
                        continue
                    if name == "settings":  # where the language is chosen
                        page.get_by_test_id("settings-ns-ui-appearance").scroll_into_view_if_needed()
                    page.evaluate("() => document.activeElement?.blur?.()")
                    page.wait_for_timeout(300)  # let a scroll into view settle
                    path = OUT / f"{language}-{name}.png"
                    page.screenshot(path=str(path), animations="disabled", caret="hide")
                    saved.append(path)
                browser.close()
        finally:
            server.stop()
    return saved


def main() -> int:
    expect.set_options(timeout=20_000)
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for language, locale in LOCALES.items():
            for path in shoot(language, locale, Path(tmp)):
                print(path.relative_to(ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
