"""Finds model servers already running on this machine (`llm.discoverLocal`).

Probes the well-known loopback ports in parallel, each bounded at `PROBE_TIMEOUT`: Ollama's
`/api/tags`, and `/v1/models` for the OpenAI-compatible ones (LM Studio, llama.cpp's server,
vLLM, Jan). A port nobody listens on is refused at once, so the bound only costs time for a
port that accepts and then stays silent; the probes run together and off the page's thread (the
UI awaits the call in the background), so the whole look takes at most one bound.

Only 127.0.0.1 is ever asked, never another address; the port list is a parameter
so tests use stand-ins on free ports (docs/decisions.md, "Offline agent").
"""

from __future__ import annotations

import asyncio
import os
import ssl
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from contract.llm import DiscoveredModelView, LocalServerKind, LocalServerView

PROBE_TIMEOUT = 2.0
"""Seconds per probe. The former 0.3 s is less than a busy 2-core machine promises for a loopback
answer (a server that is loading a model, eight test workers), so a running server was reported
missing; one that needs more than 2 s to list its models is not one to work with either
(docs/decisions.md, "Small UX fixes (issue 31)")."""
LOOPBACK = "127.0.0.1"


@dataclass(frozen=True)
class Probe:
    kind: LocalServerKind
    name: str
    port: int


WELL_KNOWN: tuple[Probe, ...] = (
    Probe("ollama", "Ollama", 11434),
    Probe("lm-studio", "LM Studio", 1234),
    Probe("llama.cpp", "llama.cpp server", 8080),
    Probe("vllm", "vLLM", 8000),
    Probe("jan", "Jan", 1337),
)


PORTS_ENV = "HARNESSDESK_LOCAL_SERVER_PORTS"
"""`ollama=11434,jan=1337`: the ports to probe instead of the well-known ones (a server moved to
another port; tests of the whole app use stand-ins)."""


def probes_from_env(environ: Mapping[str, str] = os.environ) -> tuple[Probe, ...] | None:
    """The probes `$HARNESSDESK_LOCAL_SERVER_PORTS` names (None when unset; bad items skipped)."""
    raw = environ.get(PORTS_ENV)
    if not raw:
        return None
    names = {p.kind: p.name for p in WELL_KNOWN}
    out = []
    for item in raw.split(","):
        kind, _, port = item.strip().partition("=")
        if kind in names and port.isdigit() and 0 < int(port) < 65536:
            out.append(Probe(kind, names[kind], int(port)))
    return tuple(out)


async def discover_servers(
    probes: tuple[Probe, ...] = WELL_KNOWN, bound: float = PROBE_TIMEOUT
) -> list[LocalServerView]:
    """Every probe that answered with a model list within `bound` seconds, in the probes' order."""
    import httpx  # only when asked

    tls = await _tls_context()
    options: dict[str, Any] = {"timeout": bound, "trust_env": False, "follow_redirects": False}
    async with httpx.AsyncClient(verify=tls, **options) as client:
        found = await asyncio.gather(*(_probe(client, p, bound) for p in probes))
    return [s for s in found if s is not None]


_tls: ssl.SSLContext | None = None


async def _tls_context() -> ssl.SSLContext:
    """One TLS context for every look, made once and off the event loop. httpx otherwise builds
    one for each new client, loading the CA bundle: ~0.15 s of CPU on the loop, at every page
    that opens (the UI looks on load), for probes that only speak plain HTTP to 127.0.0.1 and
    follow no redirect (docs/decisions.md, "A look for local servers costs no TLS set-up")."""
    global _tls
    if _tls is None:
        _tls = await asyncio.to_thread(ssl.create_default_context)
    return _tls


async def _probe(client: Any, probe: Probe, bound: float) -> LocalServerView | None:
    base = f"http://{LOOPBACK}:{probe.port}"
    path = "/api/tags" if probe.kind == "ollama" else "/v1/models"
    try:
        response = await asyncio.wait_for(client.get(base + path), bound)
        if response.status_code != 200:
            return None
        body = response.json()
    except Exception:  # nothing there, not HTTP, not JSON, too slow: not a server we know
        return None
    models = _ollama_models(body) if probe.kind == "ollama" else _openai_models(body)
    if models is None:
        return None
    return LocalServerView(
        kind=probe.kind, name=probe.name, base_url=f"{base}/v1", port=probe.port, models=models
    )


def _ollama_models(body: Any) -> list[DiscoveredModelView] | None:
    if not isinstance(body, dict) or not isinstance(body.get("models"), list):
        return None
    names = [m.get("name") or m.get("model") for m in body["models"] if isinstance(m, dict)]
    return [DiscoveredModelView(id=n) for n in names if isinstance(n, str) and n]


def _openai_models(body: Any) -> list[DiscoveredModelView] | None:
    if not isinstance(body, dict) or not isinstance(body.get("data"), list):
        return None
    ids = [m.get("id") for m in body["data"] if isinstance(m, dict)]
    return [DiscoveredModelView(id=i) for i in ids if isinstance(i, str) and i]
