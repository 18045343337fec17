"""Tool render intents (`view`): a host-computed card for a `tool/call` or `tool/result`, sent
beside the event in history entries and `session/event` frames (docs/architecture.md, "Tool
views"). Never persisted; the event stays the source of truth.

The schema checks only `for` and that `view` is an object with a string `card`; every other field
passes through. A client renders a `card` (or sub-variant) it does not know as the generic card
built from the raw event.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from contract._base import OpenModel, WireModel
from contract.events import SessionEvent

ToolViewFor = Literal["call", "result"]


class ToolView(OpenModel):
    """`card`: `generic | terminal | diff` (calls), also `search | read | web` (results)."""

    card: str


class ToolEventView(WireModel):
    for_: ToolViewFor = Field(alias="for")
    view: ToolView


class HistoryEntry(WireModel):
    """One item of `session.history` / `subagent.history`: the event and, only on `tool/call` and
    `tool/result`, its view (omitted when there is none, never `null`)."""

    event: SessionEvent
    view: ToolEventView | None = None
