"""Who counts as listening on the host stream: a client's stream does, the host's own followers
do not (host/engine/services/remotes.py asks ssh's prompts in the window only while one listens;
with nobody there it runs ssh in BatchMode rather than wait for an answer that cannot come)."""

from __future__ import annotations

from pathlib import Path

from host.api import open_host
from host.engine.llm.overrides import RuntimeOverrides
from host.engine.sessions.bus import Bus
from host.fetch import InProcessApiClient
from tests.api.support import Frames


def test_a_follower_inside_the_host_is_not_a_listener() -> None:
    bus = Bus()
    inner = bus.subscribe("host", counted=False)
    assert bus.subscribers("host") == 0
    client = bus.subscribe("host")
    assert bus.subscribers("host") == 1
    client.close()
    assert bus.subscribers("host") == 0 and not inner.closed


async def test_an_open_host_counts_only_its_clients_host_streams(tmp_path: Path) -> None:
    overrides = RuntimeOverrides(provider="openai-compatible", base_url="http://127.0.0.1:9/v1", model="m")
    runtime = await open_host(tmp_path / "data", overrides)
    bus = runtime.engine.parts.bus
    try:
        assert bus.subscribers("host") == 0  # its own followers (removals, ...) are not listeners
        client = InProcessApiClient(runtime.app)
        host = Frames(client.stream("events.host"))
        await host.__aenter__()
        assert bus.subscribers("host") == 1
        await host.close()
        assert bus.subscribers("host") == 0
        await client.aclose()
    finally:
        await runtime.close()
