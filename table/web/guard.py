"""The web server's guards against its own network: which ``Host`` it answers, which ``Origin``
may change anything, and how often one client may try a credential.

- :class:`HostGuard`: a request naming a host that is neither this machine (the address the
  connection came in on, ``localhost``, the machine's name) nor one of ``[web] hosts`` is
  refused (400) before any page or API sees it: a page on ``evil.example`` that re-points its
  name at the Pi (DNS rebinding) reads nothing. A POST (or any method other than GET, HEAD
  and OPTIONS) whose ``Origin`` is not this very server is refused (403): another site's page
  cannot press, log in or run an admin action.
- :class:`Throttle`: a token bucket per client (an IPv4 address, or an IPv6 /64: one machine
  holds a whole /64) of failed credentials; a client out of tokens is answered 429 without its
  credential being looked at, and no other client is slowed.

Starlette's ``TrustedHostMiddleware`` takes a fixed list of names; the Pi's address comes from
DHCP and a server bound to every address has several, so the guard takes the connection's own
local address (what the client truly reached) as well.
"""

from __future__ import annotations

import ipaddress
import json
import socket
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import Final
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Receive, Scope, Send

from table.web.proxy import client_of

SAFE_METHODS: Final = frozenset({"GET", "HEAD", "OPTIONS"})
CLIENTS: Final = 1024  # clients remembered by a throttle (the longest idle is forgotten)


def own_names() -> frozenset[str]:
    """The names this machine answers to without being configured: ``localhost`` and its
    host name (bare and ``.local``, as mDNS gives it)."""
    name = socket.gethostname().lower()
    return frozenset({"localhost", name, f"{name}.local"})


def host_of(value: str) -> str | None:
    """The host of a ``Host`` header (``name``, ``name:port``, ``[v6]:port``), lower case;
    ``None`` for anything malformed (a bad port, a space, a character outside ASCII)."""
    if not value or not value.isascii() or any(c in value for c in " \t/\\@?#"):
        return None
    if value.startswith("["):
        host, sep, rest = value[1:].partition("]")
        if not sep or (rest and not (rest.startswith(":") and _port(rest[1:]))):
            return None
        return host.lower()
    host, sep, port = value.rpartition(":")
    if not sep:
        return value.lower()
    return host.lower() if host and _port(port) else None


def _port(text: str) -> bool:
    return 0 < len(text) <= 5 and all("0" <= c <= "9" for c in text) and int(text) <= 65535


def _ip(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host.split("%")[0])
    except ValueError:
        return None


class HostGuard:
    """Raw ASGI middleware: the ``Host`` allowlist and the ``Origin`` check (module doc)."""

    def __init__(self, app: ASGIApp, hosts: Iterable[str] = ()) -> None:
        self.app = app
        self.names = own_names() | {h.lower() for h in hosts}

    def allowed(self, host: str | None, scope: Scope) -> bool:
        """Whether ``host`` (from :func:`host_of`) names this server."""
        if host is None:
            return False
        if host in self.names:
            return True
        address = _ip(host)
        if address is None:
            return False
        if address.is_loopback:
            return True
        server = scope.get("server")
        local = _ip(str(server[0])) if server else None
        return local is not None and local == address

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass the request on, or refuse it in one JSON line."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers", []))
        given = headers.get(b"host")  # none at all: HTTP/1.0 from a tool, never a browser
        raw = "" if given is None else given.decode("latin-1")
        if given is not None and not self.allowed(host_of(raw), scope):
            await refuse(send, 400, f"Host {raw[:64]!r} is not this table: use its address, or "
                                    "add the name to [web] hosts")
            return
        if scope["method"] not in SAFE_METHODS:
            origin = headers.get(b"origin")
            if origin is not None and not _same_origin(origin.decode("latin-1"), raw):
                await refuse(send, 403, "a request from another site's page cannot change "
                                        "anything here")
                return
            if headers.get(b"sec-fetch-site", b"") == b"cross-site":
                await refuse(send, 403, "a request from another site's page cannot change "
                                        "anything here")
                return
        await self.app(scope, receive, send)


def _same_origin(origin: str, host: str) -> bool:
    parts = urlsplit(origin) if origin.isascii() else None
    return (parts is not None and parts.scheme in ("http", "https")
            and parts.netloc.lower() == host.lower() and not parts.path)


async def refuse(send: Send, status: int, message: str,
                 headers: Iterable[tuple[bytes, bytes]] = ()) -> None:
    """Answer with ``status`` and ``{"error": message}`` from a raw ASGI app."""
    body = json.dumps({"error": message}).encode()
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
        (b"cache-control", b"no-store"), *headers]})
    await send({"type": "http.response.body", "body": body})


def client_key(scope: Scope) -> str:
    """Who a request is from, for a throttle or a cap: its IPv4 address, or its IPv6 /64 (the
    client's own behind a trusted proxy: :func:`table.web.proxy.client_of`)."""
    host = client_of(scope).address
    address = _ip(host)
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is None:
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address.ipv4_mapped if isinstance(address, ipaddress.IPv6Address)
               and address.ipv4_mapped else host)


class Throttle:
    """A token bucket per client: ``burst`` tries, then ``rate`` a second (any thread)."""

    def __init__(self, rate: float, burst: float, clients: int = CLIENTS,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.rate, self.burst, self.clients, self.clock = rate, burst, clients, clock
        self._lock = threading.Lock()
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def _tokens(self, client: str, now: float) -> float:
        tokens, since = self._buckets.get(client, (self.burst, now))
        return min(self.burst, tokens + (now - since) * self.rate)

    def wait(self, client: str) -> float:
        """Seconds ``client`` must wait before its next try; 0 when it may try now."""
        with self._lock:
            tokens = self._tokens(client, self.clock())
        return 0.0 if tokens >= 1.0 else (1.0 - tokens) / self.rate

    def charge(self, client: str) -> None:
        """One try (a failed credential, or a costly request) by ``client``."""
        with self._lock:
            now = self.clock()
            self._buckets[client] = (max(0.0, self._tokens(client, now) - 1.0), now)
            self._buckets.move_to_end(client)
            while len(self._buckets) > self.clients:
                self._buckets.popitem(last=False)
