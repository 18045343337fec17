"""Carrier failures as Python exceptions; business errors stay typed results (`RpcErr`)."""

from __future__ import annotations


class TransportError(Exception):
    """The exchange failed below the contract: no connection, HTTP status, timeout, cut stream."""

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class ProtocolError(TransportError):
    """The peer answered, but not by the contract: bad envelope, wrong rpcId echo, bad value."""
