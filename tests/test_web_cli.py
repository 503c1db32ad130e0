"""``uno-table demo --web PORT`` and ``uno-table sim --web PORT`` as people start them: one
``seat NAME: URL`` line per seat before play, QR codes on a terminal, each printed link a seat
page (200) and any other token refused (403), the public API without a token, and in ``sim`` a
person's whole move made from the seat's page."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest
from test_sim_terminal import Terminal, ctrl_c_heard
from web_harness import Client, Sse

SEAT_LINE = re.compile(r"^seat (\w+): (http://127\.0\.0\.1:(\d+)/seat/([\w-]+))$", re.M)
NOT_PLAY = re.compile(r"'s turn|plays|draws")  # words of a game under way


def seats_of(text: str) -> dict[str, str]:
    return {m[1]: m[2] for m in SEAT_LINE.finditer(text)}


def check_links(seats: dict[str, str]) -> Client:
    """Every printed link is a seat page; a token one character off, or from nowhere, is not."""
    port = int(urlsplit(next(iter(seats.values()))).port or 0)
    client = Client(port)
    for url in seats.values():
        path = urlsplit(url).path
        status, headers, body = client.request("GET", path)
        assert status == 200 and b"<html" in body, url
        assert headers["referrer-policy"] == "no-referrer"
        token = path.rsplit("/", 1)[1]
        near = token[:-1] + ("A" if token[-1] != "A" else "B")
        assert client.request("GET", f"/seat/{near}")[0] == 403
    assert client.request("GET", "/seat/" + "x" * 22)[0] == 403
    status, state = client.get("/api/state")
    assert status == 200 and set(state["scores"]) == set(seats)
    return client


def test_the_demo_prints_each_seats_link_and_code_before_it_deals() -> None:
    """At a terminal: the seat lines, a QR code per seat, the other pages' addresses, then a
    wait for Enter (time to scan) before the first card."""
    term = Terminal("demo", "--fast", "--web", "127.0.0.1:0", "--rounds", "1",
                    "--voice", "captions", "--players", "3")
    try:
        before = term.read_until("press Enter to deal: ")
        seats = seats_of(before)
        assert list(seats) == ["Aki", "Ken", "Mio"]
        assert not NOT_PLAY.search(before), before
        codes = before.split("table view:")[0].split("\n\n")[1:]
        assert len(codes) == 3 and all(c.count("\u2580") + c.count("\u2588") > 100
                                       for c in codes), before
        client = check_links(seats)
        stream = Sse(client.port)
        assert stream.next()[1]["type"] == "snapshot"
        term.type("")
        played = term.read_until("Ctrl-C to stop")
        assert "1 round played" in played
        stream.until("announcement", key="round-won")
        check_links(seats)  # the same match: the same links, still served
        term.proc.send_signal(signal.SIGINT)
        assert "stopped." in term.read_until("stopped.")
        assert term.close() == 0
        stream.close()
    finally:
        if term.proc.poll() is None:
            term.proc.kill()


@pytest.fixture
def sim() -> Iterator[subprocess.Popen[str]]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "table.commands.cli", "sim", "--fast", "--web", "127.0.0.1:0",
         "--players", "3", "--people", "2", "--voice", "captions", "--seed", "2"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=ctrl_c_heard)
    yield proc
    if proc.poll() is None:
        proc.kill()
    proc.wait(20)


def test_sim_prints_the_people_s_links_and_plays_a_move_from_a_seat_page(
        sim: subprocess.Popen[str]) -> None:
    """Not a terminal: the seat lines without codes, the first of them before any other line
    of the table; then the first person's turn played from their page."""
    assert sim.stdout is not None
    lines = [sim.stdout.readline()]
    while not lines[-1].startswith("table view:"):
        lines.append(sim.stdout.readline())
        assert lines[-1], "".join(lines)
    text = "".join(lines)
    seats = seats_of(text)
    assert list(seats) == ["Sam", "Aki", "Ken"]
    assert lines[0].startswith("uno-table sim:") and SEAT_LINE.match(lines[1]), text
    assert "\u2580" not in text  # no QR codes in a pipe
    client = check_links(seats)
    stream = Sse(client.port)
    assert stream.next()[1]["type"] == "snapshot"
    people = {name: urlsplit(seats[name]).path.rsplit("/", 1)[1] for name in ("Sam", "Aki")}
    while (turn := client.get("/api/state")[1]["state"]["turn"]) not in people:
        stream.until("state")  # the bot's turn, or the deal still going
    token = people[turn]
    mine = client.get(f"/api/seat/{token}")[1]
    assert mine["mine"] and mine["seat"] == turn
    playable = [c["code"] for c in mine["hand"] if c["playable"]]
    press: dict[str, str] = {"token": token, "id": "p-1"}
    if playable:
        press |= {"button": "play", "card": playable[0]}
        if playable[0].startswith("W"):
            press["color"] = "red"
    else:
        press["button"] = "draw"
    assert client.post("/api/press", press)[0] == 202
    # Done at the table by its hands: a tap on the play pad, or a card from the shoe.
    held = len(mine["hand"]) + (1 if press["button"] == "draw" else -1)
    while len((after := client.get(f"/api/seat/{token}")[1])["hand"]) != held:
        stream.until("state")
    if press["button"] == "play":  # that card left the hand (the next seat may be on it)
        codes = [c["code"] for c in after["hand"]]
        assert codes.count(press["card"]) == [c["code"] for c in mine["hand"]].count(
            press["card"]) - 1
    assert json.dumps(after).count('"code"') == held  # that seat's cards only
    sim.send_signal(signal.SIGINT)
    assert sim.wait(20) == 130
