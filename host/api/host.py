"""`host.*`: what this host is (version, folders, default model, attached sessions), its folder
picker (native or browse) and open-path."""

from __future__ import annotations

from contract import host as h
from contract.host import DescribeRequest, DescribeValue
from host.api.registry import implements
from host.engine.engine import Engine


@implements("host.describe")
async def describe(engine: Engine, p: DescribeRequest) -> DescribeValue:
    return engine.host.describe()


@implements("host.pickDirectory")
async def pick_directory(engine: Engine, p: h.PickDirectoryRequest) -> h.PickDirectoryValue:
    return h.PickDirectoryValue(path=await engine.workspaces.pick_directory(p.file))


@implements("host.listDirectory")
async def list_directory(engine: Engine, p: h.ListDirectoryRequest) -> h.DirectoryListing:
    return await engine.workspaces.list_directory(p.path, p.files)


@implements("host.createDirectory")
async def create_directory(engine: Engine, p: h.CreateDirectoryRequest) -> h.DirectoryPath:
    return h.DirectoryPath(path=await engine.workspaces.create_directory(p.path, p.name))


@implements("host.openPath")
async def open_path(engine: Engine, p: h.OpenPathRequest) -> h.OpenPathValue:
    await engine.workspaces.open_path(p.path, p.editor)
    return h.OpenPathValue()


@implements("host.focus")
async def focus(engine: Engine, p: h.FocusRequest) -> h.FocusValue:
    return h.FocusValue(open=engine.host.focus(p.stream_id, p.session_ids))
