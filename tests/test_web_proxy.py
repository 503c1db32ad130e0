"""The web view behind a reverse proxy, on a crowded network (docs/web.md#behind-a-tls-proxy):
who the admin is when a proxy on the Pi connects from 127.0.0.1, whose address the throttles
and the stream caps count, the cookie's ``Secure`` over TLS, and event streams that a HEAD, a
half-close or a stray byte must free at once. Real HTTP, raw sockets, a real uvicorn server on
loopback; the stream tests wait on the server's own count of open streams."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from web_harness import API_KEY, PLAYERS, Client, WebDaemon, web_daemon

from sim.hardware.ptys import sim_config
from table.errors import TableError
from table.runtime.config import load_config
from table.web.proxy import Proxies, forwarded_elements, parse_proxies
from table.web.stream import PER_DEVICE

# What each proxy sends about a client at 198.51.100.7 that reached it over https.
PROXY_HEADERS = {
    "caddy": {"X-Forwarded-For": "198.51.100.7", "X-Forwarded-Proto": "https",
              "X-Forwarded-Host": "uno.example"},
    "traefik": {"X-Forwarded-For": "198.51.100.7", "X-Forwarded-Proto": "https",
                "X-Real-Ip": "198.51.100.7", "X-Forwarded-Host": "uno.example"},
    "rfc7239": {"Forwarded": 'for=198.51.100.7;proto=https;host="uno.example"'},
    "nginx": {"X-Real-IP": "198.51.100.7", "X-Forwarded-Proto": "https"},
}


@pytest.fixture
def local(tmp_path: Path) -> Iterator[WebDaemon]:
    """The default local admin, no proxy named: a proxy on the Pi the user did not declare."""
    folder = tmp_path / "local"
    folder.mkdir()
    with web_daemon(folder) as t:
        yield t


@pytest.fixture
def proxied(tmp_path: Path) -> Iterator[WebDaemon]:
    """A proxy on the Pi, named in ``trusted_proxies``; its throttles' clock held still."""
    folder = tmp_path / "proxied"
    folder.mkdir()
    with web_daemon(folder, 'trusted_proxies = ["127.0.0.1", "::1"]') as t:
        t.web.key_tries.clock = t.web.seat_tries.clock = lambda: 0.0
        yield t


# --- the admin behind a proxy ---------------------------------------------------------------


@pytest.mark.parametrize("proxy", sorted(PROXY_HEADERS))
def test_a_proxy_on_the_pi_makes_no_one_the_local_admin(local: WebDaemon, proxied: WebDaemon,
                                                         proxy: str) -> None:
    """With the default local_admin, a proxy's request from 127.0.0.1 was the admin's: every
    seat link (every hand) and the voice test. Trusted or not, a proxied request is not."""
    headers = PROXY_HEADERS[proxy]
    for table in (local, proxied):
        status, body = table.client.get("/api/admin/status", headers)
        assert status == 401, (proxy, body)
        assert table.client.post("/api/admin/new-match", {}, headers)[0] == 401
        for token in table.web.seats.tokens:
            assert token not in str(body)
        # The key still works through the proxy; the Pi's own browser (no proxy headers)
        # is still the admin when no proxy runs on loopback.
        assert table.client.get("/api/admin/status", {**headers, "X-Api-Key": API_KEY})[0] \
            == 200
    assert local.client.get("/api/admin/status")[0] == 200


def test_a_trusted_proxy_on_the_pi_is_never_the_local_admin_even_without_headers(
        proxied: WebDaemon) -> None:
    """nginx sends no forwarding header unless told to: every request from a trusted
    proxy's address is proxied."""
    assert proxied.client.get("/api/admin/status")[0] == 401


def test_through_a_trusted_proxy_one_guesser_locks_out_only_itself(proxied: WebDaemon) -> None:
    """All proxied devices came from 127.0.0.1: one bucket, so one guesser locked out
    everyone. The trusted proxy's header names each device."""
    guesser = {"X-Forwarded-For": "198.51.100.66"}
    for _ in range(10):
        assert proxied.client.get("/api/admin/status",
                                  {**guesser, "X-Api-Key": "wrong-key-wrong"})[0] == 403
    assert proxied.client.get("/api/admin/status", {**guesser, "X-Api-Key": API_KEY})[0] == 429
    for headers in ({"X-Forwarded-For": "198.51.100.7"}, {"X-Real-IP": "198.51.100.8"},
                    {"Forwarded": "for=198.51.100.9"},
                    {"Forwarded": 'for="[2001:db8:cafe::17]:4711"'}):
        assert proxied.client.get("/api/admin/status", {**headers, "X-Api-Key": API_KEY})[0] \
            == 200, headers


