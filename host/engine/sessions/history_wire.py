"""A history page's answer as wire JSON, spliced from the stored JSON of its events.

Each stored row is the event's wire JSON (`event_json`: camelCase, unset optionals left out),
so an answer splices the rows between its own few bytes instead of validating every event into
a model and dumping it again: the same bytes, at a fraction of the cost (docs/decisions.md,
"History answers spliced"). Only `tool/call` and `tool/result` rows are parsed, for their views.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, PrivateAttr
from pydantic_core import PydanticSerializationError, from_json, to_json

from contract.events import STORED, SessionEvent
from contract.sessions import HistoryValue, Projections
from host.engine.sessions.tool_views import ViewedCalls
from host.textsafe import clean_json

ENTRY_HEAD = b'{"event":'
ENTRY_SEP = b'},{"event":'
VIEWABLE = frozenset(("tool/call", "tool/result"))
"""The only event types that can carry a view (`ViewedCalls.may_view`)."""


class EncodedHistory(HistoryValue):
    """A `session.history` / `subagent.history` value already encoded as its wire JSON.

    The carrier sends `wire_json()` as is; `model_dump` (and so `to_wire`) decodes it back into
    the value it stands for. Its `events` field is left empty: Python code that wants the
    entries as models calls `decoded()` (the method's handler is called only by the carrier)."""

    _wire: bytes = PrivateAttr(default=b"")

    @classmethod
    def of(cls, wire: bytes, has_more: bool, projections: Projections | None) -> EncodedHistory:
        value = cls.model_construct(events=[], has_more=has_more, projections=projections)
        value._wire = wire
        return value

    def wire_json(self) -> bytes:
        return self._wire

    def decoded(self) -> HistoryValue:
        return HistoryValue.model_validate_json(self._wire, context={STORED: True})

    def model_dump(self, **kwargs: Any) -> dict[str, Any]:
        return self.decoded().model_dump(**kwargs)

    def model_dump_json(self, **kwargs: Any) -> str:
        return self.decoded().model_dump_json(**kwargs)


def encode_history(
    rows: Sequence[tuple[int, str, bytes]],
    extra: Sequence[SessionEvent],
    has_more: bool,
    projections: Projections | None,
) -> EncodedHistory:
    """The answer for stored `rows` (seq, type, JSON) followed by `extra` events (a repair that
    was never written), each tool call and result with its view (a result finds its call on the
    same page only, as `host.engine.sessions.tool_views.page_views`; a row is parsed only when it
    may get one)."""
    calls = ViewedCalls()
    items: list[bytes] = []  # each entry without its leading `{"event":` and closing brace
    append = items.append
    for _, etype, raw in rows:
        if etype in VIEWABLE and calls.may_view(etype):
            view = calls.observe_data(etype, from_json(raw)["data"])
            if view is not None:
                raw = raw + b',"view":' + model_json(view)
        append(raw)
    for event in extra:  # as a `HistoryEntry` would encode it: the event, then its view if any
        view = calls.observe(event)
        append(model_json(event) if view is None else model_json(event) + b',"view":' + model_json(view))
    more = b"true" if has_more else b"false"
    projected = b"" if projections is None else b',"projections":' + model_json(projections)
    if not items:
        wire = b'{"events":[],"hasMore":' + more + projected + b"}"
    else:  # the head and tail ride on the first and last entry: one copy of the page in all
        items[0] = b'{"events":[' + ENTRY_HEAD + items[0]
        items[-1] = items[-1] + b'}],"hasMore":' + more + projected + b"}"
        wire = ENTRY_SEP.join(items)
    return EncodedHistory.of(wire, has_more, projections)


def model_json(model: BaseModel) -> bytes:
    """A model's wire JSON; a lone surrogate becomes U+FFFD (as the carrier's encoder does)."""
    try:  # the options that give what `to_wire` and then the carrier's encoder give (host/fetch)
        return to_json(model, by_alias=True, exclude_none=True, inf_nan_mode="strings")
    except (PydanticSerializationError, ValueError):
        wire = clean_json(model.model_dump(mode="json", by_alias=True, exclude_none=True))
        return to_json(wire, inf_nan_mode="strings")
