"""The history paging rule over an in-memory event list: the oracle the store's SQL is checked
against (docs/architecture.md, "History paging")."""

from __future__ import annotations

from collections.abc import Sequence

from contract.events import SessionEvent

COUNTED = frozenset({"user/message", "assistant/message"})


def message_cut(event: SessionEvent) -> int | None:
    """The cut a counted message contributes, or None when the event is not counted."""
    if event.type not in COUNTED or event.surface_op not in (None, "append"):
        return None
    sources = event.source_event_seqs or []
    return min(event.seq, *sources) if sources else event.seq


def page_window(
    events: Sequence[SessionEvent], before_seq: int | None, max_messages: int
) -> tuple[list[SessionEvent], bool]:
    """The page of an in-memory, seq-ordered list (events[i].seq == i)."""
    end = len(events) if before_seq is None else min(before_seq, len(events))
    cuts: list[int] = []
    for event in reversed(events[:end]):
        cut = message_cut(event)
        if cut is not None:
            cuts.append(cut)
            if len(cuts) == max_messages:
                break
    if len(cuts) < max_messages:
        return list(events[:end]), False
    cut = min(cuts)
    return list(events[cut:end]), cut > 0
