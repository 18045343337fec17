"""How much context each model holds, in tokens (docs/decisions.md, "Long sessions").

A configured value wins (a model's `contextWindow` or a provider's `defaultContextWindow` in
the settings, when the configuration offers one); otherwise the built-in model's `n_ctx`, then a
table of well-known model families, then a conservative default.
"""

from __future__ import annotations

from host.engine.llm.local import CHARS_PER_TOKEN as LOCAL_CHARS_PER_TOKEN
from host.engine.llm.local import N_CTX

DEFAULT_WINDOW = 32_768
"""An unknown model: small enough for most self-hosted servers, never larger than it claims."""

FAMILIES: tuple[tuple[str, int], ...] = (
    ("deepseek", 128_000),
    ("gpt-4.1", 1_047_576),
    ("gpt-5", 400_000),
    ("gpt-4o", 128_000),
    ("gpt-4-turbo", 128_000),
    ("o1", 200_000),
    ("o3", 200_000),
    ("o4", 200_000),
    ("claude", 200_000),
    ("gemini", 1_000_000),
    ("llama3", 128_000),
    ("llama-3", 128_000),
    ("qwen3", 32_768),
    ("qwen2.5", 32_768),
    ("mistral", 32_768),
)
"""(model name prefix, window): the newest public figures for each family's usual models."""


def default_window(provider: str, model: str) -> int:
    if provider == "local":
        return N_CTX
    name = model.lower().rsplit("/", 1)[-1]
    for prefix, window in FAMILIES:
        if name.startswith(prefix):
            return window
    return DEFAULT_WINDOW


def chars_per_token(provider: str) -> float:
    """The characters-per-token rate estimates use (small local tokenizers split finer)."""
    return float(LOCAL_CHARS_PER_TOKEN) if provider == "local" else 4.0
