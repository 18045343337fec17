"""AdapterRegistry: routing, keys, caching and rebuilding on settings changes."""

from __future__ import annotations

import pytest

from contract.content import Message, MessageSource, TextBlock
from contract.settings import LlmSettings
from host.engine.llm import AdapterRegistry, LlmRequest, LocalModelAdapter, OpenAICompatibleAdapter
from host.engine.llm.catalogue import is_local_url
from tests.support.scripted_llm import Reply, ScriptedLlmServer


class Config:
    """Mutable settings and keys, read through the two callbacks the registry takes."""

    def __init__(self, **settings: str) -> None:
        self.settings = LlmSettings(**settings)  # type: ignore[arg-type]
        self.keys: dict[str, str] = {}

    def registry(self) -> AdapterRegistry:
        return AdapterRegistry(
            lambda: self.settings, self.keys.get, adapter_options={"retry_base_delay": 0.01}
        )


def test_providers_and_defaults() -> None:
    config = Config()
    registry = config.registry()
    assert [p.provider for p in registry.providers()] == ["local", "openai-compatible", "deepseek"]
    assert {p.provider: p.needs_key for p in registry.providers()}["deepseek"] is True
    assert registry.default_model("local") == "smollm2-135m-instruct"
    assert registry.default_model("deepseek") == "deepseek-chat"
    config.settings = LlmSettings(provider="deepseek", model="deepseek-reasoner")
    assert registry.default_model("deepseek") == "deepseek-reasoner"
    assert registry.default_model("openai-compatible") == "gpt-4o-mini"
    assert registry.default_model("nope") is None


def test_local_is_routable_without_configuration() -> None:
    registry = Config().registry()
    assert registry.status("local") == (True, None)
    adapter = registry.get("local")
    assert isinstance(adapter, LocalModelAdapter) and registry.get("local") is adapter
    assert adapter.supports_tools is False


def test_unknown_provider_and_missing_key() -> None:
    config = Config()
    registry = config.registry()
    assert registry.get("anthropic") is None
    assert registry.status("anthropic") == (False, "unknown provider 'anthropic'")
    assert registry.get("deepseek") is None
    routable, reason = registry.status("deepseek")
    assert not routable and reason is not None and "API key" in reason
    config.keys["deepseek"] = "sk-deep-secret"
    adapter = registry.get("deepseek")
    assert isinstance(adapter, OpenAICompatibleAdapter)
    assert adapter.provider == "deepseek" and adapter.base_url == "https://api.deepseek.com"
    assert "sk-deep-secret" not in repr(adapter) + repr(registry)


def test_openai_compatible_key_rule_depends_on_host() -> None:
    config = Config(provider="openai-compatible")
    registry = config.registry()
    routable, reason = registry.status("openai-compatible")
    assert not routable and reason is not None and "api.openai.com" in reason
    config.settings = LlmSettings(provider="openai-compatible", base_url="http://127.0.0.1:8080/v1")
    assert registry.status("openai-compatible") == (True, None)
    config.settings = LlmSettings(provider="openai-compatible", base_url="ftp://example.com")
    routable, reason = registry.status("openai-compatible")
    assert not routable and reason is not None and "http(s)" in reason


@pytest.mark.parametrize(
    ("url", "local"),
    [
        ("http://localhost:11434/v1", True),
        ("http://192.168.1.20:1234/v1", True),
        ("http://[::1]:8080/v1", True),
        ("http://gpu-box.local/v1", True),
        ("https://api.openai.com/v1", False),
        ("https://8.8.8.8/v1", False),
    ],
)
def test_is_local_url(url: str, local: bool) -> None:
    assert is_local_url(url) is local


async def test_cache_and_rebuild_on_change(scripted_llm: ScriptedLlmServer) -> None:
    config = Config(provider="openai-compatible", base_url=scripted_llm.base_url)
    registry = config.registry()
    first = registry.get("openai-compatible")
    assert isinstance(first, OpenAICompatibleAdapter) and registry.get("openai-compatible") is first
    scripted_llm.enqueue(Reply(text="from the registry"))
    message = Message(id="u", role="user", content=[TextBlock(text="hi")], source=MessageSource(kind="user"))
    chunks = [c async for c in first.stream(LlmRequest(model="m", messages=[message]))]
    assert "".join(c.text for c in chunks if c.type == "text-delta") == "from the registry"

    config.keys["openai-compatible"] = "sk-new"
    second = registry.get("openai-compatible")
    assert second is not first and isinstance(second, OpenAICompatibleAdapter) and second.has_key
    config.settings = LlmSettings(provider="openai-compatible", base_url=scripted_llm.base_url + "/")
    assert registry.get("openai-compatible") is second  # same URL after normalising
    config.settings = LlmSettings(provider="openai-compatible", base_url="http://127.0.0.1:9/v1")
    third = registry.get("openai-compatible")
    assert isinstance(third, OpenAICompatibleAdapter) and third.base_url == "http://127.0.0.1:9/v1"

    await registry.aclose()
    assert first._client is None and first._closing
    assert second._closing and third._closing
