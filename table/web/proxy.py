"""Who a request is from when a reverse proxy (Caddy, nginx, Traefik) stands in front of the
table: the proxies it trusts (``[web] trusted_proxies``), the client's own address and scheme
that only such a proxy's headers may tell, and whether the request came through a proxy at all.

A proxy on the Pi itself connects from ``127.0.0.1``: every request it passes on would look
like the Pi's own, and the local admin (``local_admin``) would be anyone's. So:

- a request that comes from a trusted proxy, or that carries any forwarding header at all
  (:data:`FORWARDING`, whoever sent it), is *proxied*: never the local admin;
- only a trusted proxy's headers name the client (``X-Forwarded-For``, else ``X-Real-IP``,
  else RFC 7239 ``Forwarded``), read from the right: the first address that is not
  a trusted proxy is the client (anything to its left was written by the client itself and
  proves nothing); from anyone else the headers are ignored and the connection's own address
  counts. The throttles and the cap on event streams per device use that address;
- the scheme is ``https`` when the connection itself is TLS, or when a trusted proxy says so
  (``Forwarded: proto=https``, ``X-Forwarded-Proto: https``): cookies set then say ``Secure``.

:class:`ClientMiddleware` works this out once per request and leaves it in the scope
(:func:`client_of`); the connection's own ends stay as they are (the event stream finds its
connection by them).
"""

from __future__ import annotations

import ipaddress
import logging
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

from starlette.types import ASGIApp, Receive, Scope, Send

log = logging.getLogger(__name__)

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network

# Headers only a proxy (or someone pretending to be one) sends: their presence alone makes a
# request proxied, trusted or not.
FORWARDING: Final = frozenset({
    b"forwarded", b"x-forwarded-for", b"x-forwarded-host", b"x-forwarded-proto",
    b"x-forwarded-port", b"x-forwarded-server", b"x-forwarded-ssl", b"x-forwarded-scheme",
    b"x-real-ip", b"x-client-ip", b"client-ip", b"true-client-ip", b"cf-connecting-ip",
    b"fastly-client-ip", b"x-cluster-client-ip", b"x-original-forwarded-for", b"via",
})
MAX_HOPS: Final = 32  # addresses of a forwarding header looked at, from the right
SCOPE_KEY: Final = "uno.client"
_PAIR: Final = re.compile(r'\s*([A-Za-z]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^;,"\s]*)\s*')


@dataclass(frozen=True)
class Client:
    """Who a request is from: ``address`` (the client's own, as far as the trusted proxies
    say; the connection's otherwise), whether it came through a proxy, and whether the client
    reached us over TLS."""

    address: str
    proxied: bool
    https: bool


def parse_proxies(values: Iterable[str]) -> tuple[Network, ...]:
    """Addresses or networks (``127.0.0.1``, ``::1``, ``10.0.0.0/8``); raises ``ValueError``
    naming the first that is neither."""
    out = []
    for value in values:
        out.append(ipaddress.ip_network(value.strip(), strict=False))
    return tuple(out)


def _address(text: str) -> Address | None:
    """An address as a forwarding header writes it: bare, ``[v6]``, ``v4:port``,
    ``[v6]:port``; ``None`` for ``unknown``, an obfuscated name or anything else."""
    text = text.strip().strip('"').strip()
    if text.startswith("["):
        text = text[1:].partition("]")[0]
    elif text.count(":") == 1:
        text = text.partition(":")[0]
    try:
        address = ipaddress.ip_address(text.split("%")[0])
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def forwarded_elements(values: Sequence[str]) -> list[dict[str, str]]:
    """RFC 7239 ``Forwarded`` header values as elements (one per hop, left to right), each a
    dict of its lower-cased parameters; a malformed pair ends its element."""
    elements: list[dict[str, str]] = []
    for value in values:
        for part in _split_outside_quotes(value, ","):
            element: dict[str, str] = {}
            for pair in _split_outside_quotes(part, ";"):
                found = _PAIR.fullmatch(pair)
                if found is None:
                    break
                text = found.group(2)
                if text.startswith('"'):
                    text = re.sub(r"\\(.)", r"\1", text[1:-1])
                element.setdefault(found.group(1).lower(), text)
            elements.append(element)
    return elements


