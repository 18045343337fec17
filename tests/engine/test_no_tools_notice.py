"""A model that has no tools, asked to act, is told it cannot — and the person reads it too
(issue 46, item 1): the built-in model answered "No, I created todo.md…". The host adds a
`no-tools` context message to the turn of every such request (host/engine/presets/prompt_texts.py), which the
page shows as a plain row (tests/browser/test_offline_words.py)."""

from __future__ import annotations

import pytest

from host.engine.presets.prompt_texts import NO_TOOLS_NOTICE, asks_for_action


@pytest.mark.parametrize(
    "text",
    [
        "create a file called todo.md",
        "did you create todo.md?",
        "please run the tests",
        "fix the bug in calc.py",
        "delete the build folder",
        "创建一个文件 todo.md",
        "运行测试代码",
    ],
)
def test_requests_for_an_action_are_recognised(text: str) -> None:
    assert asks_for_action(text)


@pytest.mark.parametrize(
    "text", ["hello", "what is the capital of France?", "explain recursion to me", "你好", "谢谢"]
)
def test_plain_questions_are_not(text: str) -> None:
    assert not asks_for_action(text)


def test_the_notice_forbids_claiming_an_action() -> None:
    assert "never say that you did" in NO_TOOLS_NOTICE and "no tools" in NO_TOOLS_NOTICE
