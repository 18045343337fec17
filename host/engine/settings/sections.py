"""A settings namespace as data: its model, base layer, resolution, redaction and path ops.

Pure functions over JSON values (no I/O), so the write rules (docs/decisions.md,
"Configuration") are tested without a file: `update` deep-merges, `replace` sets, `mutate`
applies `set`/`unset` path operations in order.
"""

from __future__ import annotations

import copy
import functools
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ValidationError

from contract._base import FROM_WIRE, WireModel
from contract.settings import SecretSlot

Json = Any
SECRET_MARK = "secret"
"""`json_schema_extra={"secret": True}` marks a field whose value never leaves the host."""


def json_schema(model: type[WireModel]) -> dict[str, Json]:
    """A namespace's wire schema (a copy: the caller may keep or change it). pydantic builds it
    anew at each call, ~3-8 ms a model, and `settings.describe` lists every namespace at each page
    load (docs/decisions.md, "Settings schemas are built once")."""
    return copy.deepcopy(_built_schema(model))


@functools.cache
def _built_schema(model: type[WireModel]) -> dict[str, Json]:
    return model.model_json_schema(by_alias=True, mode="validation")


class SectionError(ValueError):
    """A section that does not validate or a path op that cannot apply (the message says why;
    `issues` locates each reason of a validation failure as `(loc, msg)`)."""

    def __init__(self, message: str, issues: list[tuple[list[str], str]] | None = None) -> None:
        super().__init__(message)
        self.issues = issues or []


@dataclass(frozen=True)
class Namespace:
    ns: str
    model: type[WireModel]
    base: dict[str, Json] | None = None
    """The shipped layer between the model's defaults and the user's section."""
    applies: Literal["live", "restart"] = "live"


# ---- resolution -------------------------------------------------------------------------------


def deep_merge(base: Json, patch: Json) -> Json:
    """Objects merge key by key; any other value (arrays included) replaces."""
    if isinstance(base, dict) and isinstance(patch, dict):
        out = dict(base)
        for key, value in patch.items():
            out[key] = deep_merge(base.get(key), value) if key in base else copy.deepcopy(value)
        return out
    return copy.deepcopy(patch)


def resolve(space: Namespace, user: dict[str, Json] | None) -> WireModel:
    """The validated section: defaults < base < user. Raises SectionError with the reasons."""
    merged = deep_merge(space.base or {}, user or {})
    try:
        return space.model.model_validate(merged, **FROM_WIRE)
    except ValidationError as exc:
        raise SectionError(f"{space.ns}: {explain(exc)}", located(exc)) from None


def located(exc: ValidationError) -> list[tuple[list[str], str]]:
    """Each reason as `(["profiles", "0", "baseURL"], "must be an http(s) URL")` (at most 5)."""
    return [
        ([str(p) for p in e.get("loc", ())], str(e.get("msg", "invalid")).removeprefix("Value error, "))
        for e in exc.errors(include_url=False, include_input=False, include_context=False)[:5]
    ]


def explain(exc: ValidationError) -> str:
    """`profiles.0.baseURL: must be an http(s) URL; …` (never the rejected input)."""
    parts = [f"{'.'.join(loc)}: {msg}" if loc else msg for loc, msg in located(exc)]
    return "; ".join(parts)


def dump(section: BaseModel) -> dict[str, Json]:
    out: dict[str, Json] = section.model_dump(mode="json", by_alias=True, exclude_none=True)
    return out


# ---- redaction --------------------------------------------------------------------------------


def secret_fields(model: type[BaseModel]) -> dict[str, type[BaseModel] | None]:
    """Wire name → nested model (for a field holding a model or a list of them) or None for a
    secret leaf. Only fields that are secret or can contain one are listed."""
    out: dict[str, type[BaseModel] | None] = {}
    for name, info in model.model_fields.items():
        wire = info.alias or name
        extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
        if extra.get(SECRET_MARK):
            out[wire] = None
            continue
        nested = _nested_model(info.annotation)
        if nested is not None and secret_fields(nested):
            out[wire] = nested
    return out


