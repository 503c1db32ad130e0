"""The web view's address: parsed, and taken before anything else starts (a port in use is one
clear line, not a traceback), with nothing of the web server imported yet.

The daemon takes its address here at once and starts the server itself once its readers are
started: on a slow board the web server's imports then do not hold back the referee's
``ready``.
"""

from __future__ import annotations

import errno
import socket
from typing import Final

from table.errors import TableError

# What a sandbox (a unit's RestrictAddressFamilies) answers a socket it refuses.
SANDBOXED: Final = (errno.EAFNOSUPPORT, errno.EPERM, errno.EACCES)


class WebError(TableError, OSError):
    """The web server cannot start: the address cannot be listened on."""


def parse_listen(text: str, where: str = "--web") -> tuple[str, int]:
    """``HOST:PORT``, ``[IPV6]:PORT`` or a bare ``PORT`` (every address). Raises
    :class:`WebError` naming ``where``."""
    host, sep, port = text.strip().rpartition(":")
    if not sep:
        host, port = "0.0.0.0", text.strip()
    host = host.strip("[]") or "0.0.0.0"
    if not (port.isascii() and port.isdigit()) or not 0 <= int(port) <= 65535:
        raise WebError(f"{where}: {text!r} is not a port; allowed: PORT or HOST:PORT, "
                       "the port 0 to 65535 (0: any free port)")
    return host, int(port)


def listen(host: str, port: int) -> socket.socket:
    """A socket listening on ``host:port`` (any free port for 0). Raises :class:`WebError`."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP said, not left 0: asyncio then turns Nagle's algorithm off on each
    # connection, and an event or a response is not held back 40 ms for a delayed ACK.
    sock = None
    try:
        # A sandbox without the network (a unit's RestrictAddressFamilies) refuses the
        # socket itself: the same one line as a port in use, never a traceback.
        sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
    except OSError as exc:
        if sock is not None:
            sock.close()
        why = "" if sock is not None or exc.errno not in SANDBOXED else (
            " (the service's unit allows no network: write it again for this "
            "configuration, sudo ./uno install)")
        raise WebError(f"web: cannot listen on {host}:{port}: "
                       f"{exc.strerror or exc}{why}") from None
    return sock
