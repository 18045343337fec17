"""`host.*`: what this host is (version, folders, default model, attached sessions), its folder
picker (native or browse) and open-path."""

from __future__ import annotations

from contract import host as h
from contract.host import DescribeRequest, DescribeValue
from contract.methods import (
    HOST_CREATE_DIRECTORY,
    HOST_DESCRIBE,
    HOST_FOCUS,
    HOST_LIST_DIRECTORY,
    HOST_OPEN_PATH,
    HOST_PICK_DIRECTORY,
)
from host.api.registry import implements
from host.engine.engine import Engine


@implements(HOST_DESCRIBE)
async def describe(engine: Engine, p: DescribeRequest) -> DescribeValue:
    return engine.host.describe()


@implements(HOST_PICK_DIRECTORY)
async def pick_directory(engine: Engine, p: h.PickDirectoryRequest) -> h.PickDirectoryValue:
    return h.PickDirectoryValue(path=await engine.workspaces.pick_directory(p.file))


@implements(HOST_LIST_DIRECTORY)
async def list_directory(engine: Engine, p: h.ListDirectoryRequest) -> h.DirectoryListing:
    return await engine.workspaces.list_directory(p.path, p.files)


@implements(HOST_CREATE_DIRECTORY)
async def create_directory(engine: Engine, p: h.CreateDirectoryRequest) -> h.DirectoryPath:
    return h.DirectoryPath(path=await engine.workspaces.create_directory(p.path, p.name))


@implements(HOST_OPEN_PATH)
async def open_path(engine: Engine, p: h.OpenPathRequest) -> h.OpenPathValue:
    await engine.workspaces.open_path(p.path, p.editor)
    return h.OpenPathValue()


@implements(HOST_FOCUS)
async def focus(engine: Engine, p: h.FocusRequest) -> h.FocusValue:
    return h.FocusValue(open=engine.host.focus(p.stream_id, p.session_ids))
