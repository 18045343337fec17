"""The route directory and the adapter registry: routes from settings, the command line's run-only
layer, activity (URL and key), caching and rebuilding when a route's settings or key change."""

from __future__ import annotations

from pathlib import Path

import pytest

from contract.content import Message, MessageSource, TextBlock
from contract.namespaces import DeepSeekSection, LocalSection, OpenAICompatibleSection
from host.engine.llm import AdapterRegistry, LlmRequest, LocalModelAdapter, OpenAICompatibleAdapter
from host.engine.llm.deepseek import DEEPSEEK_BASE
from host.engine.llm.overrides import RuntimeOverrides
from host.engine.llm.routes import Route, build_routes, is_local_url
from tests.support.scripted_llm import Reply, ScriptedLlmServer


class Settings:
    """The three LLM sections and the keys, read through the callbacks the registry takes."""

    def __init__(self, profiles: list[dict[str, object]] | None = None, **flags: str) -> None:
        self.deepseek = DeepSeekSection.model_validate(DEEPSEEK_BASE, by_alias=True)
        self.endpoints = OpenAICompatibleSection.model_validate({"profiles": profiles or []}, by_alias=True)
        self.flags = RuntimeOverrides(**flags)
        self.keys: dict[str, str] = {}

    def routes(self) -> list[Route]:
        return build_routes(LocalSection(), self.deepseek, self.endpoints, self.flags)

    def registry(self) -> AdapterRegistry:
        return AdapterRegistry(
            self.routes, lambda ref: self.keys.get(ref or ""), adapter_options={"retry_base_delay": 0.01}
        )


def profile(pid: str, url: str, **extra: object) -> dict[str, object]:
    return {"id": pid, "name": pid.title(), "baseURL": url, **extra}


def test_routes_in_declaration_order_with_paths() -> None:
    settings = Settings(
        [profile("ollama", "http://127.0.0.1:11434/v1"), profile("work", "https://llm.example/v1")]
    )
    registry = settings.registry()
    views = registry.views()
    assert [(v.provider, v.settings_ns, v.settings_path, v.declared) for v in views] == [
        ("local", "llm-local", [], False),
        ("deepseek", "llm-deepseek", [], False),
        ("ollama", "llm-openai-compatible", ["profiles", "0"], True),
        ("work", "llm-openai-compatible", ["profiles", "1"], True),
    ]
    assert registry.default_model("local") == "smollm2-135m-instruct"
    assert registry.default_model("deepseek") == "deepseek-chat"
    assert registry.default_model("ollama") == "gpt-4o-mini"  # nothing configured yet
    assert registry.default_model("nope") is None
    route = registry.route("deepseek")
    assert route is not None and route.efforts("deepseek-reasoner") == ("high", "max")
    assert route.efforts("deepseek-chat") == () and route.efforts("unlisted") == ()


def test_command_line_route_is_run_only_and_last() -> None:
    settings = Settings(
        [profile("ollama", "http://127.0.0.1:11434/v1")],
        provider="openai-compatible",
        base_url="http://127.0.0.1:9/v1/",
    )
    views = settings.registry().views()
    assert [(v.provider, v.settings_ns, v.settings_path, v.declared) for v in views][-1] == (
        "openai-compatible",
        "",
        [],
        None,
    )
    route = settings.registry().route("openai-compatible")
    assert (
        route is not None
        and route.base_url == "http://127.0.0.1:9/v1"
        and route.key_ref == "HARNESSDESK_API_KEY"
    )
    # a profile named like the flag's provider takes the flag's URL for this run instead
    settings = Settings(
        [profile("ollama", "http://127.0.0.1:11434/v1")], provider="ollama", base_url="http://10.0.0.2:1/v1"
    )
    assert [v.provider for v in settings.registry().views()] == ["local", "deepseek", "ollama"]
    assert settings.registry().route("ollama").base_url == "http://10.0.0.2:1/v1"  # type: ignore[union-attr]


def test_local_is_routable_without_configuration() -> None:
    registry = Settings().registry()
    assert registry.status("local") == (True, None)
    adapter = registry.get("local")
    assert isinstance(adapter, LocalModelAdapter) and registry.get("local") is adapter
    assert adapter.supports_tools is False


def test_unknown_route_and_missing_key() -> None:
    settings = Settings()
    registry = settings.registry()
    assert registry.get("anthropic") is None
    assert registry.status("anthropic") == (False, "unknown provider 'anthropic'")
    assert registry.get("deepseek") is None
    active, reason = registry.status("deepseek")
    assert not active and reason == "DeepSeek needs an API key (DEEPSEEK_API_KEY)"
    view = next(v for v in registry.views() if v.provider == "deepseek")
    assert view.active is False and view.problem == reason
    settings.keys["DEEPSEEK_API_KEY"] = "sk-deep-secret"
    adapter = registry.get("deepseek")
    assert isinstance(adapter, OpenAICompatibleAdapter)
    assert adapter.provider == "deepseek" and adapter.base_url == "https://api.deepseek.com"
    assert "sk-deep-secret" not in repr(adapter) + repr(registry)


def test_profile_key_rule_depends_on_host() -> None:
    remote = profile("cloud", "https://llm.example/v1", apiKeyEnv="CLOUD_API_KEY")
    local = profile("lan", "http://192.168.1.5:8000/v1", apiKeyEnv="LAN_API_KEY")
    keyless = profile("open", "https://free.example/v1")
    registry = Settings([remote, local, keyless]).registry()
    assert registry.status("cloud") == (False, "Cloud needs an API key (CLOUD_API_KEY)")
    assert registry.status("lan") == (True, None)  # a local server with no key gets none
    assert registry.status("open") == (True, None)  # no key named: none sent


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


async def test_cache_and_rebuild_on_change(scripted_llm: ScriptedLlmServer, tmp_path: Path) -> None:
    settings = Settings([profile("box", scripted_llm.base_url, apiKeyEnv="BOX_KEY")])
    registry = settings.registry()
    first = registry.get("box")
    assert isinstance(first, OpenAICompatibleAdapter) and registry.get("box") is first
    scripted_llm.enqueue(Reply(text="from the registry"))
    message = Message(id="u", role="user", content=[TextBlock(text="hi")], source=MessageSource(kind="user"))
    chunks = [c async for c in first.stream(LlmRequest(model="m", messages=[message]))]
    assert "".join(c.text for c in chunks if c.type == "text-delta") == "from the registry"

    settings.keys["BOX_KEY"] = "sk-new"
    second = registry.get("box")
    assert second is not first and isinstance(second, OpenAICompatibleAdapter) and second.has_key
    settings.endpoints = OpenAICompatibleSection.model_validate(
        {"profiles": [profile("box", scripted_llm.base_url + "/", apiKeyEnv="BOX_KEY")]}, by_alias=True
    )
    assert registry.get("box") is second  # same URL after normalising
    settings.endpoints = OpenAICompatibleSection.model_validate(
        {"profiles": [profile("box", "http://127.0.0.1:9/v1", apiKeyEnv="BOX_KEY")]}, by_alias=True
    )
    third = registry.get("box")
    assert isinstance(third, OpenAICompatibleAdapter) and third.base_url == "http://127.0.0.1:9/v1"

    await registry.aclose()
    assert first._client is None and first._closing
    assert second._closing and third._closing
