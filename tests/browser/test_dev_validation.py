"""The web client checks every value against the contract when a test launcher asks for it
(docs/architecture.md, "Clients"): a value that does not fit is a console error and fails the
test that met it; the values the real host sends all fit."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page

from tests.browser.support import VALUE_MISMATCH, Contexts, new_session

pytestmark = pytest.mark.browser


def test_the_launcher_turns_validation_on_and_real_values_fit(page: Page, contexts: Contexts) -> None:
    new_session(page)
    checked = page.evaluate(
        """async () => {
            const {client} = window.harnessdesk;
            const results = await Promise.all([
                client.call("session.list", {}),
                client.call("host.describe", {}),
                client.call("workspace.list", {}),
                client.call("llm.providers", {}),
            ]);
            return {validate: client.validate, oks: results.map((r) => r.ok)};
        }"""
    )
    assert checked == {"validate": True, "oks": [True, True, True, True]}
    assert contexts.page_errors == []


def test_a_value_that_does_not_fit_is_loud_and_fails(page: Page, contexts: Contexts) -> None:
    # The real host's real answer to session.list, checked against another method's value
    # schema (host.describe's): the client must refuse it, as it would a host that drifted.
    result = page.evaluate(
        """async () => {
            const {client} = window.harnessdesk;
            const drifted = Object.create(client);
            const list = {...client.methods["session.list"], value: client.methods["host.describe"].value};
            drifted.methods = {...client.methods, "session.list": list};
            return await drifted.call("session.list", {});
        }"""
    )
    assert result["ok"] is False
    assert result["error"]["code"] == "transport"
    assert result["error"]["details"]["kind"] == "protocol"
    assert result["error"]["message"].startswith("session.list: " + VALUE_MISMATCH)
    # the console error reached the launcher, which fails the test at teardown ...
    caught = [e for e in contexts.page_errors if VALUE_MISMATCH in e]
    assert caught == [result["error"]["message"]]
    # ... this test expected it, so it takes it back
    contexts.page_errors.remove(caught[0])
