"""The optional loopback HTTP server: the fetch app behind a security fence, plus webui/."""

from host.server.fence import LoopbackFence, is_loopback_host
from host.server.site import build_site

__all__ = ["LoopbackFence", "build_site", "is_loopback_host"]