def test_an_untrusted_sender_cannot_pick_its_own_bucket(tmp_path: Path) -> None:
    """A device that is no trusted proxy writes X-Forwarded-For to dodge its lock-out: the
    header counts for nothing; and a client's own header to the left of the proxy's is not
    believed either."""
    with web_daemon(tmp_path, 'local_admin = false\ntrusted_proxies = ["127.0.0.2"]') as t:
        t.web.key_tries.clock = lambda: 0.0
        for n in range(10):
            assert t.client.get("/api/admin/status", {"X-Api-Key": "wrong-key-wrong",
                                                      "X-Forwarded-For": f"10.9.9.{n}"})[0] \
                == 403
        assert t.client.get("/api/admin/status", {"X-Api-Key": API_KEY,
                                                  "X-Forwarded-For": "10.9.9.99"})[0] == 429
        proxy = Client(t.port, source="127.0.0.2")
        # The proxy appends the locked-out device (127.0.0.1) to what that device wrote.
        spoof = {"X-Forwarded-For": "10.9.9.99, 127.0.0.1", "X-Api-Key": API_KEY}
        assert proxy.get("/api/admin/status", spoof)[0] == 429


def test_trusted_proxies_are_checked_in_the_configuration(tmp_path: Path) -> None:
    path = tmp_path / "table.toml"
    (tmp_path / "pad").symlink_to("/dev/null")  # the play pad's port: a character device
    for value, error in (('"127.0.0.1"', "not a list"), ('["a-proxy"]', "not an address"),
                         ('["10.0.0.0/33"]', "not an address"), ("[1]", "not an address")):
        path.write_text(sim_config(PLAYERS, extra=f"\n[web]\ntrusted_proxies = {value}\n"),
                        encoding="utf-8")
        with pytest.raises(TableError, match=rf"web\.trusted_proxies: .*{error}"):
            load_config(path)
    path.write_text(sim_config(PLAYERS, extra='\n[web]\ntrusted_proxies = ["::1", '
                               '"10.0.0.0/24"]\n'), encoding="utf-8")
    assert load_config(path).web_trusted_proxies == ("::1", "10.0.0.0/24")


@given(st.text(max_size=200))
def test_any_forwarded_header_is_parsed_without_error(text: str) -> None:
    proxies = Proxies(parse_proxies(["127.0.0.1"]))
    scope = {"type": "http", "client": ("127.0.0.1", 5), "scheme": "http",
             "headers": [(b"forwarded", text.encode("utf-8", "replace")),
                         (b"x-forwarded-for", text.encode("utf-8", "replace"))]}
    client = proxies.client(scope)
    assert client.proxied
    forwarded_elements([text])


def test_rfc7239_forwarded_is_read_from_the_right() -> None:
    proxies = Proxies(parse_proxies(["127.0.0.1", "10.0.0.0/8"]))

    def who(value: str) -> tuple[str, bool]:
        scope = {"type": "http", "client": ("127.0.0.1", 5), "scheme": "http",
                 "headers": [(b"forwarded", value.encode())]}
        client = proxies.client(scope)
        return client.address, client.https

    assert who('for=192.0.2.60;proto=https;by=203.0.113.43') == ("192.0.2.60", True)
    assert who('for=6.6.6.6, for=192.0.2.61;proto=http, for=10.1.2.3') == ("192.0.2.61", False)
    assert who('For="[2001:db8:cafe::17]:4711"') == ("2001:db8:cafe::17", False)
    assert who('for=unknown') == ("127.0.0.1", False)


def test_a_clients_own_forwarded_header_does_not_outrank_the_proxys() -> None:
    """nginx and Caddy set X-Forwarded-For and pass a client's Forwarded on as it came:
    read first, it would let each try pick a fresh throttle."""
    proxies = Proxies(parse_proxies(["127.0.0.1"]))
    scope = {"type": "http", "client": ("127.0.0.1", 5), "scheme": "http",
             "headers": [(b"forwarded", b"for=10.9.9.9;proto=https"),
                         (b"x-real-ip", b"10.8.8.8"),
                         (b"x-forwarded-for", b"10.7.7.7, 198.51.100.7"),
                         (b"x-forwarded-proto", b"http")]}
    client = proxies.client(scope)
    assert (client.address, client.https) == ("198.51.100.7", False)


# --- Secure cookies -------------------------------------------------------------------------


def login_cookie(client: Client, headers: dict[str, str]) -> str:
    import json

    status, got, _ = client.request("POST", "/api/admin/login",
                                    json.dumps({"key": API_KEY}).encode(),
                                    {"Content-Type": "application/json", **headers})
    assert status == 200
    return got["set-cookie"]


@pytest.mark.parametrize("headers", [{"X-Forwarded-Proto": "https"},
                                     {"Forwarded": "for=198.51.100.7;proto=https"}])
def test_a_login_over_tls_sets_a_secure_cookie(proxied: WebDaemon, local: WebDaemon,
                                                headers: dict[str, str]) -> None:
    for table in (proxied, local):
        cookie = login_cookie(table.client, headers)
        assert "; secure" in cookie.lower() and "httponly" in cookie.lower(), cookie
    plain = login_cookie(local.client, {})
    assert "secure" not in plain.lower()  # plain HTTP on the LAN: a Secure cookie is not kept


