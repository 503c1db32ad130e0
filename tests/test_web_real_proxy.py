"""The table behind a real TLS proxy on the same machine, configured as docs/web.md says:
nginx and Caddy (Debian's packages), each with a self-signed certificate, in front of a real
daemon. Through either: nobody is the local admin, the key still works, the admin cookie says
``Secure``, one device's wrong keys lock out that device only, and the event stream flows."""

from __future__ import annotations

import http.client
import ipaddress
import json
import shutil
import socket
import ssl
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from mqtt_harness import free_port
from web_harness import API_KEY, Client, WebDaemon, web_daemon

NGINX = """daemon off;
pid {folder}/nginx.pid;
error_log {folder}/error.log;
worker_processes 1;
events {{ }}
http {{
  access_log off;
  client_body_temp_path {folder}/tmp; proxy_temp_path {folder}/tmp;
  fastcgi_temp_path {folder}/tmp; uwsgi_temp_path {folder}/tmp; scgi_temp_path {folder}/tmp;
  server {{
    listen 127.0.0.1:{port} ssl;
    ssl_certificate {folder}/cert.pem;
    ssl_certificate_key {folder}/key.pem;
    location / {{
      proxy_pass http://127.0.0.1:{table};
      proxy_bind 127.0.0.2;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_set_header X-Real-IP $remote_addr;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto $scheme;
      proxy_buffering off;
      proxy_read_timeout 1h;
    }}
  }}
}}
"""

CADDY = """{{
  admin off
  auto_https off
  storage file_system {folder}/data
}}
https://127.0.0.1:{port} {{
  tls {folder}/cert.pem {folder}/key.pem
  reverse_proxy 127.0.0.1:{table}
}}
"""


def certificate(folder: Path) -> None:
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", str(folder / "key.pem"), "-out", str(folder / "cert.pem")],
                   check=True, capture_output=True, timeout=120)


def listening(port: int, proc: subprocess.Popen[bytes], log: Path) -> None:
    """Wait until the proxy accepts connections (or has ended: then say why)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(log.read_text(errors="replace") if log.exists() else "ended")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.05)  # polling the port: the proxy tells nothing else when it is up
    raise AssertionError("the proxy did not listen within 60 s")


@pytest.fixture(params=["nginx", "caddy"])
def behind(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[WebDaemon, int]]:
    """A daemon behind the proxy named by the parameter (its default local admin kept); the
    proxy's TLS port."""
    kind = request.param
    if shutil.which(kind) is None:
        pytest.fail(f"{kind} not found: install it (.ci/sysdeps.sh test)")
    trusted = '["127.0.0.2"]' if kind == "nginx" else '["127.0.0.1"]'
    (tmp_path / "table").mkdir()
    with web_daemon(tmp_path / "table", f"trusted_proxies = {trusted}") as table:
        table.web.key_tries.clock = lambda: 0.0
        folder = tmp_path / kind
        (folder / "tmp").mkdir(parents=True)
        certificate(folder)
        port = free_port()
        text = (NGINX if kind == "nginx" else CADDY).format(folder=folder, port=port,
                                                            table=table.port)
        config = folder / ("nginx.conf" if kind == "nginx" else "Caddyfile")
        config.write_text(text, encoding="utf-8")
        log = folder / "error.log"
        command = (["nginx", "-p", str(folder), "-c", str(config), "-e", str(log)]
                   if kind == "nginx" else
                   ["caddy", "run", "--config", str(config), "--adapter", "caddyfile"])
        with log.open("wb") as out:
            proc = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT,
                                    env={"HOME": str(folder), "PATH": "/usr/sbin:/usr/bin:/bin",
                                         "XDG_DATA_HOME": str(folder / "data"),
                                         "XDG_CONFIG_HOME": str(folder / "data")})
        try:
            listening(port, proc, log)
            yield table, port
        finally:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:  # Caddy's grace period waits for open streams
                proc.kill()
                proc.wait(30)


def unverified() -> ssl.SSLContext:
    """A TLS client that takes the test's own self-signed certificate."""
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context


def through(port: int, method: str, path: str, body: object = None,
            headers: dict[str, str] | None = None, source: str = "127.0.0.5"
            ) -> tuple[int, dict[str, str], bytes]:
    """One request through the proxy's TLS port, from the device at ``source``."""
    conn = http.client.HTTPSConnection("127.0.0.1", port, timeout=60, context=unverified(),
                                       source_address=(source, 0))
    try:
        data = None if body is None else json.dumps(body).encode()
        sent = {"Content-Type": "application/json"} if data is not None else {}
        conn.request(method, path, body=data, headers={**sent, **(headers or {})})
        response = conn.getresponse()
        return (response.status, {k.lower(): v for k, v in response.getheaders()},
                response.read())
    finally:
        conn.close()


def test_through_a_real_proxy_nobody_is_the_local_admin(behind: tuple[WebDaemon, int]) -> None:
    table, port = behind
    status, _, body = through(port, "GET", "/api/admin/status")
    assert status == 401, body
    assert all(token.encode() not in body for token in table.web.seats.tokens)
    assert through(port, "GET", "/api/admin/status", headers={"X-Api-Key": API_KEY})[0] == 200
    if table.web.proxies.trusts(ipaddress.ip_address("127.0.0.1")):
        return  # Caddy connects from 127.0.0.1, as a browser on the Pi does
    assert Client(table.port).get("/api/admin/status")[0] == 200  # nginx: proxy_bind 127.0.0.2


def test_through_a_real_proxy_the_cookie_is_secure_and_throttles_are_per_device(
        behind: tuple[WebDaemon, int]) -> None:
    port = behind[1]
    status, headers, _ = through(port, "POST", "/api/admin/login", {"key": API_KEY})
    assert status == 200 and "secure" in headers["set-cookie"].lower(), headers
    for n in range(10):  # each with an address of its own choosing, which the proxy passes on
        assert through(port, "POST", "/api/admin/login", {"key": "wrong-key-wrong"},
                       {"Forwarded": f"for=10.9.9.{n}", "X-Real-IP": f"10.8.8.{n}"})[0] == 403
    assert through(port, "POST", "/api/admin/login", {"key": API_KEY},
                   {"Forwarded": "for=10.9.9.99"})[0] == 429
    assert through(port, "POST", "/api/admin/login", {"key": API_KEY},
                   source="127.0.0.6")[0] == 200


def test_through_a_real_proxy_the_stream_flows(behind: tuple[WebDaemon, int]) -> None:
    table, port = behind
    raw = socket.create_connection(("127.0.0.1", port), timeout=60)
    with unverified().wrap_socket(raw) as sock:
        sock.sendall(f"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
        data = b""
        while b'"type":"snapshot"' not in data:
            chunk = sock.recv(65536)
            assert chunk, data
            data += chunk
        assert data.startswith(b"HTTP/1.1 200")
        assert table.web.feed.wait_pages(lambda n: n == 1, 30)
    # Both pass the page's close on at once. (Caddy with `flush_interval -1` did only when it
    # next wrote to the page, 45 s; and it cut responses short under load: docs/web.md.)
    assert table.web.feed.wait_pages(lambda n: n == 0, 30)
