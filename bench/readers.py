"""Cost of one poll of an MFRC522 reader, measured on the register model of sim/ with the real
``mfrc522`` package: SPI transfers (what a poll costs the bus, whatever the Pi) and the host's
CPU time and wall time per poll (the driver, plus the model standing in for the chip; the wall
time of a poll nobody answers is mostly the chip's timer, about 2.5 ms as the backend sets it).

    python bench/readers.py [--polls 200]
    python bench/readers.py --noise harsh [--placements 10000] [--seed 1]

Compares the backend's poll (``read_uid``: request, anticollision and select per cascade
level, halt) with 0.0.7's own request on an empty pad.

With ``--noise``, a table of four pads (the play pad with its pile, the shoe, two seats) on a
simulated clock, every chip with that level of radio noise and polled by the real backend, and
cards placed as people do (see ``sim/hardware/placements.py``): placement-to-verdict p50 and p99
for the real placements (confirmation included), real placements missed, and reads that were
not a placement (ghosts that would have become verdicts), as one JSON object.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from typing import Any

from sim.hardware.mfrc522_model import VirtualTag
from sim.hardware.rpi_fakes import SimBoard, simulated_pi


def measure(port: Any, polls: int, poll: Callable[[], object]) -> tuple[float, float, float]:
    """Transfers, CPU milliseconds and wall milliseconds per poll."""
    before, cpu, wall = port.transfers, time.process_time(), time.perf_counter()
    for _ in range(polls):
        poll()
    per = 1000 / polls
    return (
        (port.transfers - before) / polls,
        (time.process_time() - cpu) * per,
        (time.perf_counter() - wall) * per,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--polls", type=int, default=200)
    parser.add_argument("--noise", choices=("off", "realistic", "harsh"))
    parser.add_argument("--placements", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.noise:
        from sim.hardware.placements import run

        print(json.dumps(run(args.noise, args.placements, args.seed)))
        return
    board = SimBoard()
    chip = board.add_chip(ce=0)
    with simulated_pi(board):
        from table.readers.mfrc522_reader import Mfrc522Reader, read_uid

        reader = Mfrc522Reader("pad", lambda report: None)
        chip_driver, port = reader.chip, reader.port
        rows = []
        print(f"{args.polls} polls each", flush=True)
        rows.append(("0.0.7 MFRC522_Request, empty pad", *measure(
            port, max(args.polls // 10, 5), lambda: chip_driver.MFRC522_Request(0x26)
        )))  # fmt: skip
        rows.append(
            ("read_uid, empty pad", *measure(port, args.polls, lambda: read_uid(chip_driver)))
        )
        for label, uid in (("4-byte UID", "04A1B2C3"), ("7-byte UID", "04112233445566")):
            tag = VirtualTag.of(uid)

            def new_card(tag: VirtualTag = tag) -> bytes | None:
                chip.place(tag)  # a card put on the pad before each poll
                found: bytes | None = read_uid(chip_driver)
                chip.remove(tag)
                return found

            assert new_card() == bytes.fromhex(uid)
            rows.append((f"read_uid, new card ({label})", *measure(port, args.polls, new_card)))
        chip.place(VirtualTag.of("04A1B2C3"))
        read_uid(chip_driver)  # read, then halted: it rests on the pad
        rows.append(("read_uid, card resting (halted)", *measure(
            port, args.polls, lambda: read_uid(chip_driver)
        )))  # fmt: skip
        reader.stop()
    print("| poll | SPI transfers | host CPU ms | wall ms |")
    print("|---|---:|---:|---:|")
    for label, transfers, cpu, wall in rows:
        print(f"| {label} | {transfers:,.0f} | {cpu:.2f} | {wall:.1f} |")


if __name__ == "__main__":
    main()
