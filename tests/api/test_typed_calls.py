"""Typed method handles (contract/methods.py; docs/architecture.md, "Method map"): the answer of
`client.call(SESSION_LIST, ...)` is `RpcResponse[ListValue]` under mypy strict, in the in-process
and HTTP clients, and the calls work over both carriers."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from contract.methods import METHODS, SESSION_LIST, Method
from contract.sessions import ListRequest, ListValue
from tests.api import typed_calls
from tests.api.conftest import Host

ROOT = Path(__file__).resolve().parents[2]
TYPED = Path(typed_calls.__file__)


async def test_typed_calls_work_over_each_carrier(host: Host) -> None:
    client = host.client()
    session_id, listed = await typed_calls.create_and_list(client, str(host.workdir))
    assert session_id in listed
    instance, untyped = await typed_calls.describe_by_handle_and_by_key(client)
    assert instance and untyped.host_instance_id == instance


async def test_a_handle_not_in_the_map_is_refused(host: Host) -> None:
    stray = Method("session.list", ListRequest, ListValue, privileged=True)
    assert METHODS["session.list"] is SESSION_LIST and stray is not SESSION_LIST
    with pytest.raises(KeyError, match=r"unknown method 'session\.list'"):
        await host.client().call(stray)


def test_mypy_strict_types_the_answer_and_catches_a_wrong_one(tmp_path: Path) -> None:
    """One mypy run over the module above and a copy claiming the wrong value type: the first
    passes, the copy fails on exactly that line (so the check can fail)."""
    source = TYPED.read_text(encoding="utf-8")
    claim = "assert_type(listed, RpcResponse[ListValue])"
    assert claim in source
    wrong = tmp_path / "wrong_calls.py"
    wrong.write_text(source.replace(claim, "assert_type(listed, RpcResponse[CreateValue])"), encoding="utf-8")
    line = next(
        n
        for n, text in enumerate(wrong.read_text().splitlines(), 1)
        if "RpcResponse[CreateValue])" in text and "listed" in text
    )
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "cache"), str(TYPED), str(wrong)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    errors = [x for x in run.stdout.splitlines() if ": error:" in x]
    assert len(errors) == 1, run.stdout + run.stderr
    assert errors[0].startswith(f"{wrong}:{line}:") and "RpcResponse[ListValue]" in errors[0], errors
