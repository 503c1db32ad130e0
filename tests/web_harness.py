"""The web view's tests: a real server on a loopback port in front of a real table (an
in-process daemon on a pty play pad, or the simulator), and plain HTTP and SSE clients."""

from __future__ import annotations

import http.client
import json
import queue
import re
import socket
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sim.hardware.ptys import PtyReader, sim_config
from table.cards import parse_card
from table.commands.daemon import WebAttachment
from table.errors import TableError
from table.journal.store import read_journal
from table.referee.registry import Deck, Token, deck_toml, virtual_deck
from table.runtime.config import load_config
from table.runtime.daemon import Daemon

PLAYERS = ("Aki", "Ken", "Mio")
API_KEY = "correct-horse-battery"
DECK = virtual_deck()

Event = dict[str, Any]


def uid(code: str) -> str:
    """The virtual deck's UID of a card copy (``R5#1``) or a token (``token:undo``)."""
    tag: Any = Token(code[6:]) if code.startswith("token:") else None
    if tag is None:
        tag = next(t for t in DECK.tags.values() if getattr(t, "code", None) == code)
    found = DECK.uid_of(tag)
    assert found is not None, code
    return found


class Client:
    """Plain HTTP to the server: one request a connection (as a phone on and off Wi-Fi), or
    with ``keep`` one connection for all (as a browser)."""

    def __init__(self, port: int, keep: bool = False, source: str | None = None) -> None:
        self.port = port
        self.source = (source, 0) if source else None  # another loopback: another device
        self.kept = self._connect() if keep else None

    def _connect(self) -> http.client.HTTPConnection:
        # A guard against a hang, not a wait: /stats answers when its build (a child process at
        # a low priority, so slow on a busy machine) is done.
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=120,
                                          source_address=self.source)

    def request(self, method: str, path: str, body: bytes | None = None,
                headers: Mapping[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
        conn = self.kept or self._connect()
        try:
            conn.request(method, path, body=body, headers=dict(headers or {}))
            response = conn.getresponse()
            data = response.read()
            return response.status, {k.lower(): v for k, v in response.getheaders()}, data
        finally:
            if self.kept is None:
                conn.close()

    def get(self, path: str, headers: Mapping[str, str] | None = None) -> tuple[int, Any]:
        status, _, data = self.request("GET", path, headers=headers)
        return status, json.loads(data)

    def post(self, path: str, data: object, headers: Mapping[str, str] | None = None
             ) -> tuple[int, Any]:
        status, _, raw = self.request("POST", path, json.dumps(data).encode(),
                                      {"Content-Type": "application/json", **(headers or {})})
        return status, json.loads(raw)


class Sse:
    """An SSE client reading in a thread of its own: frames wait in a queue."""

    def __init__(self, port: int, last_event_id: str | None = None, rcvbuf: int = 0,
                 read: bool = True) -> None:
        self.sock = socket.socket()
        if rcvbuf:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        self.sock.connect(("127.0.0.1", port))
        head = f"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        if last_event_id:
            head += f"Last-Event-ID: {last_event_id}\r\n"
        self.sock.sendall((head + "\r\n").encode())
        self.frames: queue.Queue[tuple[str | None, dict[str, Any]] | None] = queue.Queue()
        if read:
            threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        buffer = b""
        with self.sock.makefile("rb") as stream:
            status = stream.readline()
            assert b" 200 " in status, status
            while stream.readline() not in (b"\r\n", b""):
                pass  # the headers
            try:
                for chunk in _chunks(stream):
                    buffer += chunk
                    while b"\n\n" in buffer:
                        block, buffer = buffer.split(b"\n\n", 1)
                        frame = _frame(block.decode())
                        if frame is not None:
                            self.frames.put(frame)
            except (OSError, ValueError):
                pass
        self.frames.put(None)

    def next(self, timeout: float = 20.0) -> tuple[str | None, dict[str, Any]]:
        try:
            frame = self.frames.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no event within {timeout} s") from None
        if frame is None:
            raise AssertionError("the stream ended")
        return frame

    def until(self, kind: str, **fields: Any) -> list[tuple[str | None, dict[str, Any]]]:
        """The frames up to the first of ``kind`` with ``fields``, that one included."""
        seen = []
        while True:
            frame = self.next()
            seen.append(frame)
            data = frame[1]
            if data["type"] == kind and all(data.get(k) == v for k, v in fields.items()):
                return seen

    def ended(self, timeout: float = 20.0) -> bool:
        """Whether the server ends the stream (every frame before the end is dropped)."""
        while True:
            try:
                if self.frames.get(timeout=timeout) is None:
                    return True
            except queue.Empty:
                return False

    def close(self) -> None:
        self.sock.close()


def _chunks(stream: Any) -> Iterator[bytes]:
    """The body of a chunked HTTP response, chunk by chunk."""
    while True:
        size = int(stream.readline().strip() or b"0", 16)
        if size == 0:
            return
        yield stream.read(size)
        stream.readline()


def _frame(block: str) -> tuple[str | None, dict[str, Any]] | None:
    event_id, data = None, None
    for line in block.split("\n"):
        if line.startswith("id: "):
            event_id = line[4:]
        elif line.startswith("data: "):
            data = json.loads(line[6:])
    return None if data is None else (event_id, data)


class WebDaemon:
    """A daemon in this process on a pty play pad, serving the web view as ``[web]`` says;
    its events (every one, public or not) in a queue."""

    def __init__(self, folder: Path, web: str = "", rules: str = 'preset = "official"',
                 deck: Deck | None = None) -> None:
        self.pad = PtyReader(folder / "pad")
        extra = f'\n[web]\nenabled = true\nlisten = "127.0.0.1:0"\napi_key = "{API_KEY}"\n{web}'
        path = folder / "table.toml"
        config = sim_config(PLAYERS, rules, extra=extra)
        if deck is not None:  # a deck file of its own instead of the virtual deck
            (folder / "deck.toml").write_text(deck_toml(deck), encoding="utf-8")
            config = config.replace('file = "virtual"', 'file = "deck.toml"')
        path.write_text(config, encoding="utf-8")
        self.config = load_config(path)
        self.attachment = WebAttachment(self.config)
        self.daemon = Daemon(self.config, None)
        self.detach = self.attachment(self.daemon)
        # A request for the report waits for its build (tests/test_web_stats.py checks the
        # page a request gets when the build takes longer than the table waits).
        self.attachment.server.web.stats.wait = 600.0
        # Told after the web's feed: an event seen here has reached the web already.
        self.events: queue.Queue[Event] = queue.Queue()
        self.daemon.stream.subscribe(self.events.put)
        self.daemon.start()
        self.wait("ready")
        self.port = self.attachment.server.port
        self.client = Client(self.port)

    @property
    def web(self) -> Any:
        return self.attachment.server.web

    def token(self, seat: int) -> str:
        return str(self.web.seats.tokens[seat])

    def wait(self, kind: str, **fields: Any) -> Event:
        """The next event of ``kind`` with ``fields``, within 20 s in all (other events keep
        coming meanwhile: the readers' states, the clock's ticks)."""
        until = time.monotonic() + 20
        while True:
            try:
                event = self.events.get(timeout=max(0.0, until - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"no {kind} event {fields} within 20 s") from None
            if event["type"] == kind and all(event.get(k) == v for k, v in fields.items()):
                return event

    def tap(self, code: str) -> Event:
        """Tap a card or token on the play pad; its verdict."""
        self.pad.send_uid(uid(code))
        return self.wait("verdict", input="tag")

    def press(self, at: int, button: str, press_id: str, **extra: Any) -> tuple[int, Any]:
        """A press from the page of seat ``at``."""
        return self.client.post("/api/press", {"token": self.token(at), "button": button,
                                               "id": press_id, **extra})

    def inputs(self) -> int:
        return int(self.daemon.inputs)

    def journaled(self) -> list[Any]:
        """The journal's matches once every input queued so far is written: the flush runs in
        the referee's thread, in turn with the inputs (the journal is that thread's alone)."""
        done = threading.Event()

        def flush() -> None:
            self.daemon.journal.flush()
            done.set()

        self.daemon.loop.call(flush)
        assert done.wait(20), "the referee did not get to the flush within 20 s"
        return read_journal(self.config.journal_path)

    def close(self) -> None:
        self.detach()
        self.daemon.stop()
        self.pad.close()


@contextmanager
def web_daemon(folder: Path, web: str = "", rules: str = 'preset = "official"',
               deck: Deck | None = None) -> Iterator[WebDaemon]:
    table = WebDaemon(folder, web, rules, deck)
    try:
        yield table
    finally:
        table.close()


# Card codes as tokens of text: R5, G+2, YS, BR, W, W+4, WSH, WC.
CODE = re.compile(r"(?<![A-Za-z0-9+#])(?:[RYGB](?:\+2|[0-9SR])|W\+4|WSH|WC|W)(?![A-Za-z0-9+])")


def card_codes(text: str) -> set[str]:
    """The card codes that appear in ``text`` as words of their own."""
    found = set()
    for match in CODE.findall(text):
        try:
            found.add(parse_card(match).code)
        except TableError:
            continue
    return found


def codes_outside_top(value: Any, key: str = "") -> set[str]:
    """The card codes in a JSON value anywhere but as the value of a ``top`` key."""
    if isinstance(value, dict):
        return set().union(*(codes_outside_top(v, k) for k, v in value.items()), *(
            card_codes(k) for k in value))
    if isinstance(value, list):
        return set().union(*(codes_outside_top(v) for v in value))
    if isinstance(value, str) and key != "top":
        return card_codes(value)
    return set()
