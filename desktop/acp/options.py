"""Session modes and config options: the permission presets and the model, in ACP's shapes.

Modes are the session's permission presets (the `permissions` projection lists them); the config
options offer the same choice as `mode` plus a `model` select from `session.models`. Both are
sent, as ACP asks while clients move from modes to config options.
"""

from __future__ import annotations

from typing import Any

import acp
from acp.schema import SessionConfigOptionSelect, SessionConfigSelectOption, SessionMode, SessionModeState

from contract.permissions import PRESET_TEXT


def model_value(provider: str, model: str) -> str:
    """One select value for a route and model: route keys never hold `:` (`[a-z0-9-]+`)."""
    return f"{provider}:{model}"


def parse_model_value(value: str) -> tuple[str, str]:
    provider, _, model = value.partition(":")
    return provider, model


def _presets(permissions: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
    options = permissions.get("options") or [
        {"value": key, "name": name, "description": text} for key, (name, text) in PRESET_TEXT.items()
    ]
    current = permissions.get("currentValue") or options[0]["value"]
    return options, str(current)


def mode_state(permissions: dict[str, Any]) -> SessionModeState:
    options, current = _presets(permissions)
    modes = [SessionMode(id=o["value"], name=o["name"], description=o.get("description")) for o in options]
    return SessionModeState(current_mode_id=current, available_modes=modes)


def config_options(permissions: dict[str, Any], catalogue: Any) -> list[Any]:
    options, current = _presets(permissions)
    mode = SessionConfigOptionSelect(
        type="select",
        id="mode",
        name="Permissions",
        category="mode",
        current_value=current,
        options=[
            SessionConfigSelectOption(value=o["value"], name=o["name"], description=o.get("description"))
            for o in options
        ],
    )
    out: list[Any] = [mode]
    if catalogue is not None:
        chosen = model_value(catalogue.current.provider, catalogue.current.model)
        models = [
            SessionConfigSelectOption(value=model_value(g.id, m.id), name=f"{g.name}: {m.name}")
            for g in catalogue.groups
            for m in g.models
        ]
        if chosen not in {m.value for m in models}:
            models.insert(0, SessionConfigSelectOption(value=chosen, name=catalogue.current.model))
        out.append(
            SessionConfigOptionSelect(
                type="select",
                id="model",
                name="Model",
                category="model",
                current_value=chosen,
                options=models,
            )
        )
    return out


def editor_servers(specs: Any) -> dict[str, dict[str, Any]]:
    """MCP servers an editor passed (`McpServerStdio`, `HttpMcpServer`) in the `.mcp.json`
    entry shape the host reads; an SSE server is refused (not advertised)."""
    out: dict[str, dict[str, Any]] = {}
    for spec in specs or []:
        kind = getattr(spec, "type", None)
        if kind == "http":
            headers = {h.name: h.value for h in spec.headers or []}
            out[spec.name] = {"type": "http", "url": spec.url, "headers": headers}
        elif kind == "sse":
            raise acp.RequestError.invalid_params({"detail": f"MCP server {spec.name}: SSE is not supported"})
        else:
            env = {e.name: e.value for e in spec.env or []}
            out[spec.name] = {"command": spec.command, "args": list(spec.args or []), "env": env}
    return out
