"""The ApiProxy implementation: one module per contract domain, wired to the engine."""

from host.api.proxy import HostApiProxy
from host.api.runtime import HostRuntime, open_host

__all__ = ["HostApiProxy", "HostRuntime", "open_host"]
