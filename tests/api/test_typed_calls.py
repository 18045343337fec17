"""Typed method handles (contract/methods.py; docs/architecture.md, "Method map"): the answer of
`client.call(SESSION_LIST, ...)` is `RpcResponse[ListValue]` under mypy strict, in the in-process
and HTTP clients, and the calls work over both carriers; `@implements(HOST_DESCRIBE)` takes only
a handler of that method's request and value types."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from contract.host import DescribeValue
from contract.methods import METHODS, SESSION_LIST, Method
from contract.sessions import ListRequest, ListValue
from tests.api import typed_calls, typed_handlers
from tests.api.conftest import Host

ROOT = Path(__file__).resolve().parents[2]
TYPED = Path(typed_calls.__file__)
HANDLERS = Path(typed_handlers.__file__)


async def test_typed_calls_work_over_each_carrier(host: Host) -> None:
    client = host.client()
    session_id, listed = await typed_calls.create_and_list(client, str(host.workdir))
    assert session_id in listed
    instance, untyped = await typed_calls.describe_by_handle_and_through_the_map(client)
    assert instance and isinstance(untyped, DescribeValue) and untyped.host_instance_id == instance


async def test_a_handle_not_in_the_map_is_refused(host: Host) -> None:
    stray = Method("session.list", ListRequest, ListValue, privileged=True)
    assert METHODS["session.list"] is SESSION_LIST and stray is not SESSION_LIST
    with pytest.raises(KeyError, match=r"unknown method 'session\.list'"):
        await host.client().call(stray)


async def test_a_key_string_is_refused_with_a_type_error_naming_the_handle(host: Host) -> None:
    key: object = SESSION_LIST.key  # what an old caller passed: the key string, not the handle
    with pytest.raises(TypeError, match=r"method handle .*not 'session\.list'"):
        await host.client().call(key)  # type: ignore[arg-type]


def line_of(path: Path, needle: str) -> int:
    return next(n for n, text in enumerate(path.read_text().splitlines(), 1) if needle in text)


def test_mypy_strict_types_the_answer_and_catches_a_wrong_one(tmp_path: Path) -> None:
    """One mypy run over the modules above and copies with a wrong shape each: a call claiming
    the wrong value type, a handler taking the wrong request, one returning the wrong value. The
    originals pass; each copy fails on exactly its wrong line (so the check can fail)."""
    source = TYPED.read_text(encoding="utf-8")
    claim = "assert_type(listed, RpcResponse[ListValue])"
    assert claim in source
    wrong = tmp_path / "wrong_calls.py"
    wrong.write_text(source.replace(claim, "assert_type(listed, RpcResponse[CreateValue])"), encoding="utf-8")
    handlers = HANDLERS.read_text(encoding="utf-8")
    right_request = "async def describe(engine: Engine, p: DescribeRequest) -> DescribeValue:"
    right_value = "p: DescribeRequest, rpc_id: str) -> DescribeValue:"
    assert right_request in handlers and right_value in handlers
    wrong_handlers = tmp_path / "wrong_handlers.py"
    wrong_handlers.write_text(
        handlers.replace(right_request, right_request.replace("p: DescribeRequest", "p: SettingsRequest"))
        .replace(right_value, right_value.replace("-> DescribeValue", "-> SettingsValue"))
        .replace(
            "from contract.methods",
            "from contract.settings import SettingsDescribeRequest as SettingsRequest\n"
            "from contract.settings import SettingsDescribeValue as SettingsValue\n"
            "from contract.methods",
        ),
        encoding="utf-8",
    )
    expected = {
        (str(wrong), line_of(wrong, "assert_type(listed, RpcResponse[CreateValue])")),
        (str(wrong_handlers), line_of(wrong_handlers, "p: SettingsRequest") - 1),
        (str(wrong_handlers), line_of(wrong_handlers, "-> SettingsValue") - 1),
    }
    cache = tmp_path / "cache"
    if (ROOT / ".mypy_cache").is_dir():  # what ./scripts/test.sh's own mypy run just wrote
        # A copy (this run writes only its own): mypy re-checks any module whose source changed
        # since, and reads the rest instead of checking the whole project again from nothing
        # (docs/decisions/what-a-test-run-repeats.md).
        shutil.copytree(ROOT / ".mypy_cache", cache, ignore=shutil.ignore_patterns("*.tmp"))
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(cache)]
        + [str(p) for p in (TYPED, wrong, HANDLERS, wrong_handlers)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    errors = [x for x in run.stdout.splitlines() if ": error:" in x]
    found = {(e.split(":")[0], int(e.split(":")[1])) for e in errors}
    assert found == expected and len(errors) == 3, run.stdout + run.stderr
    assert "RpcResponse[ListValue]" in next(e for e in errors if e.startswith(str(wrong)))
    assert all("Registration" in e for e in errors if e.startswith(str(wrong_handlers))), errors
