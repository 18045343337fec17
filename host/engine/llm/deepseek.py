"""The `deepseek` route: DeepSeek's hosted API, spoken by the OpenAI-compatible adapter.

`deepseek-reasoner` streams `reasoning_content` (shown as reasoning blocks) and takes a
`reasoning_effort` of `high` or `max`. These models are the `llm-deepseek` namespace's shipped
base layer; a user's `models` list replaces it.
"""

from __future__ import annotations

from typing import Any

DEEPSEEK_DEFAULT_MODEL = "deepseek-chat"
DEEPSEEK_BASE: dict[str, Any] = {
    "models": [
        {"id": "deepseek-chat", "name": "DeepSeek Chat"},
        {
            "id": "deepseek-reasoner",
            "name": "DeepSeek Reasoner (thinks first)",
            "reasoningEfforts": ["high", "max"],
        },
    ]
}
