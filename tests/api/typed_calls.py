"""Calls through the method map's typed handles, checked by mypy strict and run for real in
tests/api/test_typed_calls.py: `client.call(SESSION_LIST, ...)` is `RpcResponse[ListValue]`."""

from __future__ import annotations

from typing import assert_type

from pydantic import BaseModel

from contract.host import DescribeValue
from contract.methods import HOST_DESCRIBE, METHODS, SESSION_CREATE, SESSION_LIST
from contract.rpc import RpcErr, RpcOk, RpcResponse
from contract.sessions import CreateRequest, CreateValue, ListRequest, ListValue
from host.fetch import AbstractApiClient, HttpApiClient, InProcessApiClient


async def create_and_list(client: AbstractApiClient, cwd: str) -> tuple[str, list[str]]:
    """A session made in `cwd`, and the ids `session.list` then shows."""
    created = await client.call(SESSION_CREATE, CreateRequest(cwd=cwd))
    assert_type(created, RpcResponse[CreateValue])
    assert isinstance(created.result, RpcOk), created.result
    assert_type(created.result.value, CreateValue)
    listed = await client.call(SESSION_LIST, ListRequest())
    assert_type(listed, RpcResponse[ListValue])
    if isinstance(listed.result, RpcErr):
        raise AssertionError(listed.result.error)
    value: ListValue = listed.result.value
    return created.result.value.session_id, [item.session_id for item in value.items]


async def describe_by_handle_and_through_the_map(client: AbstractApiClient) -> tuple[str, BaseModel]:
    """A mapping payload is accepted too; a handle looked up at run time (`METHODS[key]`) is any
    row, so its value is only a `BaseModel` statically (still validated as the row's model)."""
    typed = await client.call(HOST_DESCRIBE, {})
    assert_type(typed, RpcResponse[DescribeValue])
    untyped = await client.call(METHODS[HOST_DESCRIBE.key])
    assert_type(untyped, RpcResponse[BaseModel])
    assert isinstance(typed.result, RpcOk) and isinstance(untyped.result, RpcOk)
    return typed.result.value.host_instance_id, untyped.result.value


async def each_client_is_typed(inprocess: InProcessApiClient, http: HttpApiClient) -> None:
    assert_type(await inprocess.call(SESSION_LIST), RpcResponse[ListValue])
    assert_type(await http.call(SESSION_LIST, ListRequest()), RpcResponse[ListValue])
