"""The one way methods are implemented and failures answered (host/api/registry.py)."""

from __future__ import annotations

import asyncio
from typing import Any, cast

import pytest

from contract import sessions as s
from contract.errors import ERROR_DETAILS, BusinessError, ItemDetails, SessionDetails
from contract.host import DescribeRequest, DescribeValue
from contract.methods import HOST_DESCRIBE, METHODS, SESSION_LIST, Method
from contract.rpc import RpcErr, RpcOk, RpcRequest
from host.api.proxy import DOMAIN_MODULES, HostApiProxy
from host.api.registry import HANDLERS, bind, implements
from host.engine import errors
from host.engine.engine import Engine

CARRIER_CODES = {"bad-request", "cancelled"}
"""Only the carrier answers these. `internal` comes from the carrier too, and from the one host
exception for a failed action on this machine (`HostActionFailed`, e.g. opening settings.json)."""


def test_every_method_of_the_map_has_exactly_one_implementation() -> None:
    assert DOMAIN_MODULES
    assert sorted(HANDLERS) == sorted(METHODS)


def test_the_proxy_resolves_every_method_where_the_carrier_looks() -> None:
    api = HostApiProxy(cast(Engine, object()))
    for method in METHODS.values():
        assert callable(getattr(getattr(api, method.domain), method.attr)), method.key
    with pytest.raises(AttributeError):
        _ = api.nope


def subclasses(cls: type[BusinessError[Any]]) -> list[type[BusinessError[Any]]]:
    out: list[type[BusinessError[Any]]] = []
    for sub in cls.__subclasses__():
        out += [sub, *subclasses(sub)]
    return out


def test_every_business_code_has_exactly_one_exception() -> None:
    ours = [c for c in subclasses(BusinessError) if c.__module__.startswith(("host.", "contract."))]
    concrete = [c for c in ours if "code" in c.__dict__]
    codes = [c.code for c in concrete]
    assert len(codes) == len(set(codes)), codes
    # `internal` is also the one carrier code the host raises on purpose: a failure it can only
    # describe in words (the OS opener, a session folder it cannot create; HostActionFailed)
    assert set(codes) == (set(ERROR_DETAILS) - CARRIER_CODES) | {"internal"}


def test_an_exception_must_carry_its_codes_details_shape() -> None:
    exc = errors.SessionNotFound("s-1")
    assert exc.details() == {"sessionId": "s-1"} and exc.rpc_error().code == "session-not-found"
    with pytest.raises(TypeError, match="carries SessionDetails, not ItemDetails"):
        BusinessError.__init__(exc, "wrong shape", ItemDetails(item_id="i"))  # type: ignore[misc]
    with pytest.raises(TypeError, match="not an error code"):

        class Unknown(BusinessError[SessionDetails]):
            code = "no-such-code"


def test_registration_refuses_wrong_models_signatures_and_duplicates() -> None:
    async def wrong_models(engine: Engine, p: s.ListRequest) -> DescribeValue:
        raise AssertionError

    async def wrong_params(engine: Engine, payload: DescribeRequest) -> DescribeValue:
        raise AssertionError

    async def right(engine: Engine, p: DescribeRequest) -> DescribeValue:
        raise AssertionError

    # the first two fail mypy too (tests/api/test_typed_calls.py proves it); here the import-time
    # check is what is tested, for a caller that slips past the type checker
    refusals: dict[Any, str] = {
        wrong_models: "must take",
        wrong_params: "must take",
        right: "implemented twice",
    }
    for fn, why in refusals.items():
        with pytest.raises(TypeError, match=why):
            implements(HOST_DESCRIBE)(fn)
    with pytest.raises(KeyError, match="not a handle of the method map"):
        implements(Method("host.describe", DescribeRequest, DescribeValue))
    assert HANDLERS[HOST_DESCRIBE.key] is not right


async def call(monkeypatch: pytest.MonkeyPatch, raised: BaseException) -> Any:
    async def failing(engine: Engine, p: DescribeRequest) -> DescribeValue:
        raise raised

    monkeypatch.setitem(HANDLERS, HOST_DESCRIBE.key, failing)
    impl = bind(cast(Engine, object()), HOST_DESCRIBE.key)
    return await impl(RpcRequest[Any](rpc_id="r-9", payload=DescribeRequest()))


async def test_a_business_error_is_answered_with_its_typed_error(monkeypatch: pytest.MonkeyPatch) -> None:
    response = await call(monkeypatch, errors.QueueItemNotFound("q-1", "already claimed"))
    assert response.rpc_id == "r-9" and isinstance(response.result, RpcErr)
    error = response.result.error.dump()
    expected = {"code": "queue-item-not-found", "message": "already claimed", "details": {"itemId": "q-1"}}
    assert error == expected


async def test_cancellation_and_host_bugs_propagate(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(asyncio.CancelledError):
        await call(monkeypatch, asyncio.CancelledError())
    with pytest.raises(KeyError):
        await call(monkeypatch, KeyError("a host bug"))


async def test_a_value_is_answered_ok_and_the_rpc_id_reaches_who_asks_for_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[str] = []

    async def listing(engine: Engine, p: s.ListRequest, rpc_id: str) -> s.ListValue:
        seen.append(rpc_id)
        return s.ListValue(items=[])

    monkeypatch.setitem(HANDLERS, SESSION_LIST.key, listing)
    impl = bind(cast(Engine, object()), SESSION_LIST.key)
    response = await impl(RpcRequest[Any](rpc_id="r-7", payload=s.ListRequest()))
    assert isinstance(response.result, RpcOk) and response.result.value == s.ListValue(items=[])
    assert seen == ["r-7"]
