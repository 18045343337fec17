"""`settings.*` and `credentials.*`: the configuration page. Secrets go in, never out.

Every write is announced on the host stream by the engine, so every open window converges.
"""

from __future__ import annotations

from contract import settings as st
from host.api.registry import implements
from host.engine.engine import Engine


@implements("settings.describe")
async def describe(engine: Engine, p: st.SettingsDescribeRequest) -> st.SettingsValue:
    return engine.settings()


@implements("settings.update")
async def update(engine: Engine, p: st.SettingsUpdateRequest) -> st.SettingsValue:
    return await engine.update_settings(p.values, p.unset, p.expected_revision)


@implements("credentials.describe")
async def describe_credentials(engine: Engine, p: st.CredentialsDescribeRequest) -> st.CredentialsValue:
    return st.CredentialsValue(items=engine.credentials())


@implements("credentials.set")
async def set_credential(engine: Engine, p: st.CredentialSetRequest) -> st.CredentialChanged:
    view = await engine.set_credential(p.ref, p.value)
    return st.CredentialChanged(ref=view.ref, configured=view.configured)


@implements("credentials.unset")
async def unset_credential(engine: Engine, p: st.CredentialUnsetRequest) -> st.CredentialChanged:
    view = await engine.unset_credential(p.ref)
    return st.CredentialChanged(ref=view.ref, configured=view.configured)
