"""``[web] trusted_proxies``: the reverse proxies whose forwarding headers the web view believes."""

from __future__ import annotations

import ipaddress
from typing import Final

PROXIES_ALLOWED: Final = ('a list of up to 32 addresses or networks, e.g. ["127.0.0.1", "::1"] '
                          'or ["10.0.0.0/24"]')


def trusted_proxies(values: object) -> tuple[str, ...]:
    """Each address or network of ``values``, stripped; ``ValueError`` naming the first that is
    not one (the configuration check adds the file, the key and :data:`PROXIES_ALLOWED`)."""
    if not isinstance(values, list) or len(values) > 32:
        raise ValueError(f"{_shown(values)} is not a list of up to 32")
    for value in values:
        try:
            if not isinstance(value, str) or len(value) > 64:
                raise ValueError(value)
            ipaddress.ip_network(value.strip(), strict=False)
        except ValueError:
            raise ValueError(f"{_shown(value)} is not an address or a network") from None
    return tuple(v.strip() for v in values)


def _shown(value: object) -> str:
    """A value short, as the file wrote it (a list or a table named, not shown)."""
    if isinstance(value, list | dict):
        return "a list" if isinstance(value, list) else "a table"
    return repr(value)[:40]
