"""The README a person reads first (issue 46, item 8): the first five minutes say the built-in
model only chats before promising diffs and Revert, in both languages; the command table says
where the command is; figures outside the generated benchmark table are not hand-copied."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def section(start: str, end: str) -> str:
    return README[README.index(start) : README.index(end, README.index(start))]


def test_the_first_five_minutes_say_the_built_in_model_only_chats_before_diffs() -> None:
    en = section("1. **Open folder…**", "### 最初五分钟")  # the steps, after the screenshot
    assert en.index("only chats") < en.index("diff") < en.index("**Revert**")
    zh = section("1. 点击左上角", "## Using it")
    assert zh.index("只能聊天") < zh.index("差异") < zh.index("**还原**")


def test_the_command_table_says_where_the_command_is() -> None:
    using = section("## Using it", "| command | does |")
    assert ".venv/bin/harnessdesk" in using


def test_no_hand_copied_test_counts_or_suite_times() -> None:
    begin = README.index("<!-- bench-table:start")
    end = README.index("<!-- bench-table:end")
    prose = README[:begin] + README[end:]
    assert not re.search(r"\b\d{1,2},\d{3} tests\b", prose)
    assert not re.search(r"\b\d+ min \d+ s\b", prose)
    packaging = (ROOT / "packaging" / "README.md").read_text(encoding="utf-8")
    assert not re.search(r"\b\d+(?:\.\d+)? MB \(budget", packaging)
