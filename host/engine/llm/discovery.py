"""`llm.discoverModels`: ask a draft endpoint (not saved yet) which models it serves.

Nothing is stored. The draft key is used for this one request; without one, the stored key of
the named route is used only when the draft URL is that route's own (a typed URL never receives
a stored key). Every failure is one `model-discovery-failed` with the adapter's own words.
"""

from __future__ import annotations

from contract.llm import DiscoveredModelView, DiscoverModelsRequest
from contract.namespaces import LLM_DEEPSEEK, LLM_LOCAL, LLM_OPENAI_COMPATIBLE, DeepSeekSection
from host.engine.errors import ModelDiscoveryFailed
from host.engine.llm.base import LlmError
from host.engine.llm.local import MODEL_ID, MODEL_LABEL
from host.engine.llm.registry import AdapterRegistry, SecretFor
from host.engine.llm.routes import url_problem

PROTOCOL = "openai-completions"
FAMILIES = (LLM_LOCAL, LLM_DEEPSEEK, LLM_OPENAI_COMPATIBLE)


async def discover(
    registry: AdapterRegistry, secret: SecretFor, req: DiscoverModelsRequest
) -> list[DiscoveredModelView]:
    ns, draft_url = req.settings_ns, req.base_url

    def failed(message: str) -> ModelDiscoveryFailed:
        return ModelDiscoveryFailed(ns, draft_url, message)

    if ns not in FAMILIES:
        raise failed(f"no model discovery is registered for {ns!r}")
    if not req.provider and not draft_url:
        raise failed("give a provider or a base URL to ask")
    if req.api is not None and req.api != PROTOCOL:
        raise failed(f"the {req.api!r} protocol has no readable model listing (only {PROTOCOL!r})")
    if ns == LLM_LOCAL:
        return [DiscoveredModelView(id=MODEL_ID, name=MODEL_LABEL)]
    route = registry.route(req.provider) if req.provider else None
    if route is not None and route.settings_ns != ns:
        raise failed(f"{req.provider!r} is not configured by {ns}")
    configured = route.base_url if route is not None else None
    if configured is None and ns == LLM_DEEPSEEK:
        configured = DeepSeekSection().base_url
    base_url = (draft_url or configured or "").rstrip("/")
    if problem := url_problem(base_url):
        raise failed(problem)
    key = req.api_key
    if key is None and route is not None and base_url == (route.base_url or "").rstrip("/"):
        key = secret(route.key_ref)
    from host.engine.llm.openai_compat import OpenAICompatibleAdapter  # httpx: only when asked

    adapter = OpenAICompatibleAdapter(base_url, key, provider=req.provider or ns)
    try:
        return await adapter.list_models()
    except LlmError as exc:
        raise failed(str(exc)) from None
    finally:
        await adapter.aclose()
