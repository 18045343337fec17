"""The local adapter's prompt trimming (no model needed)."""

from __future__ import annotations

from host.engine.llm.local import CHARS_PER_TOKEN, N_CTX, fit_context


def test_short_histories_are_untouched() -> None:
    messages = [{"role": "system", "content": "sys"}, {"role": "user", "content": "hi"}]
    assert fit_context(messages, 512) == messages


def test_no_message_is_ever_dropped() -> None:
    """A long conversation is compacted before it reaches the model, never silently cut."""
    big = "x" * (N_CTX * CHARS_PER_TOKEN // 3)
    messages = [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "old " + big},
        {"role": "assistant", "content": "older answer " + big},
        {"role": "user", "content": "recent " + big},
        {"role": "assistant", "content": "ok"},
        {"role": "user", "content": "newest"},
    ]
    assert fit_context(messages, 512) == messages


def test_an_oversized_newest_message_keeps_its_end() -> None:
    text = "start " + "y" * (N_CTX * CHARS_PER_TOKEN * 2) + " the question?"
    kept = fit_context([{"role": "user", "content": text}], 512)
    assert len(kept) == 1 and kept[0]["content"].endswith(" the question?")
    assert kept[0]["content"].startswith("[… start cut to fit the context …]")
    assert len(kept[0]["content"]) < (N_CTX - 512) * CHARS_PER_TOKEN + 100
