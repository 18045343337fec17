"""`settings.*` and `credentials.*`: the configuration page's protocol (docs/decisions.md,
"Settings and credentials").

Secrets travel one way only: inside `credentials.set`. No response ever carries a secret.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, HttpUrl

from contract._base import WireModel

ProviderName = Literal["local", "openai-compatible", "deepseek"]


class LlmSettings(WireModel):
    provider: ProviderName = "local"
    base_url: str | None = None
    model: str | None = None
    reasoning_effort: str | None = None


class SettingsDescribeRequest(WireModel):
    pass


class ProviderInfo(WireModel):
    provider: ProviderName
    label: str
    needs_key: bool
    default_base_url: str | None = None
    default_model: str


class SettingsValue(WireModel):
    values: LlmSettings
    user: list[str] = Field(description="fields the user layer overrides")
    revision: int = Field(ge=0)
    providers: list[ProviderInfo]


class SettingsPatch(WireModel):
    provider: ProviderName | None = None
    base_url: HttpUrl | None = None
    model: str | None = Field(default=None, min_length=1, max_length=200)
    reasoning_effort: str | None = None


class SettingsUpdateRequest(WireModel):
    values: SettingsPatch
    unset: list[Literal["provider", "baseUrl", "model", "reasoningEffort"]] = []
    expected_revision: int | None = Field(default=None, ge=0)


class CredentialsDescribeRequest(WireModel):
    pass


class CredentialView(WireModel):
    ref: str
    configured: bool
    source: Literal["file", "env", "none"]
    writable: bool


class CredentialsValue(WireModel):
    items: list[CredentialView]


class CredentialSetRequest(WireModel):
    ref: ProviderName
    value: str = Field(min_length=1, max_length=4096, repr=False)


class CredentialUnsetRequest(WireModel):
    ref: ProviderName


class CredentialChanged(WireModel):
    ref: str
    configured: bool
