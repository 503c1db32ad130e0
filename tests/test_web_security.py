"""The web view under attack from its own network (docs/web.md#security): a foreign Host (DNS
rebinding), another site's page posting, guessed keys, logins and seat links, headers that
are not what they claim, half-sent requests by the thousand and a log flood, over real HTTP to
a real daemon (and, for the descriptors, a server in a process of its own)."""

from __future__ import annotations

import json
import logging
import os
import re
import socket
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from web_harness import API_KEY, PLAYERS, Client, WebDaemon, web_daemon

from sim.hardware.ptys import sim_config
from table.errors import TableError
from table.runtime.config import load_config
from table.web.guard import host_of
from table.web.limits import ACCEPT_BURST, IN_FLIGHT, SPARE_FILES, LogLimit


@pytest.fixture
def table(tmp_path: Path) -> Iterator[WebDaemon]:
    """A daemon whose admin page needs the key (no local admin), its throttles' clock held
    still: no try is ever given back while a test runs."""
    with web_daemon(tmp_path, 'local_admin = false\nhosts = ["uno.lan"]') as t:
        t.web.key_tries.clock = t.web.seat_tries.clock = lambda: 0.0
        yield t


@pytest.fixture
def local(tmp_path: Path) -> Iterator[WebDaemon]:
    """A daemon with the default local admin: the Pi itself needs no key."""
    with web_daemon(tmp_path) as t:
        yield t


def raw(port: int, request: bytes, source: str = "127.0.0.1") -> tuple[int, bytes]:
    """One request sent as bytes; the status and the body (as much as its Content-Length
    says; an event stream's: what came with its headers)."""
    with socket.create_connection(("127.0.0.1", port), timeout=30,
                                  source_address=(source, 0)) as sock:
        sock.sendall(request)
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
        head, _, body = data.partition(b"\r\n\r\n")
        length = re.search(rb"(?im)^content-length: *([0-9]+)", head)
        while length is not None and len(body) < int(length.group(1)):
            chunk = sock.recv(65536)
            if not chunk:
                break
            body += chunk
        return int(head.split(b" ", 2)[1]), body


# --- Host and Origin ------------------------------------------------------------------------


def test_a_foreign_host_gets_nothing_not_even_from_the_pi_itself(local: WebDaemon) -> None:
    """DNS rebinding: a page on evil.example re-points its name at the Pi and reads the
    admin status (every seat's link) from a browser on the Pi, which local_admin lets in."""
    port = local.port
    status, body = raw(port, b"GET /api/admin/status HTTP/1.1\r\nHost: evil.example\r\n\r\n")
    assert status == 400 and b"evil.example" in body and b"/seat/" not in body
    for token in local.web.seats.tokens:
        assert token.encode() not in body
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", "localhost", f"[::1]:{port}",
                 socket.gethostname()):
        request = f"GET /api/admin/status HTTP/1.1\r\nHost: {host}\r\n\r\n".encode()
        assert raw(port, request)[0] == 200, host


def test_the_configured_hosts_and_the_address_reached_are_answered(table: WebDaemon) -> None:
    port = table.port
    for host, status in ((f"uno.lan:{port}", 200), ("UNO.LAN", 200), ("uno.lan.evil", 400),
                         ("127.0.0.2", 200), ("10.9.8.7", 400), ("uno.lan:99999", 400),
                         ("uno lan", 400), ("", 400)):
        request = f"GET /api/state HTTP/1.1\r\nHost: {host}\r\n\r\n".encode()
        assert raw(port, request)[0] == status, host


def test_another_sites_page_cannot_press_log_in_or_run_an_admin_action(
        table: WebDaemon) -> None:
    assert table.tap("R5#1")["verdict"] == "accepted"
    before = table.inputs()
    client, key = table.client, {"X-Api-Key": API_KEY}
    for evil in ({"Origin": "http://evil.example"}, {"Origin": "null"},
                 {"Origin": f"http://127.0.0.1:{table.port}.evil.example"},
                 {"Sec-Fetch-Site": "cross-site"}):
        status, body = client.post("/api/admin/undo", {}, {**key, **evil})
        assert status == 403 and "another site" in body["error"], evil
        press = {"token": table.token(1), "button": "draw", "id": "x-1"}
        assert client.post("/api/press", press, evil)[0] == 403
        assert client.post("/api/admin/login", {"key": API_KEY}, evil)[0] == 403
    assert table.inputs() == before
    same = {"Origin": f"http://127.0.0.1:{table.port}", "Sec-Fetch-Site": "same-origin"}
    assert client.post("/api/admin/undo", {}, {**key, **same})[0] == 202
    assert client.get("/api/state", {"Origin": "http://evil.example"})[0] == 200  # reads: CORS