def _nested_model(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in getattr(annotation, "__args__", ()) or ():
        found = _nested_model(arg)
        if found is not None:
            return found
    return None


def redact(model: type[BaseModel], value: Json, path: tuple[str, ...] = ()) -> tuple[Json, list[SecretSlot]]:
    """`value` without its secret fields, and every secret slot with whether it holds a value."""
    fields = secret_fields(model)
    if not fields:
        return value, []
    if isinstance(value, list):
        out_list, in_items = [], []
        for i, item in enumerate(value):
            clean, found = redact(model, item, (*path, str(i)))
            out_list.append(clean)
            in_items += found
        return out_list, in_items
    if not isinstance(value, dict):
        return value, []
    out = dict(value)
    slots: list[SecretSlot] = []
    for wire, nested in fields.items():
        if nested is None:
            held = out.pop(wire, None)
            slots.append(SecretSlot(path=[*path, wire], set=isinstance(held, str) and held != ""))
        elif wire in out:
            out[wire], found = redact(nested, out[wire], (*path, wire))
            slots += found
    return out, slots


def secrets_of(model: type[BaseModel], value: Json) -> list[str]:
    """The secret values a section holds (so the host can keep them out of tool output)."""
    _, slots = redact(model, value)
    found = []
    for slot in slots:
        held = get_path(value, slot.path)
        if isinstance(held, str) and held:
            found.append(held)
    return found


# ---- path operations --------------------------------------------------------------------------


def get_path(value: Json, path: list[str]) -> Json:
    for key in path:
        if isinstance(value, dict):
            value = value.get(key)
        elif isinstance(value, list) and key.isdigit() and int(key) < len(value):
            value = value[int(key)]
        else:
            return None
    return value


def set_path(section: dict[str, Json], path: list[str], value: Json) -> dict[str, Json]:
    """A copy with `value` at `path` (missing intermediates created: a list before an index, an
    object otherwise; an index equal to a list's length appends)."""
    if not path:
        if not isinstance(value, dict):
            raise SectionError("setting the whole section needs an object")
        return copy.deepcopy(value)
    root = copy.deepcopy(section)
    node: Json = root
    for depth, key in enumerate(path):
        last = depth == len(path) - 1
        if isinstance(node, list):
            if not key.isdigit() or int(key) > len(node):
                raise SectionError(f"no list item {key!r} at {'.'.join(path[:depth]) or 'the root'}")
            index = int(key)
            if last:
                if index == len(node):
                    node.append(copy.deepcopy(value))
                else:
                    node[index] = copy.deepcopy(value)
                return root
            if index == len(node):
                node.append(_container_for(path[depth + 1]))
            if not isinstance(node[index], dict | list):
                node[index] = _container_for(path[depth + 1])
            node = node[index]
        elif isinstance(node, dict):
            if last:
                node[key] = copy.deepcopy(value)
                return root
            if not isinstance(node.get(key), dict | list):
                node[key] = _container_for(path[depth + 1])
            node = node[key]
        else:  # pragma: no cover - every branch above leaves a container
            raise SectionError(f"cannot set below a value at {'.'.join(path[:depth])}")
    return root


def _container_for(next_key: str) -> Json:
    """A missing intermediate: a list when the next segment is an index (`profiles/0`), else an object."""
    return [] if next_key.isdigit() else {}


def unset_path(section: dict[str, Json], path: list[str]) -> dict[str, Json]:
    """A copy without `path` (a missing path is a no-op; `[]` clears the section)."""
    if not path:
        return {}
    root = copy.deepcopy(section)
    parent = get_path(root, path[:-1]) if len(path) > 1 else root
    key = path[-1]
    if isinstance(parent, dict):
        parent.pop(key, None)
    elif isinstance(parent, list) and key.isdigit() and int(key) < len(parent):
        del parent[int(key)]
    return root
