"""The sections of `settings.json` the host exposes, one model per namespace.

`settings.describe` sends each model's JSON Schema; the web UI builds its forms from it. A
field marked `secret` (json_schema_extra `{"secret": true}`) is never sent back. API keys are
not settings at all: a section names a credential reference (`apiKeyEnv`), see
`contract/credentials.py`.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal
from urllib.parse import urlsplit

from pydantic import AfterValidator, Field, field_validator

from contract._base import WireModel
from contract.credentials import REF_PATTERN
from contract.permissions import PRESET_TEXT, PermissionPreset

LLM_LOCAL = "llm-local"
LLM_DEEPSEEK = "llm-deepseek"
LLM_OPENAI_COMPATIBLE = "llm-openai-compatible"
PERMISSION = "permission"
UI_ONBOARDING = "ui-onboarding"
UI_APPEARANCE = "ui-appearance"
AGENT_PRESETS = "agent-presets"
UNDO = "undo"
HOOKS = "hooks"
AGENT_DEFAULT_MODEL = "agent-default-model"
"""Registered but not exposed: only `session.selectModel` writes it."""

EXPOSED = (
    LLM_LOCAL,
    LLM_DEEPSEEK,
    LLM_OPENAI_COMPATIBLE,
    PERMISSION,
    UI_APPEARANCE,
    UI_ONBOARDING,
    AGENT_PRESETS,
    UNDO,
    HOOKS,
)
"""The namespaces `settings.*` serves, in the order `settings.describe` lists them."""

PROFILE_ID = r"^[a-z0-9][a-z0-9-]*$"
RESERVED_ROUTES = frozenset({"local", "deepseek"})
"""Route keys of the shipped providers: an endpoint profile may not take one."""

CredentialRefField = Annotated[
    str,
    Field(
        pattern=REF_PATTERN,
        max_length=128,
        json_schema_extra={"role": "credential-ref"},
        description="the name of the credential (an environment variable) holding the API key",
    ),
]


def _http_url(value: str) -> str:
    parts = urlsplit(value.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError("must be an http(s) URL such as http://127.0.0.1:11434/v1")
    return value.strip()


BaseUrl = Annotated[str, Field(min_length=1, max_length=2000), AfterValidator(_http_url)]
TimeoutMs = Annotated[
    int,
    Field(
        ge=1000,
        le=3_600_000,
        description="a silent provider stream is retried, then fails the turn, after this long",
    ),
]


class ModelSpec(WireModel):
    """A model a route offers; `reasoningEfforts` lists the efforts it accepts ([] = none)."""

    id: str = Field(min_length=1, max_length=200)
    name: str | None = Field(default=None, min_length=1, max_length=200)
    description: str | None = Field(default=None, max_length=500)
    context_window: int | None = Field(default=None, gt=0)
    max_tokens: int | None = Field(default=None, gt=0)
    reasoning_efforts: list[Annotated[str, Field(min_length=1, max_length=40)]] = Field(
        default_factory=list, max_length=12
    )


def _unique_models(models: list[ModelSpec] | None) -> list[ModelSpec] | None:
    if models is not None:
        ids = [m.id for m in models]
        if len(ids) != len(set(ids)):
            raise ValueError("model ids must be unique")
    return models


class LocalSection(WireModel):
    """The built-in model (llama.cpp, in-process)."""

    threads: int | None = Field(default=None, ge=1, le=256, description="CPU threads (empty: all cores)")
    context_size: int = Field(default=8192, ge=512, le=131_072, description="context window in tokens")


class DeepSeekSection(WireModel):
    """DeepSeek's hosted API."""

    api_key_env: CredentialRefField = "DEEPSEEK_API_KEY"
    base_url: BaseUrl = Field(default="https://api.deepseek.com", alias="baseURL")
    models: list[ModelSpec] = Field(default_factory=list, max_length=200)
    reasoning_effort: str | None = Field(
        default=None, min_length=1, description="the effort used when a selection names none"
    )
    max_tokens: int | None = Field(default=None, gt=0, description="per-request output cap")
    stream_idle_timeout_ms: TimeoutMs = 60_000

    @field_validator("models")
    @classmethod
    def _unique(cls, v: list[ModelSpec]) -> list[ModelSpec]:
        _unique_models(v)
        return v


class EndpointProfile(WireModel):
    """One OpenAI-compatible endpoint (Ollama, LM Studio, vLLM, OpenAI …): its own route."""

    id: str = Field(min_length=1, max_length=60, pattern=PROFILE_ID, description="the route key")
    name: str = Field(min_length=1, max_length=100)
    base_url: BaseUrl = Field(alias="baseURL")
    api_key_env: CredentialRefField | None = None
    models: list[ModelSpec] | None = Field(
        default=None, max_length=500, description="absent: whatever the endpoint lists"
    )
    reasoning_effort: str | None = Field(default=None, min_length=1)
    max_tokens: int | None = Field(default=None, gt=0)
    stream_idle_timeout_ms: TimeoutMs = 60_000

    @field_validator("models")
    @classmethod
    def _unique(cls, v: list[ModelSpec] | None) -> list[ModelSpec] | None:
        return _unique_models(v)

    @field_validator("id")
    @classmethod
    def _not_reserved(cls, v: str) -> str:
        if v in RESERVED_ROUTES:
            raise ValueError(f"the id {v!r} is taken by a built-in provider")
        return v