@given(st.text(max_size=40))
def test_host_of_takes_only_a_host_and_a_port(text: str) -> None:
    host = host_of(text)
    assert host is None or (host.isascii() and host == host.lower() and " " not in host)


# --- credentials: per client, never for everyone -------------------------------------------


def test_ten_wrong_logins_lock_out_that_device_only(table: WebDaemon) -> None:
    client = table.client
    for _ in range(10):
        assert client.post("/api/admin/login", {"key": "not the key at all"})[0] == 403
    status, headers, data = client.request("POST", "/api/admin/login",
                                           json.dumps({"key": API_KEY}).encode(),
                                           {"Content-Type": "application/json"})
    assert status == 429 and int(headers["retry-after"]) >= 1 and b"wait" in data
    other = Client(table.port, source="127.0.0.2")
    assert other.post("/api/admin/login", {"key": API_KEY})[0] == 200


def test_wrong_api_keys_are_throttled_per_device(table: WebDaemon) -> None:
    client = table.client
    for _ in range(10):
        assert client.get("/api/admin/status", {"X-Api-Key": "wrong-key-wrong"})[0] == 403
    assert client.get("/api/admin/status", {"X-Api-Key": "wrong-key-wrong"})[0] == 429
    assert client.get("/api/admin/status", {"X-Api-Key": API_KEY})[0] == 429
    assert client.request("GET", "/admin", headers={"X-Api-Key": API_KEY})[0] == 429
    other = Client(table.port, source="127.0.0.3")
    assert other.get("/api/admin/status", {"X-Api-Key": API_KEY})[0] == 200


def test_guessed_seat_links_are_throttled_per_device(table: WebDaemon) -> None:
    client = table.client
    for n in range(30):
        assert client.get(f"/api/seat/{'g' * 21}{n % 10}")[0] == 403
    assert client.get(f"/api/seat/{table.token(0)}")[0] == 429
    assert client.request("GET", f"/seat/{table.token(0)}")[0] == 429
    press = {"token": table.token(0), "button": "draw", "id": "a-1"}
    assert client.post("/api/press", press)[0] == 429
    other = Client(table.port, source="127.0.0.4")
    assert other.get(f"/api/seat/{table.token(0)}")[0] == 200


# --- strict parsing ---------------------------------------------------------------------------


def test_a_unicode_digit_in_last_event_id_starts_a_new_page(table: WebDaemon) -> None:
    """``"²".isdigit()`` is true and ``int("²")`` fails: the id is not one of ours, and the
    page starts afresh (on the hub's pages too: they use the same stream)."""
    epoch = table.web.feed.epoch.encode()
    for bad in (epoch + b"-\xb2", epoch + b"-\xb9\xb2", b"x" * 65, b"a b", epoch + b"-\xbd"):
        request = b"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\nLast-Event-ID: " + bad
        with socket.create_connection(("127.0.0.1", table.port), timeout=30) as sock:
            sock.sendall(request + b"\r\n\r\n")
            with sock.makefile("rb") as stream:
                assert b" 200 " in stream.readline(), bad
                text = b""
                while b'"type":"snapshot"' not in text:
                    line = stream.readline()
                    assert line, bad
                    text += line
    status, _ = raw(table.port, b"GET /api/events?last_event_id=%C2%B2 HTTP/1.0\r\n\r\n")
    assert status == 200


HEADER_VALUE = st.binary(max_size=30).filter(lambda b: b"\r" not in b and b"\n" not in b)


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(name=st.sampled_from([b"Last-Event-ID", b"Content-Length", b"Content-Type", b"Cookie",
                             b"X-Api-Key", b"Origin", b"Host"]),
       value=HEADER_VALUE,
       path=st.sampled_from([b"/api/press", b"/api/admin/login", b"/api/admin/undo"]))
def test_no_header_value_gets_a_500(table: WebDaemon, name: bytes, value: bytes,
                                    path: bytes) -> None:
    body = b'{"key": "x"}'
    head = b"POST " + path + b" HTTP/1.1\r\nContent-Type: application/json\r\n"
    if name != b"Host":
        head += b"Host: 127.0.0.1\r\n"
    if name != b"Content-Length":
        head += b"Content-Length: %d\r\n" % len(body)
    request = head + name + b": " + value + b"\r\nConnection: close\r\n\r\n" + body
    status, _ = raw(table.port, request, source=f"127.0.1.{1 + len(value)}")
    assert 200 <= status < 500


def test_the_listen_address_takes_ascii_digits_only() -> None:
    from table.web.server import WebError, parse_listen

    for text in ("127.0.0.1:²", "٨٠", "127.0.0.1:8O80"):
        with pytest.raises(WebError, match="not a port"):
            parse_listen(text)


