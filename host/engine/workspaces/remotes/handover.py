"""What a remote server is handed at launch when it uses this computer's model settings
(docs/decisions.md, "Remote hosts"; docs/threat-model.md, "Remote hosts").

The model settings (DeepSeek's, the OpenAI-compatible endpoints', the default model), the keys
they name, and this run's `--provider/--base-url/--model`. They travel on the SSH channel into
the server's stdin and stay in its memory: never written on the remote, never sent to another
host. The built-in model is not handed over (it runs on this computer only).
"""

from __future__ import annotations

from typing import Any

from contract.namespaces import AGENT_DEFAULT_MODEL, LLM_DEEPSEEK, LLM_OPENAI_COMPATIBLE
from host.engine.llm.routes import CLI_KEY_REF, CLI_ROUTE
from host.engine.settings.configuration import ConfigPlane
from host.engine.settings.sections import dump

HANDED = (LLM_DEEPSEEK, LLM_OPENAI_COMPATIBLE, AGENT_DEFAULT_MODEL)
VERSION = 1


def _refs(value: Any) -> set[str]:
    """Every credential reference (`apiKeyEnv`) a section names."""
    if isinstance(value, dict):
        found = {v for k, v in value.items() if k == "apiKeyEnv" and isinstance(v, str) and v}
        for v in value.values():
            found |= _refs(v)
        return found
    if isinstance(value, list):
        return set().union(*(_refs(v) for v in value)) if value else set()
    return set()


def handover_of(plane: ConfigPlane) -> dict[str, Any]:
    settings = {ns: dump(plane.settings.section(ns)) for ns in HANDED}
    credentials: dict[str, str] = {}
    refs = _refs(settings) | ({CLI_KEY_REF} if plane.overrides.provider == CLI_ROUTE else set())
    for ref in sorted(refs):
        value = plane.credentials.value(ref)
        if value:
            credentials[ref] = value
    overrides = plane.overrides
    flags = {
        k: v
        for k, v in (
            ("provider", overrides.provider),
            ("baseUrl", overrides.base_url),
            ("model", overrides.model),
        )
        if v
    }
    return {"version": VERSION, "settings": settings, "credentials": credentials, "overrides": flags}