def _split_outside_quotes(text: str, sep: str) -> list[str]:
    parts: list[str] = []
    current: list[str] = []
    quoted = escaped = False
    for ch in text:
        if escaped:
            escaped = False
        elif ch == "\\" and quoted:
            escaped = True
        elif ch == '"':
            quoted = not quoted
        elif ch == sep and not quoted:
            parts.append("".join(current))
            current = []
            continue
        current.append(ch)
    parts.append("".join(current))
    return [p for p in parts if p.strip()]


class Proxies:
    """The proxies a server trusts, and what each request's headers are worth by them."""

    def __init__(self, trusted: Iterable[Network] = ()) -> None:
        self.trusted = tuple(trusted)
        self._warned = False

    def trusts(self, address: Address | None) -> bool:
        """Whether ``address`` is one of the trusted proxies."""
        return address is not None and any(address in network for network in self.trusted)

    def client(self, scope: Scope) -> Client:
        """Who ``scope``'s request is from (module doc)."""
        peer_text = str(scope["client"][0]) if scope.get("client") else ""
        peer = _address(peer_text)
        tls = scope.get("scheme") in ("https", "wss")
        headers: dict[bytes, list[str]] = {}
        for name, value in scope.get("headers", []):
            headers.setdefault(name.lower(), []).append(value.decode("latin-1"))
        forwarded = any(name in FORWARDING for name in headers)
        if not self.trusts(peer):
            if forwarded and not self._warned and peer is not None and peer.is_loopback:
                self._warned = True
                log.warning("web: requests come through a proxy at %s that is not in [web] "
                            "trusted_proxies: none of them is the local admin, and its "
                            "clients share one throttle and one cap on streams", peer_text)
            return Client(str(peer) if peer else peer_text, forwarded, tls)
        address, https = self._from_headers(headers)
        return Client(str(address) if address else str(peer), True, tls or https)

    def _from_headers(self, headers: dict[bytes, list[str]]) -> tuple[Address | None, bool]:
        """The client's address and whether it used https, by a trusted proxy's headers:
        ``X-Forwarded-For`` first (nginx, Caddy and Traefik all set it, and pass a client's
        own ``Forwarded`` on untouched: read first, that would let a client pick its own
        address), then ``X-Real-IP``, then RFC 7239 ``Forwarded`` (a proxy that sets only
        that one must drop the other two: docs/web.md)."""
        forwarded = forwarded_elements(headers.get(b"forwarded", []))[-MAX_HOPS:]
        chosen = self._rightmost_untrusted([(_address(e.get("for", "")), e) for e in forwarded])
        protos = [p.strip().lower() for v in headers.get(b"x-forwarded-proto", [])
                  for p in v.split(",")]
        if protos:
            https = protos[-1] == "https"
        else:
            https = chosen is not None and chosen[1].get("proto", "").lower() == "https"
        if b"x-forwarded-for" in headers:
            names = [n for v in headers[b"x-forwarded-for"] for n in v.split(",")][-MAX_HOPS:]
            chosen_xff = self._rightmost_untrusted([(_address(n), {}) for n in names])
            if chosen_xff is not None:
                return chosen_xff[0], https
        if b"x-real-ip" in headers:
            return _address(headers[b"x-real-ip"][-1]), https
        return (chosen[0] if chosen is not None else None), https

    def _rightmost_untrusted(self, hops: list[tuple[Address | None, dict[str, str]]]
                             ) -> tuple[Address | None, dict[str, str]] | None:
        """From the right, the first hop that is not a trusted proxy (an unknown or
        malformed one stops the walk: nothing to its left can be believed); when every hop
        is trusted, the leftmost; ``None`` when there is none."""
        for address, element in reversed(hops):
            if address is None or not self.trusts(address):
                return address, element
        return hops[0] if hops else None


class ClientMiddleware:
    """Raw ASGI middleware: :meth:`Proxies.client` of each request, kept in its scope."""

    def __init__(self, app: ASGIApp, proxies: Proxies | None = None) -> None:
        self.app = app
        self.proxies = proxies or Proxies()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Work out the client, then pass the request on."""
        if scope["type"] == "http":
            scope[SCOPE_KEY] = self.proxies.client(scope)
        await self.app(scope, receive, send)


def client_of(scope: Scope) -> Client:
    """The :class:`Client` of a request (the connection's own when no middleware saw it)."""
    found = scope.get(SCOPE_KEY)
    if isinstance(found, Client):
        return found
    return Proxies().client(scope)
