"""Benchmark of the firmware bridge.

1. Board side: the firmware's own measure of a full poll of its four readers (Timer1, 4 us
   resolution, sent in every heartbeat), run on the simulated board, with no tag, four 4-byte
   UIDs, four 7-byte UIDs and four 10-byte UIDs. Times are simulated microseconds of a 16 MHz
   ATmega328P with the MFRC522s at 106 kbit/s; the target is under 30 ms. Beside them, the SPI
   bytes a full poll exchanges with the four chips (the board model counts them).
2. Host side: the time from a tag frame's bytes to the read event (decoder, message table,
   board state, sink), over many frames, without a port.
3. End to end: from a tag placed on the simulated board to the read event in the backend
   (this includes the wait for the next poll, every 50 ms).

    python bench/bridge.py [--samples N]
"""

from __future__ import annotations

import argparse
import queue
import random
import statistics
import tempfile
import time
from pathlib import Path

from firmware_bridge.codec import encode
from firmware_bridge.messages import pack
from sim.hardware.avr_board import AvrBoard
from table.inputs import Report, TagRead
from table.readers.bridge import BridgePort

CASES = {
    "no tag": [],
    "four 4-byte UIDs": ["04A1B2C3", "04A1B2C4", "04A1B2C5", "04A1B2C6"],
    "four 7-byte UIDs": ["04112233445566", "04112233445567", "04112233445568", "04112233445569"],
    "four 10-byte UIDs": ["04112233445566778899", "0411223344556677889A",
                          "0411223344556677889B", "0411223344556677889C"],
}


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p * (len(ordered) - 1)))]


def wait(condition: object, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise TimeoutError("the simulated board stopped answering")
        time.sleep(0.01)


def board_side(samples: int) -> None:
    print("| tags on the four readers | poll min ms | poll max ms | SPI bytes a poll |")
    print("|---|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        link = Path(tmp) / "bridge"
        with AvrBoard(link) as board:
            port = BridgePort(str(link))
            reports: queue.Queue[Report] = queue.Queue()
            for ch in range(4):
                port.attach(ch, f"r{ch}", reports.put)
            try:
                wait(lambda: port.board.identified)
                for name, uids in CASES.items():
                    for ch in range(4):
                        board.remove(ch)
                    for ch, uid in enumerate(uids):
                        board.place(ch, uid)
                    wait(lambda uids=uids: sum(p is not None for p in port.board.present)
                         == len(uids))
                    polls: list[float] = []
                    seen = port.board.heartbeats
                    wait(lambda seen=seen: port.board.heartbeats > seen)
                    seen, before = port.board.heartbeats, board.spi()
                    while len(polls) < samples:
                        wait(lambda seen=seen: port.board.heartbeats > seen)
                        seen = port.board.heartbeats
                        polls.append(port.board.poll_us / 1000)
                    after = board.spi()
                    count = sum(a[0] - b[0] for a, b in zip(after, before, strict=True))
                    rounds = max(1, after[0][1] - before[0][1])  # reader 0's REQAs: the polls
                    print(f"| {name} | {min(polls):.1f} | {max(polls):.1f} | "
                          f"{count / rounds:.0f} |")
                end_to_end(board, port, reports, samples)
            finally:
                for ch in range(4):
                    port.detach(ch)


def end_to_end(board: AvrBoard, port: BridgePort, reports: queue.Queue[Report],
               samples: int) -> None:
    for ch in range(4):
        board.remove(ch)
    wait(lambda: port.board.present == [None] * 4)
    while not reports.empty():
        reports.get_nowait()
    lat: list[float] = []
    rng = random.Random(1)
    for i in range(samples):
        time.sleep(rng.uniform(0, 0.05))  # land anywhere in the board's 50 ms poll period
        t0 = time.perf_counter()
        board.place(0, f"04{i:06X}")
        while not isinstance(reports.get(timeout=10), TagRead):
            pass
        lat.append((time.perf_counter() - t0) * 1000)
        board.remove(0)
        wait(lambda: port.board.present[0] is None)
    print(f"\nEnd to end, tag placed to read event ({samples} tags): "
          f"p50 {pct(lat, 0.5):.0f} ms, p95 {pct(lat, 0.95):.0f} ms")


def host_side(count: int) -> None:
    port = BridgePort("unused")
    stamps: list[float] = []
    port.attach(0, "pad", lambda report: stamps.append(time.perf_counter()), transport=False)
    info = pack("info", protocol=1, fw_major=1, fw_minor=0, reset_cause=0, readers=4,
                uptime_ms=1, chips=bytes([0x92] * 4))
    port.feed(encode(info))
    frames = [encode(pack("tag", seq=(i + 1) % 256, reader=0, placement=i % 256,
                          uid=(0x04000000 + i).to_bytes(7, "big"))) for i in range(count)]
    times: list[float] = []
    for frame in frames:
        t0 = time.perf_counter()
        port.feed(frame)
        times.append((stamps[-1] - t0) * 1e6)
    print(f"\nHost side, tag frame bytes to read event ({count} frames): "
          f"p50 {statistics.median(times):.1f} us, p95 {pct(times, 0.95):.1f} us")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=10, help="polls per case (default 10)")
    args = parser.parse_args()
    board_side(args.samples)
    host_side(10_000)


if __name__ == "__main__":
    main()
