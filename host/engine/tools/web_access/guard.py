"""Which addresses web_fetch may connect to (docs/threat-model.md, "web_fetch and private
addresses").

A fetch runs in the host process, outside any sandbox, so the host itself refuses what a sandbox
without network would: every address that is not globally routable (loopback, private, link-local
such as the cloud metadata 169.254.169.254, carrier-grade NAT, multicast, unspecified, IPv4
inside IPv6) unless the person listed the host name or a range holding the address in
`web.allowedPrivateHosts`. The name is resolved once, the addresses are checked, and the
connection goes to a checked address (never a second lookup that DNS could answer otherwise).
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Sequence
from dataclasses import dataclass

IpAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


class Refused(Exception):
    """The URL may not be fetched; the text says why, for the model and the person."""


def _plain(ip: IpAddress) -> IpAddress:
    """An IPv4 address hidden in an IPv6 one (`::ffff:127.0.0.1`, 6to4, Teredo) as itself."""
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return ip.ipv4_mapped
        if ip.sixtofour is not None:
            return ip.sixtofour
        if ip.teredo is not None:
            return ip.teredo[1]
    return ip


def is_public(ip: IpAddress) -> bool:
    plain = _plain(ip)
    return plain.is_global and not plain.is_multicast


@dataclass(frozen=True)
class Exceptions:
    """`web.allowedPrivateHosts`: names (`docs.internal`, `*.corp.example`) and ranges."""

    names: tuple[str, ...] = ()
    networks: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...] = ()

    @classmethod
    def parse(cls, entries: Sequence[str]) -> Exceptions:
        names: list[str] = []
        networks: list[ipaddress.IPv4Network | ipaddress.IPv6Network] = []
        for entry in entries:
            text = entry.strip().lower()
            try:
                networks.append(ipaddress.ip_network(text, strict=False))
            except ValueError:
                names.append(text.rstrip("."))
        return cls(tuple(names), tuple(networks))

    def name(self, host: str) -> bool:
        host = host.lower().rstrip(".")
        return any(host == n or (n.startswith("*.") and host.endswith(n[1:])) for n in self.names)

    def address(self, ip: IpAddress) -> bool:
        plain = _plain(ip)
        return any(plain in net or ip in net for net in self.networks)


def literal(host: str) -> IpAddress | None:
    try:
        return ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return None


async def resolve(host: str, port: int, allowed: Exceptions, *, bound: float = 10.0) -> IpAddress:
    """The one address to connect to for `host`, checked; Refused when none may be reached."""
    ip = literal(host)
    if ip is not None:
        found: list[IpAddress] = [ip]
    else:
        loop = asyncio.get_running_loop()
        try:
            infos = await asyncio.wait_for(
                loop.getaddrinfo(host, port, type=socket.SOCK_STREAM), timeout=bound
            )
        except (TimeoutError, OSError) as exc:
            raise Refused(f"the name {host} could not be resolved ({exc})") from exc
        found = []
        for info in infos:
            address = literal(str(info[4][0]).split("%", 1)[0])
            if address is not None and address not in found:
                found.append(address)
    if not found:
        raise Refused(f"the name {host} resolves to no address")
    for address in found:
        if is_public(address) or allowed.name(host) or allowed.address(address):
            return address
    shown = ", ".join(str(a) for a in found)
    raise Refused(
        f"{host} is a private, loopback or link-local address ({shown}): web_fetch does not reach this"
        " machine or its network unless the user lists it in Settings → Web (allowed private hosts)"
    )
