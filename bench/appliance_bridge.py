"""The appliance's bridge scenario: the bridge as a Pi sees it, a USB serial device, plugged in
late, pulled out and plugged in again mid-round.

The installed guest boots without its bridge (the service starts at boot, as on a Pi that boots
before its USB bridge enumerates). Seen from the host through the daemon's web event stream:
the play pad is ``waiting`` and the table says so once (``reader-waiting``). The bridge is
then plugged in (QMP ``device_add`` of qemu's USB serial device, whose character device is the
bridge's firmware running in simavr) and a card is put on the play pad at once: the seconds
from the device's appearing in the guest (its kernel's ``attached to ttyUSB0``, the guest's
clock) to that tap's verdict (the daemon's event time, the same clock) are ``late_device_s``
(the issue's bound: 5 s; ``late_plug_host_s`` counts from ``device_add`` on the host). Then a
round of taps, the bridge pulled out (``device_del``) and plugged in again halfway: every
input is numbered once, none missing, none twice (``replug_ok``). ``taps_per_s``: taps, each
put on the pad after the previous verdict was seen on the host, over their seconds.
"""

from __future__ import annotations

import json
import re
import time
from typing import Any

from appliance import Run
from appliance_table import STATE, VENV, EventFeed, GuestTable
from guest import GuestError

from sim.players.scripted import scripted_taps

PACKAGES: tuple[str, ...] = ()
PLAYERS = ("Aki", "Ken", "Mio", "Yui")
TAPS = 40
LATE_BOUND_S = 5.0


def is_reader(state: str) -> Any:
    """A match for the play pad's ``reader`` event in ``state``."""
    return lambda e: e.get("type") == "reader" and e.get("reader") == "pad" and \
        e.get("state") == state


def said(feed: EventFeed, key: str, reader: str = "pad") -> int:
    """How many times the table said ``key`` of ``reader`` (its name a word of the text, so
    ``aki-pad`` is not ``pad``): its announcements on the stream (replayed from the stream's
    start), else the captions of the snapshot a page first gets."""
    named = re.compile(rf"(?<![\w-]){re.escape(reader)}(?![\w-])")
    events = [e for e in feed.events if e.get("type") == "announcement" and e.get("key") == key]
    if not events:
        snapshots = [e for e in feed.events if e.get("type") == "snapshot"]
        events = snapshots[0].get("captions", []) if snapshots else []
    return sum(e.get("key") == key and bool(named.search(str(e.get("text", ""))))
               for e in events)


def tap(table: GuestTable, feed: EventFeed, uid: str, timeout: float = 30.0
        ) -> dict[str, Any] | None:
    """A card put on the play pad (the previous one taken off): its verdict, or None."""
    assert table.board is not None
    start = len(feed.events)
    table.board.remove(0)
    table.board.place(0, uid)
    return feed.wait(lambda e: e.get("type") == "verdict" and e.get("reader") == "pad",
                     timeout, start)


def attached_at(guest: Any) -> float | None:
    """When the guest's kernel attached the bridge as ``ttyUSB0`` (its clock, Unix seconds,
    the clock of the daemon's events), or None."""
    _, out, _ = guest.run("journalctl -k -o short-unix --no-pager | grep 'attached to ttyUSB' "
                          "| tail -n 1", 30)
    match = re.match(r"\s*([0-9]+\.[0-9]+)", out)
    return float(match.group(1)) if match else None


# The kinds of the last match's inputs in the guest's journal, in order (input n is the n-th):
# the web stream leaves lifts out (table/web/feed.py's PUBLIC), the journal has them all.
JOURNAL_KINDS = (
    f"{VENV}/bin/python -c 'import json; "
    "from table.journal.reading import read_journal; "
    "from table.journal.records import input_kind; "
    f"m = read_journal(\"{STATE}/journal.sqlite3\")[-1]; "
    "print(json.dumps([input_kind(i) for i in m.inputs]))'")


