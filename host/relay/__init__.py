"""One address for the window (docs/decisions.md, "Remote hosts"): the local host relays each
connected remote host's methods and frames. `RelayApi` wraps the local ApiProxy: a call that names
a remote host (`hostId`), or a session or workspace that lives there, goes to that host through
its forwarded Unix socket with that host's token; `session.list` merges every host's sessions;
the streams carry the remote hosts' frames beside the local ones.

It knows the carrier (`host/fetch/`) and the contract, never the engine: the remote hosts come in
through the `Links` protocol (the engine's `engine.remotes` is one)."""

from host.relay.api import RelayApi

__all__ = ["RelayApi"]
