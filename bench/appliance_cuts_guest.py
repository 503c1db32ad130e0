"""The power-cut scenario's side inside the guest, run by the installed venv's python (so the
table's own code opens every file): ``check`` after each boot, ``send`` for the hub's cycles.

    python appliance_cuts_guest.py check STATE     one JSON line: what opens, and what it holds
    python appliance_cuts_guest.py send MATCH N    N results of MATCH to the broker on 1883, one
                                                   at a time, QoS 1
    python appliance_cuts_guest.py config         the cycles' configuration of the table
    python appliance_cuts_guest.py cycle MODE STATE MATCH
                                                   ``check``, then the cycle's command: the
                                                   daemon (tap, ro), enroll, the hub, or the
                                                   damaged copy of the journal in STATE/repair
                                                   opened as the daemon opens it (repair)

``check`` opens, in STATE (the folder the cut cycles keep their files in): the daemon's journal
(read back as ``status`` reads it, with what was kept beside it) and its outbox, the deck file
``enroll`` writes, the copy of the journal the repair cycles damage and repair (opened as the
daemon opens it), and the hub's store. A file that does not open is named under ``unopenable``
with its error; a file not made yet is no file to open.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import threading
import time
from pathlib import Path
from typing import Any

from table.files.durable import sync_folder
from table.journal.outbox import Outbox
from table.journal.reading import read_journal
from table.journal.store import Journal
from table.referee.registry import load_deck


def _seat(pad: str) -> str:
    return "" if pad == "pad" else f'\nseat = "{pad.removesuffix("-pad").title()}"'


SEATS = {"Aki": (2, 3, 14, 5), "Ken": (15, 16, 17, 6), "Mio": (18, 19, 20, 12),
         "Yui": (21, 22, 23, 13)}  # the example's uno, draw, pass and LED pins
# The installed example made the cut cycles' (the maker's steps of docs/building.md): the
# bridge's port as the guest's kernel names it (no udev under the lean init, so no by-path
# link), the play pad on the bridge (a guest has no SPI bus), the virtual deck, the buttons on
# gpiozero's mock pins, the voice as captions (no sound card), no web view (the verdicts leave
# on the console), the journal in the cut cycles' folder.
CUTS_CONFIG = f"""[board]
model = "pi4"
audio = "jack"

[table]
players = {json.dumps(list(SEATS))}
language = "en"

[rules]
preset = "official"
target = 0

[deck]
file = "virtual"

[voice]
backend = "captions"

[journal]
path = "/var/lib/uno-cuts/journal.sqlite3"

