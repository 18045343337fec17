"""`NewEvent`: an event before the journal stamps it (the package's `__init__` says more)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

from pydantic import BaseModel

from contract._base import to_wire
from contract.events import ReplaceOp, SessionEvent

D = TypeVar("D", bound=BaseModel)


@dataclass(frozen=True, slots=True)
class NewEvent(Generic[D]):
    """An event before the journal gives it a seq and a time."""

    type: str
    data: D
    source_event_seqs: list[int] | None = None
    surface_op: ReplaceOp | None = None
    """Set on a message that replaces part of the surface (compaction); None = append."""

    def stamp(self, seq: int, time: int) -> SessionEvent:
        return SessionEvent(
            type=self.type,
            seq=seq,
            time=time,
            data=to_wire(self.data),
            surface_op=self.surface_op,
            source_event_seqs=self.source_event_seqs,
        )
