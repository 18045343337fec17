"""The streamed-delta maker (host/engine/llm/openai_format.py) builds exactly what pydantic's
`model_construct` builds — same fields, same fields-set, same wire form — only faster."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ConfigDict

from contract.content import STREAM_CHUNK, ReasoningDeltaChunk, TextDeltaChunk
from host.engine.llm.openai_format import ChunkAssembler, delta_maker


def state(chunk: Any) -> tuple[Any, ...]:
    return (
        type(chunk),
        vars(chunk),
        chunk.model_fields_set,
        chunk.__pydantic_extra__,
        chunk.__pydantic_private__,
        chunk.model_dump_json(),
        chunk.model_dump_json(exclude_unset=True),
    )


@pytest.mark.parametrize("cls", [TextDeltaChunk, ReasoningDeltaChunk])
def test_the_maker_builds_what_model_construct_and_validation_build(cls: Any) -> None:
    made = delta_maker(cls)(3, "héllo\u2028")
    assert state(made) == state(cls.model_construct(index=3, text="héllo\u2028"))
    assert made == cls(index=3, text="héllo\u2028") == STREAM_CHUNK.validate_json(made.model_dump_json())
    copy = made.model_copy(update={"text": "joined"})
    assert (copy.text, made.text, copy.index) == ("joined", "héllo\u2028", 3)


def test_the_assembler_streams_made_deltas_that_round_trip() -> None:
    assembler = ChunkAssembler()
    out = assembler.feed(
        {"choices": [{"index": 0, "delta": {"reasoning_content": "think", "content": "say"}}]}
    )
    deltas = [c for c in out if isinstance(c, TextDeltaChunk | ReasoningDeltaChunk)]
    assert [(type(c), c.text) for c in deltas] == [(ReasoningDeltaChunk, "think"), (TextDeltaChunk, "say")]
    for chunk in out:
        assert STREAM_CHUNK.validate_json(chunk.model_dump_json()) == chunk


def test_a_model_the_maker_cannot_copy_is_refused() -> None:
    class Loose(TextDeltaChunk):
        model_config = ConfigDict(extra="allow")

    with pytest.raises(TypeError):
        delta_maker(Loose)
