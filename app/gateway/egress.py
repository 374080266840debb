"""Egress policy: no calls to loopback, private, link-local or metadata addresses
unless the host is allow-listed (``QUIVER_EGRESS_ALLOWLIST``)."""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from urllib.parse import urlsplit

# Cloud metadata endpoints not covered by the link-local range.
METADATA_ADDRESSES = {
    ipaddress.ip_address("169.254.169.254"),
    ipaddress.ip_address("fd00:ec2::254"),
    ipaddress.ip_address("100.100.100.200"),
}


class EgressDeniedError(Exception):
    pass


def _forbidden(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped:
        address = address.ipv4_mapped
    return (
        address in METADATA_ADDRESSES
        or address.is_loopback
        or address.is_private
        or address.is_link_local
        or address.is_multicast
        or address.is_reserved
        or address.is_unspecified
    )


class EgressPolicy:
    def __init__(self, allowlist: set[str]) -> None:
        self.allowlist = {host.strip().lower() for host in allowlist if host.strip()}

    def is_allowed_host(self, host: str) -> bool:
        return host.lower().strip("[]") in self.allowlist

    async def check_url(self, url: str, *, resolve_failure_ok: bool = False) -> None:
        """Raise EgressDeniedError when the URL's host resolves to a forbidden address.

        ``resolve_failure_ok``: at creation time a name that does not resolve (yet) is
        accepted; it is checked again before every call.
        """
        host = (urlsplit(url).hostname or "").lower()
        if not host:
            raise EgressDeniedError(f"{url!r} has no host")
        if self.is_allowed_host(host):
            return
        try:
            addresses = [ipaddress.ip_address(host)]
        except ValueError:
            try:
                infos = await asyncio.get_running_loop().getaddrinfo(host, None, type=socket.SOCK_STREAM)
            except OSError as error:
                if resolve_failure_ok:
                    return
                raise EgressDeniedError(f"cannot resolve {host!r}: {error}") from None
            addresses = [ipaddress.ip_address(info[4][0]) for info in infos]
        for address in addresses:
            if _forbidden(address):
                raise EgressDeniedError(
                    f"{host!r} resolves to {address}, a loopback, private, link-local or metadata "
                    "address; allow it with QUIVER_EGRESS_ALLOWLIST"
                )
