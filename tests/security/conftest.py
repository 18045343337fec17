"""Fixtures for the red-team regression tests: the api suite's scripted LLM and real hosts.

Each test in this folder reproduces one finding of the security review (docs/threat-model.md)
against the real parts: a real SQLite file, the real CLI, a real uvicorn server on loopback.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.api.conftest import Host, open_test_host
from tests.support.scripted_llm import ScriptedLlmServer


@pytest.fixture(autouse=True)
def _no_env_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HARNESSDESK_API_KEY", raising=False)


@pytest.fixture
async def host(tmp_path: Path, llm: ScriptedLlmServer) -> AsyncIterator[Host]:
    """A fresh in-process host on its own data dir."""
    h = await open_test_host("inprocess", tmp_path, llm.base_url)
    try:
        yield h
    finally:
        await h.close()
