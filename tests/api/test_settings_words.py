"""Settings in the person's words (issue 31, item 8): a refused section says where each reason
is (`issues`, which the UI names "Endpoint 1 · Base URL"), and `credentials.move` lets an
endpoint's key slot follow its new name without the key ever travelling."""

from __future__ import annotations

import json

import pytest

from contract.methods import CREDENTIALS_DESCRIBE, CREDENTIALS_MOVE, CREDENTIALS_SET, SETTINGS_MUTATE
from tests.api.conftest import Host
from tests.api.support import err, ok


async def test_a_refused_section_locates_each_reason(host: Host) -> None:
    client = host.client()
    profile = {"id": "box", "name": "Box", "baseURL": "ftp://nowhere"}
    refused = await err(
        client,
        SETTINGS_MUTATE,
        {"ns": "llm-openai-compatible", "ops": [{"op": "set", "path": ["profiles", "0"], "value": profile}]},
        "settings-rejected",
    )
    assert refused.details["ns"] == "llm-openai-compatible"
    issues = refused.details["issues"]
    assert [i["loc"] for i in issues] == [["profiles", "0", "baseURL"]]
    assert issues[0]["msg"] and "ftp://nowhere" not in json.dumps(issues)  # never the input
    assert (
        not (host.data_dir / "settings.json").exists()
        or "ftp://" not in (host.data_dir / "settings.json").read_text()
    )


async def test_a_key_moves_to_its_new_slot_in_one_write(host: Host, monkeypatch: pytest.MonkeyPatch) -> None:
    secret = "sk-moving-key-0123456789"
    monkeypatch.setenv("HD_ENV_SLOT", "sk-from-env")
    client = host.client()
    await ok(client, CREDENTIALS_SET, {"ref": "MY_ENDPOINT_API_KEY", "value": secret})
    await ok(client, CREDENTIALS_MOVE, {"ref": "MY_ENDPOINT_API_KEY", "to": "SCRIPTED_BOX_API_KEY"})
    stored = json.loads((host.data_dir / "credentials.json").read_text())["credentials"]
    assert stored == {"SCRIPTED_BOX_API_KEY": secret}  # nothing left under the old name
    views = (
        await ok(client, CREDENTIALS_DESCRIBE, {"refs": ["MY_ENDPOINT_API_KEY", "SCRIPTED_BOX_API_KEY"]})
    ).credentials
    assert not views["MY_ENDPOINT_API_KEY"].configured and views["SCRIPTED_BOX_API_KEY"].configured

    # nothing stored under the old name: nothing to do; an occupied or shadowed slot: refused
    await ok(client, CREDENTIALS_MOVE, {"ref": "NEVER_SET", "to": "ALSO_NEVER"})
    await ok(client, CREDENTIALS_SET, {"ref": "OTHER_API_KEY", "value": "sk-other-key-42"})
    taken = await err(
        client,
        CREDENTIALS_MOVE,
        {"ref": "OTHER_API_KEY", "to": "SCRIPTED_BOX_API_KEY"},
        "credential-rejected",
    )
    assert "already holds" in taken.message
    await err(client, CREDENTIALS_MOVE, {"ref": "OTHER_API_KEY", "to": "HD_ENV_SLOT"}, "credential-rejected")
    await err(client, CREDENTIALS_MOVE, {"ref": "OTHER_API_KEY", "to": "not a ref"}, "bad-request")
    stored = json.loads((host.data_dir / "credentials.json").read_text())["credentials"]
    assert stored == {"SCRIPTED_BOX_API_KEY": secret, "OTHER_API_KEY": "sk-other-key-42"}