def test_hosts_in_the_configuration_are_names(tmp_path: Path) -> None:
    path = tmp_path / "table.toml"
    (tmp_path / "pad").symlink_to("/dev/null")  # the play pad's port: a character device
    for value, error in (('"uno.lan"', "not a list"), ('["evil example"]', "not a host name"),
                         ("[5]", "not a host name"), ('["-x"]', "not a host name")):
        path.write_text(sim_config(PLAYERS, extra=f"\n[web]\nhosts = {value}\n"),
                        encoding="utf-8")
        with pytest.raises(TableError, match=f"web.hosts: .*{error}"):
            load_config(path)
    path.write_text(sim_config(PLAYERS, extra='\n[web]\nhosts = ["Uno.Lan", "10.0.0.5"]\n'),
                    encoding="utf-8")
    assert load_config(path).web_hosts == ("uno.lan", "10.0.0.5")


# --- connections: a cap, a deadline, a quiet log ------------------------------------------------


def partial(port: int, count: int) -> list[socket.socket]:
    """``count`` connections that each send half a request and nothing more."""
    held = []
    for _ in range(count):
        sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        held.append(sock)
    return held


def closed_by_server(sock: socket.socket) -> bool:
    """Whether the server has closed ``sock`` (waits for it, at most the socket's timeout)."""
    try:
        return sock.recv(1) == b""
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False


def test_half_sent_requests_make_room_for_a_real_one(table: WebDaemon) -> None:
    server = table.attachment.server
    server.connection.cap = 20
    held = partial(table.port, 40)
    try:
        status, body = table.client.get("/api/state")
        assert status == 200 and "state" in body
        assert all(closed_by_server(sock) for sock in held[:20])  # the oldest made room
    finally:
        for sock in held:
            sock.close()


def test_a_request_head_not_sent_in_time_is_closed(table: WebDaemon) -> None:
    server = table.attachment.server
    server.connection.header_timeout = 0.2
    kept = Client(table.port, keep=True)
    assert kept.get("/api/info")[0] == 200  # a browser's kept connection, idle between requests
    (slow,) = partial(table.port, 1)
    try:
        assert closed_by_server(slow)
        assert kept.get("/api/info")[0] == 200  # the idle one is left to keep-alive
    finally:
        slow.close()


SERVER = textwrap.dedent("""
    import resource, sys
    resource.setrlimit(resource.RLIMIT_NOFILE, (512, 512))
    from sim.tabletop.web_people import start_web
    from sim.tabletop.virtual import SimTable
    from table.rules import make_options
    import logging
    logging.basicConfig(level=logging.WARNING)
    table = SimTable(make_options("official"), ["Aki", "Ken", "Mio"], 1, hands="full")
    server, _ = start_web(table, "127.0.0.1:0", plays_cards=False)
    print(server.port, server.max_connections, flush=True)
    sys.stdin.read()
    server.stop()
""")


def test_a_thousand_half_requests_at_512_descriptors_starve_no_one(tmp_path: Path) -> None:
    """Slowloris against a server with 512 descriptors: 1,100 connections that never finish
    their request; a new page is still served, and the log does not fill."""
    log = tmp_path / "server.log"
    with log.open("w") as err:
        proc = subprocess.Popen([sys.executable, "-c", SERVER], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=err, text=True,
                                env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        assert proc.stdout is not None
        port, cap = map(int, proc.stdout.readline().split())
        assert cap == 512 - SPARE_FILES - IN_FLIGHT * ACCEPT_BURST
        held = partial(port, 1100)
        try:
            status, body = Client(port).get("/api/state")
            assert status == 200 and "state" in body
        finally:
            for sock in held:
                sock.close()
        assert Client(port).get("/api/info")[0] == 200
    finally:
        proc.communicate("", timeout=30)
    text = log.read_text(encoding="utf-8")
    assert "Too many open files" not in text and text.count("\n") < 50, text[-2000:]


def test_the_same_complaint_is_logged_a_few_times_a_minute(
        caplog: pytest.LogCaptureFixture) -> None:
    logger = logging.getLogger("test.flood")
    limit = LogLimit(burst=5, window=3600.0)
    logger.addFilter(limit)
    try:
        with caplog.at_level(logging.WARNING, logger="test.flood"):
            for n in range(1000):
                logger.warning("socket.accept() out of system resource: %d", n)
            logger.warning("something else")
    finally:
        logger.removeFilter(limit)
    assert [r.getMessage() for r in caplog.records] == [
        *(f"socket.accept() out of system resource: {n}" for n in range(5)), "something else"]
    limit.window = 0.0  # the minute is over: the next one says what was left out
    logger.addFilter(limit)
    try:
        with caplog.at_level(logging.WARNING, logger="test.flood"):
            logger.warning("socket.accept() out of system resource: %d", 1000)
    finally:
        logger.removeFilter(limit)
    assert caplog.records[-1].getMessage().endswith("(the same 995 more times, not shown)")