def numbered_once(feed: EventFeed, kinds: list[str]) -> tuple[bool, dict[str, Any]]:
    """Every input of the match numbered once: 1 to the last, none missing, none twice; and,
    when not, the numbers missing or twice with the types of the events that carry a number.
    ``kinds``: the journal's inputs in order; a lift there is no event on the web stream, so
    its number is not missing."""
    numbers = [e["n"] for e in feed.events if e.get("type") in ("verdict", "lift")]
    numbers += [n for n, kind in enumerate(kinds, start=1) if kind == "lift"]
    last = max(numbers, default=0)
    ok = bool(numbers) and sorted(numbers) == list(range(1, max(last, len(kinds)) + 1))
    if ok:
        return True, {}
    missing = sorted(set(range(1, max(last, len(kinds)) + 1)) - set(numbers))
    twice = sorted({n for n in numbers if numbers.count(n) > 1})
    carried = [f"{e.get('type')}:{e.get('n')}" for e in feed.events if "n" in e]
    return False, {"replug_missing": missing, "replug_twice": twice,
                   "replug_events": carried[-60:], "replug_journal": len(kinds)}


def scenario(run: Run) -> dict[str, Any]:
    """Late plug, replug, taps per second: the fields of the last line."""
    found: dict[str, Any] = {"late_device_ok": None, "late_device_s": None, "replug_ok": None,
                             "taps_per_s": None}
    if run.installed is None:
        run.say("bridge: no installed guest (the install scenario did not finish): not run")
        return found
    uids = [uid for _, uid in scripted_taps(PLAYERS, TAPS + 1, seed=3)]
    with GuestTable(run) as table:
        feed = table.follow()
        guest, _ = run.boot(**table.options(plugged=False))
        try:
            if feed.wait(is_reader("waiting"), 120) is None:
                raise GuestError("the play pad was never `waiting` on the web event stream")
            time.sleep(2.0)  # a few re-open tries: it must still have been said once
            waiting_said = said(feed, "reader-waiting")
            plugged_at = time.monotonic()
            table.plug(guest)
            first = tap(table, feed, uids[0], 60)
            if first is not None:
                found["late_plug_host_s"] = round(first["seen_at"] - plugged_at, 2)
                appeared = attached_at(guest)
                if appeared is not None and "t" in first:
                    found["late_device_s"] = round(first["t"] - appeared, 2)
            found["late_device_ok"] = (waiting_said == 1 and found["late_device_s"] is not None
                                       and found["late_device_s"] <= LATE_BOUND_S)
            run.say(f"bridge: waiting said {waiting_said} time(s); first tap refereed "
                    f"{found['late_device_s']} s after the device appeared in the guest "
                    f"({found.get('late_plug_host_s')} s after the plug, seen from the host)")
            half = TAPS // 2
            lost = [uid for uid in uids[1:half + 1] if tap(table, feed, uid) is None]
            table.unplug(guest)
            gone = feed.wait(is_reader("lost"), 30) is not None
            mark = len(feed.events)
            table.plug(guest)
            back = feed.wait(is_reader("live"), 60, mark) is not None
            began = time.monotonic()
            lost += [uid for uid in uids[half + 1:] if tap(table, feed, uid) is None]
            seconds = time.monotonic() - began
            found["taps_per_s"] = round((TAPS - half) / seconds, 2)
            kinds = json.loads(guest.check(JOURNAL_KINDS, 120) or "[]")
            once, why = numbered_once(feed, kinds)
            found.update(why)
            found["replug_ok"] = gone and back and not lost and once
            run.say(f"bridge: unplugged ({'lost' if gone else 'not seen'}), plugged again "
                    f"({'live' if back else 'not seen'}); {len(lost)} taps without a verdict; "
                    f"{found['taps_per_s']} taps/s")
            guest.poweroff()
        except GuestError as exc:
            run.say(f"bridge: {exc}")
            guest.kill()
        finally:
            guest.close()
    return found
