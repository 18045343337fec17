"""The sections of `settings.json` the host exposes, one model per namespace.

`settings.describe` sends each model's JSON Schema; the web UI builds its forms from it. A
field marked `secret` (json_schema_extra `{"secret": true}`) is never sent back. API keys are
not settings at all: a section names a credential reference (`apiKeyEnv`), see
`contract/credentials.py`.
"""

from __future__ import annotations

import ipaddress
import re
from typing import Annotated, Literal
from urllib.parse import urlsplit

from pydantic import AfterValidator, Field, field_validator

from contract._base import WireModel
from contract.credentials import REF_PATTERN
from contract.permissions import PRESET_TEXT, PatternRule, PermissionPreset

LLM_LOCAL = "llm-local"
LLM_DEEPSEEK = "llm-deepseek"
LLM_OPENAI_COMPATIBLE = "llm-openai-compatible"
PERMISSION = "permission"
UI_ONBOARDING = "ui-onboarding"
UI_APPEARANCE = "ui-appearance"
AGENT_PRESETS = "agent-presets"
UNDO = "undo"
HOOKS = "hooks"
SESSIONS = "sessions"
WEB = "web"
LSP = "lsp"
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
    SESSIONS,
    UNDO,
    HOOKS,
    WEB,
    LSP,
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
    images: bool | None = Field(
        default=None, description="the model reads images (empty: guessed from its name)"
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
    rules: list[PatternRule] = Field(
        default_factory=list,
        max_length=500,
        title="Rules",
        description=(
            "Commands, web domains and MCP tools allowed or denied by pattern, everywhere or in one"
            " folder; a matching deny wins."
        ),
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
    """`hooks`: the opt-in hook files of other tools (docs/decisions.md, "Hook
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


class SessionsSection(WireModel):
    """`sessions`: how many sessions run turns at once, and whether finished or waiting sessions
    say so on the desktop (docs/decisions.md, "Parallel sessions and attention")."""

    max_running_turns: int = Field(
        default=4,
        ge=1,
        le=64,
        title="Sessions working at once",
        description="More sessions wait for a free slot and start by themselves when one frees.",
    )
    notifications: bool = Field(
        default=True,
        title="Desktop notifications",
        description="Tell me when a session I am not looking at needs me or finishes.",
    )


def _private_host(value: str) -> str:
    """A host name (`intranet.example`, `*.corp.example`) or an address range (`10.0.0.0/8`,
    `192.168.1.20`) web_fetch may reach although it is private (docs/threat-model.md)."""
    text = value.strip().lower()
    try:
        ipaddress.ip_network(text, strict=False)
        return text
    except ValueError:
        pass
    if not re.match(
        r"^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$", text
    ):
        raise ValueError("a host name (docs.internal, *.corp.example) or an address range (10.0.0.0/8)")
    return text


PrivateHost = Annotated[str, Field(min_length=1, max_length=255), AfterValidator(_private_host)]


class SearchProvider(WireModel):
    """Where web_search asks: a SearXNG instance (`url`, any address: the person chose it) or
    Brave's hosted search API, whose key is a credential (`apiKeyEnv`), never a setting."""

    kind: Literal["searxng", "brave"]
    url: BaseUrl | None = Field(
        default=None, description="SearXNG: the instance (http://127.0.0.1:8888); Brave: its API by default"
    )
    api_key_env: CredentialRefField | None = None

    @field_validator("url")
    @classmethod
    def _no_query(cls, v: str | None) -> str | None:
        return v.rstrip("/") if v is not None else v

    def problem(self) -> str | None:
        if self.kind == "searxng" and self.url is None:
            return "a SearXNG provider needs its url"
        if self.kind == "brave" and self.api_key_env is None:
            return "Brave search needs apiKeyEnv, the credential holding its key"
        return None


class WebSection(WireModel):
    """`web`: web_fetch's private-address exceptions and web_search's provider
    (docs/decisions.md, "Web fetch and private addresses")."""

    allowed_private_hosts: list[PrivateHost] = Field(
        default_factory=list,
        max_length=200,
        title="Private hosts web_fetch may reach",
        description=(
            "Host names or address ranges (10.0.0.0/8) on this machine or your network that web_fetch"
            " may fetch; approving a fetch never adds to this list."
        ),
    )
    search_provider: SearchProvider | None = Field(
        default=None,
        title="Search provider",
        description="Where web_search asks; without one the agent has no web_search.",
    )

    @field_validator("search_provider")
    @classmethod
    def _complete(cls, v: SearchProvider | None) -> SearchProvider | None:
        if v is not None and v.problem() is not None:
            raise ValueError(v.problem())
        return v


LSP_SERVERS = ("pylsp", "pyright", "typescript-language-server", "gopls", "rust-analyzer", "clangd")
"""The language servers the host knows how to start (docs/decisions.md, "Language servers")."""


class LspSection(WireModel):
    """`lsp`: the language servers a person turned off (the rest start when found on PATH)."""

    disabled: list[Literal[LSP_SERVERS]] = Field(  # type: ignore[valid-type]
        default_factory=list,
        max_length=len(LSP_SERVERS),
        title="Turned off",
        description="Language servers that never start, even when installed.",
    )


class DefaultModelSection(WireModel):
    """`agent-default-model`: the model new sessions start on (written by `session.selectModel`)."""

    provider: str = Field(default="local", min_length=1)
    model: str | None = Field(default=None, min_length=1)
    reasoning_effort: str | None = Field(default=None, min_length=1)


SECTIONS: dict[str, type[WireModel]] = {
    LLM_LOCAL: LocalSection,
    LLM_DEEPSEEK: DeepSeekSection,
    LLM_OPENAI_COMPATIBLE: OpenAICompatibleSection,
    PERMISSION: PermissionSection,
    UI_APPEARANCE: AppearanceSection,
    UI_ONBOARDING: OnboardingSection,
    AGENT_PRESETS: AgentPresetsSection,
    SESSIONS: SessionsSection,
    UNDO: UndoSection,
    HOOKS: HooksSection,
    WEB: WebSection,
    LSP: LspSection,
    AGENT_DEFAULT_MODEL: DefaultModelSection,
}
"""Every registered namespace's model, in registration order."""
