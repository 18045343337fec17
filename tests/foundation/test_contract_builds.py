"""Every contract model and module-level adapter builds.

Contract models are built on first use (`defer_build`, docs/decisions.md "Performance and
packaging"), so a model whose schema cannot be built would otherwise fail only on the first
request that uses it: this builds all of them, as an eager import used to.
"""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType

from pydantic import BaseModel, TypeAdapter

import contract
from contract._base import WireModel
from contract.methods import METHODS
from contract.rpc import request_model
from host.fetch.warm import warm_contract

HOST_MODULES = ("host.engine.settings.sections", "host.engine.sessions.listing")
"""Host modules that define contract-based models or adapters."""


def _modules() -> list[ModuleType]:
    names = [f"contract.{m.name}" for m in pkgutil.iter_modules(contract.__path__)]
    return [importlib.import_module(name) for name in (*names, *HOST_MODULES)]


def _subclasses(cls: type[BaseModel]) -> list[type[BaseModel]]:
    found = []
    for sub in cls.__subclasses__():
        found += [sub, *_subclasses(sub)]
    return found


def test_every_model_and_adapter_builds() -> None:
    modules = _modules()
    models = {m for m in _subclasses(WireModel) if m.__module__.startswith(("contract.", "host."))}
    assert len(models) > 200, "the contract's models were not all found"
    for model in sorted(models, key=lambda m: f"{m.__module__}.{m.__qualname__}"):
        model.model_rebuild(force=True)  # raises when the schema cannot be built
        assert model.__pydantic_complete__, model
    adapters = [
        (f"{module.__name__}.{name}", value)
        for module in modules
        for name, value in vars(module).items()
        if isinstance(value, TypeAdapter)
    ]
    assert len(adapters) >= 7, adapters
    for _name, adapter in adapters:
        adapter.rebuild(force=True, raise_errors=True)
        assert adapter.core_schema is not None


async def test_warming_builds_what_the_carrier_uses() -> None:
    steps = await warm_contract()
    assert steps == 5 + 2 * len(METHODS)
    for method in METHODS.values():
        assert method.value.__pydantic_complete__, method.key
        assert request_model(method.request).__pydantic_complete__, method.key