class OpenAICompatibleSection(WireModel):
    profiles: list[EndpointProfile] = Field(default_factory=list, max_length=50)

    @field_validator("profiles")
    @classmethod
    def _unique_ids(cls, v: list[EndpointProfile]) -> list[EndpointProfile]:
        ids = [p.id for p in v]
        if len(ids) != len(set(ids)):
            raise ValueError("profile ids must be unique")
        return v


class PermissionSection(WireModel):
    default_preset: PermissionPreset = Field(
        default="auto",
        title="Default for new sessions",
        description=(
            "Sessions created from now on start in this mode; a session keeps its own. Auto needs the"
            " sandbox: where there is none, a session in Auto asks like Ask."
        ),
        json_schema_extra={
            "oneOf": [{"const": k, "title": t, "description": d} for k, (t, d) in PRESET_TEXT.items()]
        },
    )


THEMES = {
    "system": ("System", "Follow the light or dark setting of this computer."),
    "light": ("Light", "Always light."),
    "dark": ("Dark", "Always dark."),
}


LANGUAGES = {
    "system": ("System", "The language of this computer (in a browser tab: the browser's)."),
    "zh-CN": ("简体中文", "Simplified Chinese."),
    "en": ("English", "English."),
}
"""The choices of `ui-appearance.language` (docs/decisions.md, "Languages")."""


class AppearanceSection(WireModel):
    """`ui-appearance`: how the window looks, which language it speaks (for every window of this
    host, and the command line's messages) and which editor opens a file from the Files pane."""

    theme: Literal["system", "light", "dark"] = Field(
        default="system",
        title="Theme",
        json_schema_extra={
            "oneOf": [{"const": k, "title": t, "description": d} for k, (t, d) in THEMES.items()]
        },
    )
    language: Literal["system", "zh-CN", "en"] = Field(
        default="system",
        title="Language",
        json_schema_extra={
            "oneOf": [{"const": k, "title": t, "description": d} for k, (t, d) in LANGUAGES.items()]
        },
    )
    editor: str = Field(
        default="",
        max_length=1000,
        title="Editor",
        description="The program, with its options, that opens a file from the Files pane (Open in"
        " editor); the file's path is added at the end. Empty: the system's default program.",
    )


class OnboardingSection(WireModel):
    welcome_notice_version: str | None = Field(default=None, max_length=100)


class AgentPresetsSection(WireModel):
    default: str = Field(
        default="standard",
        min_length=1,
        max_length=60,
        title="Default agent preset",
        description="The agent preset new sessions start with.",
    )


class HooksSection(WireModel):
    """`hooks`: the opt-in hook files of other tools (docs/decisions.md, "Hook rows and hook
    approval"). A project's files still run only in a trusted folder, once approved."""

    claude_code: bool = Field(
        default=False,
        title="Use Claude Code hooks",
        description="Also run the hooks in ~/.claude/settings.json and a project's .claude/settings.json.",
    )
    codex: bool = Field(
        default=False,
        title="Use Codex hooks",
        description="Also run the hooks in ~/.codex/hooks.json and a project's .codex/hooks.json.",
    )


class UndoSection(WireModel):
    """`undo`: how much disk the snapshots that make shell commands undoable may take."""

    workspace_budget_mb: int = Field(
        default=1024,
        ge=1,
        le=10_000_000,
        title="Space per folder (MiB)",
        description="The oldest turns of a folder stop being revertable when its snapshots pass this.",
    )
    total_budget_mb: int = Field(
        default=5120,
        ge=1,
        le=10_000_000,
        title="Space for all folders (MiB)",
        description="The oldest turns of any folder go first when all snapshots together pass this.",
    )
    max_file_mb: int = Field(
        default=10,
        ge=1,
        le=4096,
        title="Largest file kept (MiB)",
        description="A larger file is not kept, so a change to it cannot be reverted.",
    )


class DefaultModelSection(WireModel):
    """`agent-default-model`: the model new sessions start on (written by `session.selectModel`)."""

    provider: str = Field(default="local", min_length=1)
    model: str | None = Field(default=None, min_length=1)
    reasoning_effort: str | None = Field(default=None, min_length=1)


def profile_id_for(name: str, taken: set[str]) -> str:
    """A route key from a display name: `My Ollama` → `my-ollama` (suffixed when taken)."""
    base = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:50] or "endpoint"
    if not re.match(PROFILE_ID, base):
        base = f"p-{base}"
    candidate, n = base, 2
    while candidate in taken or candidate in RESERVED_ROUTES:
        candidate, n = f"{base}-{n}", n + 1
    return candidate


def default_ref_for(profile_id: str) -> str:
    """The credential reference a new profile's key is stored under: `OLLAMA_API_KEY`."""
    return re.sub(r"[^A-Z0-9]+", "_", profile_id.upper()).strip("_") + "_API_KEY"


SECTIONS: dict[str, type[WireModel]] = {
    LLM_LOCAL: LocalSection,
    LLM_DEEPSEEK: DeepSeekSection,
    LLM_OPENAI_COMPATIBLE: OpenAICompatibleSection,
    PERMISSION: PermissionSection,
    UI_APPEARANCE: AppearanceSection,
    UI_ONBOARDING: OnboardingSection,
    AGENT_PRESETS: AgentPresetsSection,
    UNDO: UndoSection,
    HOOKS: HooksSection,
    AGENT_DEFAULT_MODEL: DefaultModelSection,
}
"""Every registered namespace's model, in registration order."""
