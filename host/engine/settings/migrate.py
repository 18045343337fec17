"""First start after the upgrade: the version-1 `settings.json` / `credentials.json` become version 2.

Version 1 held one provider at a time (`{"revision", "llm": {provider, baseUrl, model,
reasoningEffort}}`) and keys by provider name (`{"deepseek": "sk-…"}`). The conversion
(docs/decisions.md, "Configuration"):
- the selection becomes `agent-default-model {provider, model, reasoningEffort}`;
- a DeepSeek base URL becomes `llm-deepseek.baseURL`;
- an OpenAI-compatible base URL becomes the endpoint profile `openai-compatible` (its route key
  is the old provider name, so sessions logged with it keep routing), with the old model listed;
- keys move to references: `deepseek` → `DEEPSEEK_API_KEY`, `openai-compatible` →
  `OPENAI_COMPATIBLE_API_KEY` (which the migrated profile names).
The old settings file is kept as `settings.v1.json` (it holds no secret); the old credentials file
is rewritten in place (a second copy of a key is a second place to leak it).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from contract.namespaces import AGENT_DEFAULT_MODEL, LLM_DEEPSEEK, LLM_OPENAI_COMPATIBLE
from host.engine.settings.files import (
    CREDENTIALS_FILE,
    SETTINGS_FILE,
    FileProblem,
    credentials_document,
    read_json,
    settings_document,
    write_private,
)

log = logging.getLogger(__name__)

V1_PROFILE_ID = "openai-compatible"
V1_PROFILE_NAME = "OpenAI-compatible server"
V1_OPENAI_URL = "https://api.openai.com/v1"
V1_REFS = {"deepseek": "DEEPSEEK_API_KEY", "openai-compatible": "OPENAI_COMPATIBLE_API_KEY"}


def is_v1_settings(data: dict[str, Any] | None) -> bool:
    return data is not None and "namespaces" not in data and isinstance(data.get("llm"), dict)


def is_v1_credentials(data: dict[str, Any] | None) -> bool:
    return data is not None and "credentials" not in data and any(k in V1_REFS for k in data)


def convert_settings(llm: dict[str, Any], keyed: set[str]) -> dict[str, dict[str, Any]]:
    """Version-1 `llm` (+ which v1 providers had a stored key) → version-2 sections."""
    provider = str(llm.get("provider") or "local")
    base_url, model, effort = llm.get("baseUrl"), llm.get("model"), llm.get("reasoningEffort")
    sections: dict[str, dict[str, Any]] = {}
    selection: dict[str, Any] = {"provider": provider}
    if isinstance(model, str) and model:
        selection["model"] = model
    if isinstance(effort, str) and effort:
        selection["reasoningEffort"] = effort
    if provider != "local" or len(selection) > 1:
        sections[AGENT_DEFAULT_MODEL] = selection
    if provider == "deepseek" and isinstance(base_url, str) and base_url:
        sections[LLM_DEEPSEEK] = {"baseURL": base_url}
    if provider == "openai-compatible" or "openai-compatible" in keyed:
        profile: dict[str, Any] = {
            "id": V1_PROFILE_ID,
            "name": V1_PROFILE_NAME,
            "baseURL": base_url if provider == "openai-compatible" and base_url else V1_OPENAI_URL,
        }
        if "openai-compatible" in keyed:
            profile["apiKeyEnv"] = V1_REFS["openai-compatible"]
        if provider == "openai-compatible" and isinstance(model, str) and model:
            profile["models"] = [{"id": model}]
        sections[LLM_OPENAI_COMPATIBLE] = {"profiles": [profile]}
    return sections


def convert_credentials(data: dict[str, Any]) -> dict[str, str]:
    return {V1_REFS[k]: v for k, v in data.items() if k in V1_REFS and isinstance(v, str) and v}


def migrate(data_dir: Path) -> bool:
    """Convert version-1 files in `data_dir` (once; a no-op afterwards). True when it did."""
    settings_path, creds_path = data_dir / SETTINGS_FILE, data_dir / CREDENTIALS_FILE
    try:
        settings = read_json(settings_path)
        creds = read_json(creds_path)
    except FileProblem as exc:
        log.warning("not migrating the configuration: %s", exc)
        return False
    old_settings, old_creds = is_v1_settings(settings), is_v1_credentials(creds)
    if not old_settings and not old_creds:
        return False
    keyed = {k for k in (creds or {}) if k in V1_REFS} if old_creds else set()
    if old_creds:
        write_private(creds_path, credentials_document(convert_credentials(creds or {})))
    if old_settings:
        assert settings is not None
        backup = data_dir / "settings.v1.json"
        if not backup.exists():
            write_private(backup, settings)
        write_private(settings_path, settings_document(convert_settings(settings["llm"], keyed)))
    log.info("converted the version-1 configuration in %s", data_dir)
    return True
