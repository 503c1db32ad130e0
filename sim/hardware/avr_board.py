"""The simulated bridge board: builds the firmware and the board program, and runs them.

``python -m sim.hardware.avr_board --link PATH`` builds what is out of date, then runs the board
with its serial port reachable at PATH (a symlink to a pty) and its commands on stdin (``place
READER UIDHEX``, ``remove READER [UIDHEX]``, ``brownout READER``, ``reg READER HEXADDR``,
``version READER HEX``, ``spi``, ``overlaps``, ``reset``,
``noise N``, ``freeze``, ``thaw``, ``quit``).
Tests and benchmarks use :class:`AvrBoard`, which sends the same commands and waits for each
to be acknowledged.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import os
import queue
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType

import firmware_bridge
from table.errors import TableError

SIM_DIR = Path(__file__).resolve().parent
BOARD_SOURCE = SIM_DIR / "avr_board.c"
BOARD_BINARY = SIM_DIR / "build" / "avr_board"
FIRMWARE_DIR = Path(firmware_bridge.__file__).resolve().parent / "firmware"
FIRMWARE_ELF = FIRMWARE_DIR / "build" / "bridge.elf"
SIMAVR_INCLUDE = Path("/usr/include/simavr")
SIMAVR_FLAGS = [f"-I{SIMAVR_INCLUDE}", f"-I{SIMAVR_INCLUDE / 'parts'}"]
SIMAVR_LIBS = ["-lsimavr", "-lelf", "-lpthread", "-lutil"]


class BuildError(TableError, RuntimeError):
    """The firmware or the board program could not be built."""


class BoardError(TableError, RuntimeError):
    """The simulated board refused a command or stopped."""


def _run(cmd: list[str], what: str) -> str:
    tool = cmd[0]
    if shutil.which(tool) is None:
        raise BuildError(f"{what}: {tool} not found; install the Debian packages of .ci/sysdeps.sh")
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        lines = (proc.stderr or proc.stdout).strip().splitlines() or ["(no output)"]
        first = next((line for line in lines if "error" in line), lines[0])
        raise BuildError(f"{what} failed: {first}")
    return proc.stdout


@contextlib.contextmanager
def _one_build_at_a_time() -> Iterator[None]:
    """Holds a lock beside the board's build while the firmware or the board program is made:
    processes that build at the same moment (the test suite's parallel workers, a benchmark
    beside them) wait for each other instead of writing the same files at once."""
    lock = SIM_DIR / "build" / "build.lock"
    try:
        lock.parent.mkdir(parents=True, exist_ok=True)
        held = lock.open("a")
    except OSError:  # a read-only install: nothing else builds here either
        yield
        return
    with held:
        fcntl.flock(held, fcntl.LOCK_EX)
        yield


def build_firmware(turn_fields: int = 0, gain: int = 33, misses: int = 3) -> Path:
    """Build the firmware ELF (make decides what is out of date); returns its path. With
    ``turn_fields`` (a bit a reader), a build whose readers of those bits switch their fields
    on only while they are polled; with ``gain`` (dB) or ``misses``, a build with that
    receiver gain or removal count; each such build in a build folder of its own."""
    make = ["make", "--no-print-directory", "-s", "-C", str(FIRMWARE_DIR)]
    if (turn_fields, gain, misses) == (0, 33, 3):
        with _one_build_at_a_time():
            _run(make, "firmware build")
        return FIRMWARE_ELF
    build = f"build-turn{turn_fields:02X}"
    if (gain, misses) != (33, 3):
        build += f"-gain{gain}-misses{misses}"
    with _one_build_at_a_time():
        _run([*make, f"BUILD={build}", f"TURN_FIELDS=0x{turn_fields:02X}", f"GAIN={gain}",
              f"MISSES={misses}"], "firmware build")
    return FIRMWARE_DIR / build / "bridge.elf"


def build_board() -> Path:
    """Compile the board program when its source is newer than the binary."""
    with _one_build_at_a_time():
        return _build_board()


def _build_board() -> Path:
    newest = max(BOARD_SOURCE.stat().st_mtime, (FIRMWARE_DIR / "pins.h").stat().st_mtime)
    if BOARD_BINARY.exists() and BOARD_BINARY.stat().st_mtime >= newest:
        return BOARD_BINARY
    if not (SIMAVR_INCLUDE / "sim_avr.h").exists():
        raise BuildError(f"{SIMAVR_INCLUDE}/sim_avr.h missing: install libsimavr-dev")
    BOARD_BINARY.parent.mkdir(parents=True, exist_ok=True)
    cmd = ["gcc", "-std=gnu99", "-O2", "-Wall", "-Wextra", *SIMAVR_FLAGS, f"-I{FIRMWARE_DIR}", "-o",
           str(BOARD_BINARY), str(BOARD_SOURCE), *SIMAVR_LIBS]
    _run(cmd, "board build")
    return BOARD_BINARY


def board_command(link: Path | str, readers: int = 4, turn_fields: int = 0, gain: int = 33,
                  misses: int = 3) -> list[str]:
    """The command line that runs the simulated board (built first) with this firmware."""
    return [str(build_board()), str(build_firmware(turn_fields, gain, misses)), "--link",
            str(link), "--readers", str(readers)]


class AvrBoard:
    """A running simulated board; its serial port is ``link``."""

    def __init__(self, link: Path | str, readers: int = 4, turn_fields: int = 0,
                 gain: int = 33, misses: int = 3) -> None:
        self.link = Path(link)
        self._proc = subprocess.Popen(
            board_command(link, readers, turn_fields, gain, misses),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        self._lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, name="avr-board-out", daemon=True).start()
        self.pty = self._expect("pty ", timeout=10.0).split(" ", 1)[1]

    def _read(self) -> None:
        assert self._proc.stdout is not None
        for line in self._proc.stdout:
            self._lines.put(line.rstrip("\n"))
        self._lines.put("")  # end of output: the board has stopped

    def _expect(self, prefix: str, timeout: float) -> str:
        while True:
            try:
                line = self._lines.get(timeout=timeout)
            except queue.Empty:
                raise BoardError(f"the board did not answer within {timeout} s") from None
            if line == "" and self._proc.poll() is not None:
                raise BoardError(f"the board stopped (exit code {self._proc.returncode})")
            if line.startswith("error "):
                raise BoardError(line[6:])
            if line.startswith(prefix):
                return line

    def command(self, line: str, timeout: float = 10.0) -> str:
        """Send one command and wait for the board to acknowledge it; the acknowledgement."""
        if self._proc.stdin is None or self._proc.poll() is not None:
            raise BoardError("the board is not running")
        self._proc.stdin.write(line + "\n")
        self._proc.stdin.flush()
        return self._expect("ok ", timeout)

    def place(self, reader: int, uid: str) -> None:
        """A tag comes to rest on the reader (on the tags already there: a pile)."""
        self.command(f"place {reader} {uid}")

    def remove(self, reader: int, uid: str = "") -> None:
        """That tag, or every tag, leaves the reader."""
        self.command(f"remove {reader} {uid}".rstrip())

    def brownout(self, reader: int) -> None:
        """The reader's supply dips: its chip resets (settings lost, antenna off)."""
        self.command(f"brownout {reader}")

    def register(self, reader: int, address: int) -> int:
        """The value of one register of the reader's chip."""
        return int(self.command(f"reg {reader} {address:02X}").split()[2])

    def version(self, reader: int, version: int) -> None:
        """The reader's chip answers ``version`` to VersionReg (0x88: a Fudan FM17522 clone),
        from now on and after every reset."""
        self.command(f"version {reader} {version:02X}")

    def spi(self) -> list[tuple[int, int]]:
        """For each reader: the SPI bytes exchanged with its chip so far, and the REQA frames
        it has sent (one a poll)."""
        counts = [int(n) for n in self.command("spi").split()[2:]]
        return [(counts[i], counts[i + 1]) for i in range(0, len(counts), 2)]

    def overlaps(self) -> list[list[int]]:
        """``[i][j]``: frames chip i has sent while chip j's field was on."""
        counts = [int(n) for n in self.command("overlaps").split()[2:]]
        return [counts[i : i + 4] for i in range(0, len(counts), 4)]

    def reset(self) -> None:
        """Reset the microcontroller, as its reset pin would."""
        self.command("reset")

    def noise(self, count: int) -> None:
        """Send ``count`` bytes of line noise into the board's serial port."""
        self.command(f"noise {count}")

    def freeze(self) -> None:
        """Stop the simulated clock: the firmware hangs (the watchdog's test)."""
        self.command("freeze")

    def thaw(self) -> None:
        """Let the simulated clock run again."""
        self.command("thaw")

    def close(self) -> None:
        """Stop the simulated board and its process."""
        if self._proc.poll() is None:
            with contextlib.suppress(BoardError):
                self.command("quit", timeout=5.0)
            try:
                self._proc.wait(timeout=5.0)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
        for pipe in (self._proc.stdin, self._proc.stdout):
            if pipe is not None:
                pipe.close()

    def __enter__(self) -> AvrBoard:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def main(argv: list[str] | None = None) -> int:
    """Run a simulated board from the command line; the exit code."""
    parser = argparse.ArgumentParser(
        prog="python -m sim.hardware.avr_board",
        description="Run the bridge firmware on a simulated board with four MFRC522 readers.",
    )
    parser.add_argument("--link", required=True, help="make this path a symlink to the UART pty")
    parser.add_argument("--readers", type=int, default=4, choices=range(5),
                        help="readers fitted (default 4)")
    args = parser.parse_args(argv)
    try:
        cmd = board_command(args.link, args.readers)
    except BuildError as exc:
        print(f"sim.hardware.avr_board: {exc}", file=sys.stderr)
        return 2
    os.execv(cmd[0], cmd)


if __name__ == "__main__":
    sys.exit(main())