def test_a_direct_tls_connection_is_https_without_a_proxy() -> None:
    """The table's server may be run behind nothing but TLS of its own (an ASGI server with a
    certificate): its cookies must say Secure too, and plain HTTP must not."""
    proxies = Proxies(())
    for scheme, https in (("https", True), ("wss", True), ("http", False)):
        scope = {"type": "http", "client": ("192.0.2.9", 5), "scheme": scheme, "headers": []}
        client = proxies.client(scope)
        assert (client.address, client.proxied, client.https) == ("192.0.2.9", False, https)


# --- event streams ----------------------------------------------------------------------------


def stream_open(port: int, method: str = "GET", source: str = "127.0.0.1") -> socket.socket:
    """An event stream's request on a raw socket, its response head read."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=30, source_address=(source, 0))
    sock.sendall(f"{method} /api/events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(4096)
        assert chunk, head
        head += chunk
    assert head.startswith(b"HTTP/1.1 200"), head
    return sock


def test_head_and_half_closed_streams_are_freed_at_once(local: WebDaemon) -> None:
    """HEAD, read the headers, send one byte, close: 500 of those held every slot for good
    (a HEAD's stream never failed a write, and the byte stopped uvicorn reading). The server's
    own count of open streams comes back to nothing, well inside the keep-alive's 15 s."""
    feed, port = local.web.feed, local.port
    for method in ("HEAD", "GET"):
        socks = [stream_open(port, method) for _ in range(8)]
        for sock in socks:
            sock.sendall(b"x")
            sock.close()
    half = [stream_open(port) for _ in range(4)]
    for sock in half:
        sock.shutdown(socket.SHUT_WR)
    assert feed.wait_pages(lambda n: n == 0, 10.0), f"{feed.pages} streams still held"
    for sock in half:
        sock.close()
    page = stream_open(port)  # a real page is served, and held
    assert feed.wait_pages(lambda n: n == 1, 10.0)
    page.close()


def test_a_stray_byte_with_the_request_frees_the_stream_too(local: WebDaemon) -> None:
    feed, port = local.web.feed, local.port
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(f"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\nx".encode())
        sock.recv(4096)
        assert feed.wait_pages(lambda n: n == 0, 10.0)
        sock.settimeout(10)
        while sock.recv(4096):  # the server closed it
            pass


def test_one_device_cannot_take_every_stream(local: WebDaemon) -> None:
    """505 streams from one address took all 500 slots; another device's TV got 503."""
    port = local.port
    mine = [stream_open(port, source="127.0.0.5") for _ in range(PER_DEVICE)]
    with socket.create_connection(("127.0.0.1", port), timeout=30,
                                  source_address=("127.0.0.5", 0)) as extra:
        extra.sendall(f"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
        assert extra.recv(4096).startswith(b"HTTP/1.1 429")
    other = stream_open(port, source="127.0.0.6")  # another device: served
    for sock in [*mine, other]:
        sock.close()
    assert local.web.feed.wait_pages(lambda n: n == 0, 10.0)


def test_streams_through_a_trusted_proxy_are_capped_per_client(proxied: WebDaemon) -> None:
    port = proxied.port

    def through(client: str) -> bytes:
        sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        socks.append(sock)
        sock.sendall(f"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                     f"X-Forwarded-For: {client}\r\n\r\n".encode())
        return sock.recv(4096)

    socks: list[socket.socket] = []
    for _ in range(PER_DEVICE):
        assert through("198.51.100.7").startswith(b"HTTP/1.1 200")
    assert through("198.51.100.7").startswith(b"HTTP/1.1 429")
    assert through("198.51.100.8").startswith(b"HTTP/1.1 200")
    for sock in socks:
        sock.close()
    assert proxied.web.feed.wait_pages(lambda n: n == 0, 10.0)


def test_the_hubs_standings_page_tells_the_clients_of_its_proxy_apart(tmp_path: Path) -> None:
    """`uno-table hub --web PORT --trusted-proxy ADDRESS`: behind a proxy, one viewer's
    streams are capped, not everyone's."""
    from mqtt_harness import free_port

    from table.hub.config import HubPlan
    from table.hub.page import serve
    from table.hub.service import Hub
    from table.hub.store import HubStore
    from table.mqtt.settings import MqttSettings

    hub = Hub(MqttSettings("127.0.0.1", free_port()), HubStore(tmp_path / "hub.sqlite3"),
              HubPlan())
    page = serve(hub, 0, "127.0.0.1", proxies=Proxies(parse_proxies(["127.0.0.1"])))
    socks: list[socket.socket] = []

    def through(client: str) -> bytes:
        sock = socket.create_connection(("127.0.0.1", page.port), timeout=30)
        socks.append(sock)
        sock.sendall(f"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                     f"X-Forwarded-For: {client}\r\n\r\n".encode())
        return sock.recv(4096)

    try:
        for _ in range(PER_DEVICE):
            assert through("198.51.100.7").startswith(b"HTTP/1.1 200")
        assert through("198.51.100.7").startswith(b"HTTP/1.1 429")
        assert through("198.51.100.8").startswith(b"HTTP/1.1 200")
    finally:
        for sock in socks:
            sock.close()
        page.close()
        hub.close()
