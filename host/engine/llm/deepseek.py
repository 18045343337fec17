"""The `deepseek` provider: the openai-compatible adapter preset to DeepSeek's API.

`deepseek-reasoner` streams `reasoning_content`, which becomes `reasoning` blocks.
"""

from __future__ import annotations

from contract.sessions import ModelEntry
from host.engine.llm.openai_compat import OpenAICompatibleAdapter

DEEPSEEK_BASE_URL = "https://api.deepseek.com"
DEEPSEEK_MODELS = [
    ModelEntry(model="deepseek-chat", label="DeepSeek Chat"),
    ModelEntry(model="deepseek-reasoner", label="DeepSeek Reasoner (thinks first)"),
]
DEEPSEEK_DEFAULT_MODEL = "deepseek-chat"


def deepseek_adapter(api_key: str, base_url: str | None = None, **options: object) -> OpenAICompatibleAdapter:
    """DeepSeek needs a key; `base_url` overrides the public endpoint (e.g. a proxy or a test)."""
    return OpenAICompatibleAdapter(
        base_url or DEEPSEEK_BASE_URL,
        api_key,
        provider="deepseek",
        reasoning_efforts=(),
        known_models=list(DEEPSEEK_MODELS),
        **options,  # type: ignore[arg-type]
    )
