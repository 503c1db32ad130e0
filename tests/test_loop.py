"""The referee's thread: inputs from several threads, in order, and a loop that never dies."""

from __future__ import annotations

import threading

from pad_table import pad_referee, refereed, uid

from table.inputs import Input, TagRead, Tick
from table.referee.referee import Outcome, Referee
from table.runtime.loop import TableLoop


def make_referee() -> Referee:
    return pad_referee("R1 R2 W", "R3 R4 B1")


def test_inputs_from_threads_are_refereed_in_queue_order() -> None:
    ref = make_referee()
    seen: list[tuple[Input, Outcome]] = []
    loop = TableLoop(refereed(ref, lambda i, o: seen.append((i, o))), tick_every=60)
    loop.start()
    plays = ["R1#1", "R3#1", "R2#1", "R4#1"]
    for code in plays:
        t = threading.Thread(target=loop.put, args=(TagRead("pad", uid(ref, code)),))
        t.start()
        t.join()
    loop.stop()
    assert [o.verdict for _, o in seen] == ["accepted"] * 4
    assert ref.state.top is not None and ref.state.top.code == "R4"


def test_a_failing_listener_does_not_stop_the_referee() -> None:
    ref = make_referee()
    calls: list[str] = []

    def listener(item: Input, outcome: Outcome) -> None:
        calls.append(outcome.verdict)
        if len(calls) == 1:
            raise RuntimeError("display unplugged")

    loop = TableLoop(refereed(ref, listener), tick_every=60)
    loop.start()
    loop.put(TagRead("pad", uid(ref, "R1#1")))
    loop.put(TagRead("pad", uid(ref, "R3#1")))
    loop.stop()
    assert calls == ["accepted", "accepted"]


def test_ticks_come_when_nothing_happens() -> None:
    ref = make_referee()
    got = threading.Event()
    times = iter(range(1000))

    def listener(item: Input, outcome: Outcome) -> None:
        if isinstance(item, Tick):
            got.set()

    loop = TableLoop(refereed(ref, listener), tick_every=0.01, clock=lambda: float(next(times)))
    loop.start()
    assert got.wait(5)
    loop.stop()