[web]
enabled = false
""" + "".join(f"""
[[readers]]
name = "{name}"
role = "{'play' if channel == 0 else 'seat'}"{_seat(name)}
kind = "bridge"
port = "/dev/ttyUSB0"
channel = {channel}
""" for channel, name in enumerate(("pad", "aki-pad", "ken-pad", "mio-pad"))) + """
[controls]
pin_factory = "mock"
buzzer = 4
""" + "".join(f"""
[controls.seats.{seat}]
uno = {pins[0]}
draw = {pins[1]}
pass = {pins[2]}
led = {pins[3]}
""" for seat, pins in SEATS.items())


def _try(found: dict[str, Any], name: str, path: Path, open_it: Any) -> Any:
    if not path.exists():
        return None
    try:
        return open_it(path)
    except Exception as exc:  # whatever stops it opening is what the run counts
        found["unopenable"].append(f"{name}: {path}: {type(exc).__name__}: {exc}")
        return None


def _journal(path: Path) -> dict[str, int]:
    return {str(m.id): len(m.inputs) for m in read_journal(path)}


def _outbox(path: Path) -> list[int]:
    box = Outbox(path)
    try:
        return list(box.counts())
    finally:
        box.close()


def _repaired(path: Path) -> int:
    store = Journal(path, preallocate=False)
    try:
        return int(store.db.execute("SELECT COUNT(*) FROM entries").fetchone()[0])
    finally:
        store.close()


def _hub(path: Path) -> list[str]:
    from table.hub.store import HubStore  # the hub's extra: only where the hub runs

    store = HubStore(path, create=False)
    try:
        return [str(r["id"]) for r in store.results()]
    finally:
        store.close()


def check(state: Path) -> dict[str, Any]:
    """Every file of the cut cycles opened; what each holds."""
    found: dict[str, Any] = {"unopenable": []}
    found["journal"] = _try(found, "journal", state / "journal.sqlite3", _journal)
    found["outbox"] = _try(found, "outbox", state / "journal.sqlite3", _outbox)
    deck = _try(found, "deck file", state / "deck.toml", load_deck)
    found["deck"] = sorted(deck.tags) if deck is not None else None
    found["repair"] = _try(found, "repaired journal", state / "repair" / "journal.sqlite3",
                           _repaired)
    found["hub"] = _try(found, "hub store", state / "hub.sqlite3", _hub)
    return found


def result(match: str, rnd: int) -> dict[str, Any]:
    """Round ``rnd`` of a two-player match on table 2, as a table publishes it."""
    return {"id": f"2/{match}/{rnd}", "table": "2", "match": match, "round": rnd,
            "players": ["Aki", "Ken"], "winner": "Aki", "points": {"Aki": 30, "Ken": 0},
            "totals": {"Aki": 30 * rnd, "Ken": 0}, "scoring": "international",
            "match_over": False, "match_winner": None}


def send(match: str, count: int) -> None:
    """``count`` results to the broker, each after the broker took the one before, from the
    moment the hub is online (it has subscribed then: the broker hands it every result, in the
    order sent, so the host can tell which round each of the hub's acknowledgements is for)."""
    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion

    online = threading.Event()
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"cuts-table-{match}")
    client.on_message = lambda _c, _u, m: online.set() if m.payload == b"online" else None
    client.on_connect = lambda c, *_: c.subscribe("uno-table/hub/availability", qos=1)
    while True:
        try:
            client.connect("127.0.0.1", 1883)
            break
        except OSError:
            time.sleep(0.2)  # the broker is starting
    client.loop_start()
    online.wait()
    for rnd in range(1, count + 1):
        body = json.dumps(result(match, rnd))
        client.publish("uno-table/2/result", body, qos=1).wait_for_publish(60)
    client.disconnect()
    client.loop_stop()


def cycle(mode: str, state: Path, match: str) -> int:
    """One cycle in one Python process (each start costs seconds under TCG): the files checked
    and reported on the console, then the cycle's command of the table."""
    from table.commands.cli import main as table

    config = Path("/tmp/uno-cuts.toml")
    config.write_text(CUTS_CONFIG, encoding="utf-8")
    print(f"UNO-CUT-CHECK {json.dumps(check(state))}", flush=True)
    print("UNO-CUT-START", flush=True)
    if mode in ("tap", "ro", "wear"):
        return table(["run", "--config", str(config), "--events", "/dev/ttyS0"])
    if mode == "enroll":
        return table(["enroll", "--out", str(state / "deck.toml"), "--config", str(config),
                      "--reader", "pad"])
    if mode == "hub":  # a table's results sent from this process too: one Python start
        threading.Thread(target=send, args=(match, 60), daemon=True).start()
        return table(["hub", "--mqtt", "127.0.0.1:1883", "--store", str(state / "hub.sqlite3")])
    if mode == "repair":
        damaged = damage(state)
        print("UNO-CUT-REPAIR", flush=True)
        print(f"repaired: {_repaired(damaged)} rows", flush=True)
    return 0


def damage(state: Path) -> Path:
    """A copy of the journal (with its WAL) in ``state``/repair, its second page overwritten
    with noise and synced: a journal the next open must repair."""
    folder = state / "repair"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir()
    for suffix in ("", "-wal"):
        source = state / f"journal.sqlite3{suffix}"
        if source.exists():
            shutil.copyfile(source, folder / source.name)
            with open(folder / source.name, "r+b") as f:
                if not suffix:
                    f.seek(4096)
                    f.write(os.urandom(4096))
                    f.flush()
                os.fsync(f.fileno())
    copy = folder / "journal.sqlite3"
    sync_folder(folder)
    sync_folder(state)
    return copy


def main(argv: list[str]) -> int:
    """The command line above."""
    if argv[:1] == ["check"] and len(argv) == 2:
        print(json.dumps(check(Path(argv[1]))), flush=True)
    elif argv[:1] == ["cycle"] and len(argv) == 4:
        return cycle(argv[1], Path(argv[2]), argv[3])
    elif argv[:1] == ["send"] and len(argv) == 3:
        send(argv[1], int(argv[2]))
    elif argv[:1] == ["config"] and len(argv) == 1:
        print(CUTS_CONFIG, end="")
    elif argv in (["--help"], ["-h"]):
        print(f"usage: {__doc__}")
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
