"""The appliance's power-cut scenario: a tapping evening in the guest, the plug pulled (qemu
killed) at random moments, booted again each time.

The disk: the install scenario's (``sudo ./uno install`` in the guest), as it is: the cycles
boot copies of it; paho-mqtt, the hub's one package (the organiser's machine), comes on the code
disk from the image's wheelhouse (the wheel the installer's pip would take). Run alone
(``--only cuts``), a venv is built in the guest first (``pip install`` of the checkout with the
hub's extra) and the service user made, in one full systemd boot, cached as a qcow2 layer over
the image. Each cut cycle then boots that disk
(its overlay carried from cut to cut) the lean way: an initramfs of our own
(bench/appliance_cuts_boot.c: the modules of a virtio ext4 root, no udev), the kernel's init a
shell line given on its command line, which mounts the code disk (the checkout's table, sim and
the cycle's scripts, with bytecode compiled here) and runs bench/appliance_cuts_init.sh: the
real kernel, ext4 root, journal, daemon, hub and broker, without systemd, and one Python start a
cycle.

The cycles, in a seeded order, run in two chains (bench/appliance_chains.py), each booting its
own copy of the disk with its own bridge: the first at once, the second once the scenarios
beside the cuts are done (a core of its own), opening with taps. Each chain's tally is its own
(its journal numbers inputs from 1); the last line sums them.

Each cycle, by the mode on the kernel's command line:

- ``tap``: the daemon referees taps through the USB serial bridge (the bridge's firmware in
  simavr on the host, qemu's usb-serial in the guest); its event stream goes out on the serial
  console, so a verdict seen on the host is a verdict that left the guest (``acknowledged``).
  The plug is pulled after a random number of taps, 0 to 0.3 s after the last one was put
  down (its verdict, about 0.1 s later, may or may not have left).
- ``enroll``: ``uno-table enroll`` writes the deck file after every tag tapped; a tag it printed
  as enrolled is acknowledged. The plug is pulled while the tags come.
- ``repair``: a copy of the journal is damaged and opened as the daemon opens it (salvage into a
  fresh file, renamed into place); the plug is pulled at a random moment of the repair.
- ``hub``: Mosquitto, ``uno-table hub`` and a table's results (a sender), all in the guest; the
  broker's log on the console shows each result the hub acknowledged (its PUBACK). The plug is
  pulled a random moment after the first.

After each boot, before anything starts, the checker (bench/appliance_cuts_guest.py, with the
table's own code) opens every file: ``unopenable`` counts what did not open; ``lost`` counts
acknowledged inputs missing from the journal (and enrolled tags missing from the deck file);
``hub_lost`` acknowledged results missing from the hub's store. The table resumes: the daemon's
``resumed`` after each boot names as many inputs as the journal holds. The boot after the last
cut measures the bytes written per tap; two more try the read-only root.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from appliance import Run
from appliance_chains import Cycles, Taken, in_chains
from appliance_install import COPY, HOME
from appliance_table import VENV
from guest import ROOT, USER, Guest, GuestError
from guest_image import WHEELS

if str(ROOT) not in sys.path:
    sys.path.insert(1, str(ROOT))  # the checkout: the simulated bridge and the scripted taps
from sim.hardware.avr_board import AvrBoard
from sim.players.scripted import scripted_taps

PACKAGES = ("mosquitto",)
CYCLES = 32
CHAINS = 2  # cycles at once, each chain its own disk and bridge (bench/appliance_chains.py)
MODES = ("enroll",) * 4 + ("repair",) * 4 + ("hub",) * 6  # the rest are tap cycles
SEED = 32
PLAYERS = ("Aki", "Ken", "Mio", "Yui")
STATE = "/var/lib/uno-cuts"
WEAR_TAPS = 20
CYCLE_LIMIT = 400.0  # seconds a cycle's boot and start may take before it counts as stuck
PREPARED = "paho-mqtt>=2.0,<3"  # the hub's extra, in the venv the installer made
# The cycles' init: the kernel's own (no systemd), given on its command line, so nothing of the
# harness lives on the installed disk: the code disk (``code_disk``) mounted where the checkout
# is in a full boot, its script run (bench/appliance_cuts_init.sh).
LEAN = ("mount -t proc proc /proc 2>/dev/null; mount -t sysfs sys /sys 2>/dev/null; "
        "mount -t devtmpfs dev /dev 2>/dev/null; mount -o ro /dev/vdb /mnt/checkout "
        "&& exec /bin/sh /mnt/checkout/bench/appliance_cuts_init.sh")
# What the preparation adds to the installed disk, in one full boot.
PREPARE = (f"{VENV}/bin/pip install -q '{PREPARED}' && "
           f"install -d -o uno-table -g uno-table -m 750 {STATE} && "
           "systemctl disable -q --now uno-table")  # Mosquitto is masked in the image
CODE = ("table", "sim", "bench/appliance_cuts_guest.py", "bench/appliance_cuts_init.sh")
HUB_WHEEL = "paho_mqtt-"  # the hub's package: its wheel in the image's wheelhouse (WHEELS)


def hub_wheel(run: Run) -> tuple[str, bytes]:
    """paho-mqtt's wheel, read from the image's disk (debugfs, nothing mounted): its name and
    bytes."""
    disk = str(run.image / "root.img")
    listed = subprocess.run(["debugfs", "-R", f"ls -p {WHEELS}", disk], capture_output=True,
                            text=True, check=True).stdout
    names = [line.split("/")[5] for line in listed.splitlines() if line.count("/") >= 6]
    name = next((n for n in names if n.startswith(HUB_WHEEL) and n.endswith(".whl")), None)
    if name is None:
        raise GuestError(f"no {HUB_WHEEL}*.whl in the image's wheelhouse {WHEELS}")
    data = subprocess.run(["debugfs", "-R", f"cat {WHEELS}/{name}", disk], capture_output=True,
                          check=True).stdout
    return name, data


def code_disk(run: Run) -> Path:
    """The checkout's code for the cycles (CODE) and paho-mqtt (``site``) on a small ext4 disk
    the guest mounts read only, with its bytecode compiled here when this Python is the guest's
    (3.11): a cycle's imports then read a local disk, not the checkout's share (9p), and
    compile nothing."""
    files = sorted(f for name in CODE for f in
                   ((ROOT / name).rglob("*") if (ROOT / name).is_dir() else [ROOT / name])
                   if f.is_file() and "__pycache__" not in f.parts)
    wheel, wheel_data = hub_wheel(run)
    digest = hashlib.sha256(sys.version.encode() + wheel.encode() + wheel_data)
    for f in files:
        digest.update(str(f.relative_to(ROOT)).encode() + f.read_bytes())
    done = run.cache / f"cuts-code-{digest.hexdigest()[:16]}" / "code.img"
    if done.is_file():
        return done
    with tempfile.TemporaryDirectory(dir=run.cache) as tmp:
        tree = Path(tmp) / "tree"
        for f in files:
            (tree / f.relative_to(ROOT)).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(f, tree / f.relative_to(ROOT))
        with zipfile.ZipFile(io.BytesIO(wheel_data)) as unpacked:
            unpacked.extractall(tree / "site")
        if sys.version_info[:2] == (3, 11):
            for name in ("table", "sim", "site"):
                subprocess.run([sys.executable, "-m", "compileall", "-q", "-d",
                                f"/mnt/checkout/{name}", str(tree / name)], check=True,
                               capture_output=True)
        image = Path(tmp) / "code.img"
        subprocess.run(["mke2fs", "-q", "-t", "ext4", "-L", "uno-code", "-d", str(tree),
                        str(image), "96M"], check=True, capture_output=True)
        done.parent.mkdir(parents=True, exist_ok=True)
        image.rename(done)
    return done


BOOT_SOURCE = Path(__file__).resolve().parent / "appliance_cuts_boot.c"
BOOT_MODULES = ("virtio", "virtio_ring", "virtio_pci_legacy_dev", "virtio_pci_modern_dev",
                "virtio_pci", "virtio_blk", "crc16", "mbcache", "jbd2", "crc32c_generic", "ext4")


def _cpio(entries: list[tuple[str, int, bytes]]) -> bytes:
    """An initramfs archive (cpio "newc") of (name, mode, data) entries."""
    out = bytearray()
    for number, (name, mode, data) in enumerate([*entries, ("TRAILER!!!", 0, b"")], 1):
        raw = name.encode() + b"\0"
        fields = (number, mode, 0, 0, 1, 0, len(data), 0, 0, 0, 0, len(raw), 0)
        out += b"070701" + b"".join(b"%08X" % f for f in fields) + raw
        out += b"\0" * (-len(out) % 4) + data
        out += b"\0" * (-len(out) % 4)
    return bytes(out)


def lean_initrd(run: Run) -> Path | None:
    """The cycles' initramfs (bench/appliance_cuts_boot.c and the modules a virtio ext4 root
    needs, from the image's base), built once; None where it cannot be (no C compiler, no base
    folder): Debian's initramfs then, ten seconds slower a boot."""
    bases = sorted(run.cache.glob("base-*/root/lib/modules/*/modules.dep"))
    if not bases or shutil.which("cc") is None:
        return None
    modules = bases[-1].parent
    key = hashlib.sha256(BOOT_SOURCE.read_bytes() + str(modules).encode()).hexdigest()[:16]
    done = run.cache / f"cuts-boot-{key}" / "initrd.img"
    if done.is_file():
        return done
    found = {p.stem: p for p in modules.rglob("*.ko") if p.stem in BOOT_MODULES}
    if set(found) != set(BOOT_MODULES):
        return None
    with tempfile.TemporaryDirectory() as tmp:
        init = Path(tmp) / "init"
        built = subprocess.run(["cc", "-static", "-Os", "-o", str(init), str(BOOT_SOURCE)],
                               capture_output=True, text=True)
        if built.returncode != 0:
            run.say(f"cuts: the lean initramfs did not build: {built.stderr.strip()[:200]}")
            return None
        entries = [("dev", 0o40755, b""), ("proc", 0o40755, b""), ("root", 0o40755, b""),
                   ("modules", 0o40755, b""), ("init", 0o100755, init.read_bytes())]
        entries += [(f"modules/{name}.ko", 0o100644, found[name].read_bytes())
                    for name in BOOT_MODULES]
        done.parent.mkdir(parents=True, exist_ok=True)
        part = done.with_suffix(".part")
        part.write_bytes(_cpio(entries))
        part.rename(done)
    return done


def lean(mode: str, match: str, *more: str) -> list[str]:
    """The kernel's arguments for one cycle booted with the lean init."""
    return [f"uno.cut={mode}", f"uno.match={match}", *more, "init=/bin/sh", "--", "-c",
            f'"{LEAN}"']




class Bridge:
    """The bridge's firmware in simavr on the host, carried into the guest as qemu's USB
    serial device (an FTDI chip to the guest's kernel: /dev/ttyUSB0)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.board: AvrBoard | None = AvrBoard(folder / "bridge")

    def __enter__(self) -> Bridge:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.board is not None:
            self.board.close()
        shutil.rmtree(self.folder, ignore_errors=True)

    def plugged(self, code: Path, initrd: Path | None = None) -> dict[str, Any]:
        """Guest options: the code disk (``code_disk``: /dev/vdb), the USB controller and the
        bridge plugged in at boot, the lean initramfs when there is one, and no network boot
        ROM (the cycles have no use for the network card; its ROM costs seconds a boot)."""
        assert self.board is not None
        return {"qemu_args": [
            *(["-initrd", str(initrd)] if initrd else []),
            "-global", "virtio-net-pci.romfile=",
            "-drive", f"file={code},if=virtio,format=raw,readonly=on",
            "-device", "qemu-xhci,id=xhci",
            "-chardev", f"serial,id=bridge,path={self.board.pty}",
            "-device", "usb-serial,chardev=bridge,id=bridge-usb,bus=xhci.0,port=1"]}


def recipe_key(run: Run) -> str:
    """The prepared disk's key: what it was made from (the installed disk, or the image with the
    installer, pyproject.toml and the table's code, which the venv built in the guest holds) and
    how (``PREPARE``)."""
    digest = hashlib.sha256(f"{run.image.resolve()}{PREPARE}".encode())
    if run.installed is not None:
        made = run.installed.stat()
        digest.update(f"{run.installed.resolve()}{made.st_size}{made.st_mtime_ns}".encode())
        return digest.hexdigest()[:16]
    for path in (ROOT / "scripts/install-pi.sh", ROOT / "pyproject.toml",
                 *sorted((ROOT / "table").rglob("*.py"))):
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def prepare(run: Run) -> Path:
    """The disk the cycles boot copies of: the installed disk as it is; run alone, a venv built
    in the guest with the hub's extra, in a full systemd boot, cached as a layer over the image
    (the cycles' folder made, the services off)."""
    if run.installed is not None:
        run.say("cuts: the cycles boot copies of the installed disk")
        return run.installed
    cached = run.cache / f"cuts-{recipe_key(run)}" / "disk.qcow2"
    if cached.exists():
        run.say(f"cuts: prepared disk {cached.parent.name} (cached)")
        return cached
    began = time.monotonic()
    guest, boot_s = run.boot()
    run.say(f"cuts: full boot for the preparation in {boot_s:.0f} s")
    try:
        if run.installed is None:
            run.say("cuts: run alone (no install scenario's disk): the venv built in the guest "
                    "with the hub's extra, the service user made")
            guest.check(COPY, 600, user=USER)
            build = f"python3 -m venv {VENV} && {VENV}/bin/pip install '{HOME}[hub]'"
            code, out, err = guest.run(build, 2400)
            if code != 0:  # pip's own words, for whoever reads the run
                for line in (out + err).strip().splitlines()[-15:]:
                    run.say(f"cuts: pip: {line}")
                raise GuestError(f"the venv could not be built in the guest (pip exit {code})")
            guest.check("id uno-table >/dev/null 2>&1 || useradd --system --no-create-home "
                        "--home-dir /var/lib/uno-table --shell /usr/sbin/nologin uno-table; "
                        "usermod -aG dialout uno-table")
        run.say("cuts: paho-mqtt into the installed venv, the services off")
        guest.check(PREPARE, 1200)
        guest.poweroff()
    except GuestError:
        guest.kill()
        raise
    cached.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(str(guest.overlay), cached)
    shutil.rmtree(guest.folder, ignore_errors=True)
    run.say(f"cuts: disk prepared in {time.monotonic() - began:.0f} s")
    return cached


@dataclass
class Tally:
    """What the cycles saw, and what they found after each boot."""

    taps: list[tuple[str, str]]
    next_tap: int = 0
    acknowledged: set[int] = field(default_factory=set)  # input numbers seen on the host
    enrolled: set[str] = field(default_factory=set)  # tags enroll said it kept
    hub_acked: set[str] = field(default_factory=set)  # results the hub acknowledged
    hub_sent: int = 0
    lost: set[str] = field(default_factory=set)  # each boot's findings, once each
    hub_lost: set[str] = field(default_factory=set)
    unopenable: set[str] = field(default_factory=set)
    cycles: list[dict[str, Any]] = field(default_factory=list)
    resumed: list[bool] = field(default_factory=list)


def lines_after(guest: Guest, prefix: str, start: int = 0) -> list[str]:
    """The console lines from ``start`` that begin with ``prefix``, the prefix cut off."""
    return [line.split(prefix, 1)[1].strip() for line in guest.lines[start:] if prefix in line]


def events(guest: Guest, start: int = 0) -> list[dict[str, Any]]:
    """The daemon's events on the console from line ``start`` on."""
    found = []
    for line in guest.lines[start:]:
        at = line.find("{\"")
        if at < 0:
            continue
        try:
            event = json.loads(line[at:])
        except ValueError:
            continue
        if isinstance(event, dict) and "type" in event:
            found.append(event)
    return found


def compare(tally: Tally, check: dict[str, Any]) -> None:
    """What the checker found against what left the guest before the cut."""
    tally.unopenable |= set(check.get("unopenable", []))
    journal = check.get("journal") or {}
    held = max(journal.values(), default=0)  # the evening's one match
    tally.lost |= {f"input {n}" for n in tally.acknowledged if n > held}
    deck = set(check.get("deck") or ())
    tally.lost |= {f"tag {uid}" for uid in tally.enrolled - deck}
    kept = set(check.get("hub") or ())
    tally.hub_lost |= tally.hub_acked - kept


def wait_event(guest: Guest, match: Any, timeout: float, start: int) -> dict[str, Any] | None:
    """The first event from console line ``start`` on that ``match``es, within ``timeout``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and guest.alive():
        for event in events(guest, start):
            if match(event):
                return event
        guest.wait_line("{\"", min(1.0, max(0.05, deadline - time.monotonic())),
                        start=len(guest.lines))
    return None


def tap_cycle(tally: Tally, table: Bridge, guest: Guest, start: int,
              rng: random.Random, note: dict[str, Any]) -> None:
    """Taps until the plug is pulled a random moment after the last was put down."""
    assert table.board is not None
    ready = wait_event(guest, lambda e: e.get("type") == "ready", CYCLE_LIMIT, start)
    if ready is None:
        raise GuestError("the daemon was never ready after the boot")
    note["ready_inputs"] = ready.get("inputs")  # with a card left resting on the pad, read
    resumed = [e for e in events(guest, start) if e.get("type") == "resumed"]
    note["resumed_inputs"] = resumed[0].get("inputs") if resumed else 0  # as the journal held
    note["ready_s"] = round(time.monotonic() - guest.started, 1)
    taps = rng.randint(1, 6)
    for k in range(taps):
        mark = len(guest.lines)
        table.board.remove(0)
        table.board.place(0, tally.taps[tally.next_tap][1])
        if k == taps - 1:  # the plug, somewhere in this tap's way (tap to verdict: ~0.1 s)
            time.sleep(rng.uniform(0.0, 0.3))
        elif wait_event(guest, lambda e: e.get("type") == "verdict", 60, mark) is not None:
            tally.next_tap += 1
    note["taps"] = taps


def after_taps(tally: Tally, guest: Guest, start: int, note: dict[str, Any]) -> None:
    """Every input whose verdict (or lift) left the guest before the cut: acknowledged."""
    seen = [e for e in events(guest, start) if e.get("type") in ("verdict", "lift")
            and isinstance(e.get("n"), int)]
    tally.acknowledged |= {e["n"] for e in seen}
    if note.get("taps") and sum(e["type"] == "verdict" for e in seen) == note["taps"]:
        tally.next_tap += 1  # the last tap's verdict left too
    note["acknowledged"] = len(seen)


def enroll_cycle(tally: Tally, table: Bridge, guest: Guest, start: int,
                 rng: random.Random, cycle: int, note: dict[str, Any]) -> None:
    """Tags tapped for enroll until the plug is pulled."""
    assert table.board is not None
    if guest.wait_line("tap", CYCLE_LIMIT, start) is None:
        raise GuestError("enroll never asked for a tag")
    tags = rng.randint(2, 8)
    for k in range(tags):
        mark = len(guest.lines)
        uid = f"0C{cycle:02X}{k:02X}A5"  # four bytes: 0C, the cycle, the tag, A5
        table.board.remove(0)
        table.board.place(0, uid)
        if k == tags - 1:
            time.sleep(rng.uniform(0.0, 1.0))
        else:
            guest.wait_line(f"{uid} =", 60, start=mark)
    note["tags"] = tags


def after_enroll(tally: Tally, guest: Guest, start: int, note: dict[str, Any]) -> None:
    """Every tag enroll printed as kept (after its deck file was written): acknowledged."""
    kept = {line.split()[0] for line in (x.strip() for x in guest.lines[start:])
            if re.match(r"^0C[0-9A-F]{6} = ", line)}
    tally.enrolled |= kept
    note["enrolled"] = len(kept)


def hub_cycle(guest: Guest, start: int, rng: random.Random) -> None:
    """The hub hears results until the plug is pulled a random moment after its first PUBACK."""
    if guest.wait_line("Received PUBACK from uno-table-hub", CYCLE_LIMIT, start) is None:
        raise GuestError("the hub acknowledged no result")
    time.sleep(rng.uniform(0.0, 4.0))


def after_hub(tally: Tally, guest: Guest, start: int, match: str, note: dict[str, Any]) -> None:
    """Every result whose PUBACK from the hub the broker logged: acknowledged. The broker sends
    the results to the hub in the order the sender published them (rounds 1, 2, ...)."""
    sent: dict[str, int] = {}  # the broker's message id to the hub -> the result's round
    acked = []
    for line in guest.lines[start:]:
        if "Sending PUBLISH to uno-table-hub" in line and "/result'" in line and "(d0," in line:
            mid = line.split(", m", 1)[1].split(",", 1)[0]
            sent[mid] = len(sent) + 1
        elif "Received PUBACK from uno-table-hub" in line:
            mid = line.split("Mid: ", 1)[1].split(",", 1)[0].rstrip(")")
            if mid in sent:
                acked.append(f"2/{match}/{sent[mid]}")
    tally.hub_acked |= set(acked)
    note["hub_acked"] = len(acked)


def repair_cycle(guest: Guest, start: int, rng: random.Random, note: dict[str, Any],
                 took: list[float]) -> None:
    """The plug pulled at a random moment of a journal's repair."""
    if guest.wait_line("UNO-CUT-REPAIR", CYCLE_LIMIT, start) is None:
        raise GuestError("the repair never started")
    began = time.monotonic()
    span = max(took) if took else 3.0
    done = guest.wait_line("repaired:", rng.uniform(0.0, span), start=start)
    note["repair_done_before_cut"] = done is not None
    if done is not None:
        took.append(time.monotonic() - began)


def sectors_written(guest: Guest, disk: str = "vda") -> int:
    """A guest disk's sectors written since its boot (/sys/block/DISK/stat, field 7), after a
    ``sync``: the filesystem's journal committed, so what a tap leaves dirty is counted too."""
    return int(guest.check(f"sync; cat /sys/block/{disk}/stat", 60).split()[6])


def tap_and_wait(table: Bridge, guest: Guest, uid: str, timeout: float = 60) -> bool:
    """One tap on the play pad; whether its verdict came out of the guest in ``timeout`` s."""
    assert table.board is not None
    mark = len(guest.lines)
    table.board.remove(0)
    table.board.place(0, uid)
    return wait_event(guest, lambda e: e.get("type") == "verdict", timeout, mark) is not None


def wear(tally: Tally, table: Bridge, guest: Guest, start: int) -> dict[str, Any]:
    """Bytes written to the disk per tap: the disk's counter (after a ``sync``) before and after
    ``WEAR_TAPS`` taps, each waited for."""
    if wait_event(guest, lambda e: e.get("type") == "ready", CYCLE_LIMIT, start) is None:
        raise GuestError("the daemon was never ready for the wear measurement")
    guest.wait_agent(60)
    before = sectors_written(guest)
    began = time.monotonic()
    done = 0
    for _ in range(WEAR_TAPS):
        if tap_and_wait(table, guest, tally.taps[tally.next_tap][1]):
            tally.next_tap += 1
            done += 1
    seconds = time.monotonic() - began
    written = (sectors_written(guest) - before) * 512
    return {"wear_taps": done, "bytes_per_tap": round(written / max(1, done)),
            "lean_taps_per_s": round(done / seconds, 2)}


def read_only(run: Run, table: Bridge, disk: Path, folder: Path, boot: tuple[Path, Path | None]
              ) -> dict[str, Any]:
    """The read-only root, tried: the root mounted read only, /var an overlay in RAM, the
    journal on a second disk (a writable partition). Taps, the plug pulled, booted again: what
    the journal on the second disk holds, and the sectors written to each disk."""
    data = folder / "data.img"
    subprocess.run(["mke2fs", "-q", "-t", "ext4", "-L", "uno-data", str(data), "256M"],
                   check=True, capture_output=True)
    found: dict[str, Any] = {}
    acked: set[int] = set()
    taps = scripted_taps(PLAYERS, 10, seed=5)
    for step in ("taps", "after the cut"):
        options = table.plugged(*boot)
        options["qemu_args"] += ["-drive", f"file={data},if=virtio,format=raw"]
        guest = Guest(run.image, run.accel, run.memory, backing=disk, folder=folder / "ro",
                      kernel_args=lean("ro", "ro", "ro"), **options)
        try:
            ready = wait_event(guest, lambda e: e.get("type") == "ready", CYCLE_LIMIT, 0)
            if ready is None:
                raise GuestError("the daemon was never ready on the read-only root")
            found["ro_root_mount"] = (lines_after(guest, "UNO-CUT-RO root") or ["?"])[0]
            check = json.loads(lines_after(guest, "UNO-CUT-CHECK")[0] or "{}")
            guest.wait_agent(60)
            if step == "taps":
                root, journal = sectors_written(guest), sectors_written(guest, "vdc")
                done = sum(tap_and_wait(table, guest, uid) for _, uid in taps[:WEAR_TAPS // 2])
                acked = {e["n"] for e in events(guest) if e.get("type") in ("verdict", "lift")}
                found["ro_taps"] = done
                found["ro_root_bytes_per_tap"] = round(
                    (sectors_written(guest) - root) * 512 / max(1, done))
                found["ro_journal_bytes_per_tap"] = round(
                    (sectors_written(guest, "vdc") - journal) * 512 / max(1, done))
            else:
                held = max((check.get("journal") or {}).values(), default=0)
                found["ro_acknowledged"] = len(acked)
                found["ro_lost"] = sum(n > held for n in acked)
                found["ro_unopenable"] = len(check.get("unopenable", []))
                found["ro_resumed_at"] = ready.get("inputs")
        except (GuestError, ValueError, IndexError) as exc:
            found["ro_error"] = str(exc)
            run.say(f"cuts: read-only root: {exc}")
        finally:
            guest.kill()
    shutil.rmtree(folder / "ro", ignore_errors=True)
    run.say(f"cuts: read-only root: {json.dumps(found)}")
    return found


def one_cycle(tally: Tally, table: Bridge, guest: Guest, mode: str, cycle: int,
              rng: random.Random, note: dict[str, Any], took: list[float]) -> int:
    """One boot after a cut: the checker's findings compared, then the cycle's work until the
    plug is pulled. The console line where the work began."""
    if guest.wait_line("UNO-CUT-BOOT", CYCLE_LIMIT) is None:
        raise GuestError("the lean init never started")
    note["boot_s"] = round(time.monotonic() - guest.started, 1)
    if guest.wait_line("UNO-CUT-CHECK", CYCLE_LIMIT) is None:
        raise GuestError("the checker never reported after the boot")
    note["check_s"] = round(time.monotonic() - guest.started, 1)
    check = json.loads(lines_after(guest, "UNO-CUT-CHECK")[0] or "{}")
    compare(tally, check)
    start = len(guest.lines)
    if mode == "tap":
        tap_cycle(tally, table, guest, start, rng, note)
        held = max((check.get("journal") or {}).values(), default=0)
        tally.resumed.append(note.get("resumed_inputs") == held)
    elif mode == "enroll":
        enroll_cycle(tally, table, guest, start, rng, cycle, note)
    elif mode == "hub":
        hub_cycle(guest, start, rng)
    elif mode == "repair":
        repair_cycle(guest, start, rng, note, took)
    return start


def after_cut(tally: Tally, guest: Guest, mode: str, cycle: int, start: int,
              note: dict[str, Any]) -> None:
    """What left the guest before the plug was pulled, by the cycle's mode."""
    if mode == "tap":
        after_taps(tally, guest, start, note)
    elif mode == "enroll":
        after_enroll(tally, guest, start, note)
    elif mode == "hub":
        after_hub(tally, guest, start, f"c{cycle}", note)


class Evening:
    """The cut cycles of one run, in chains (bench/appliance_chains.py): each chain's own
    tally, disk and bridge; the first chain's last boot measures the bytes written per tap and
    its bridge then tries the read-only root."""

    def __init__(self, run: Run, disk: Path, boot: tuple[Path, Path | None], folder: Path
                 ) -> None:
        self.run, self.disk, self.boot, self.folder = run, disk, boot, folder
        self.tallies: dict[int, Tally] = {}
        self.seconds: dict[int, float] = {}
        self.took: list[float] = []  # the repairs' seconds, for the next repair's cut
        self.found: dict[str, Any] = {}

    def chain(self, index: int, take: Callable[[], Taken | None]) -> None:
        """One chain's cycles, each booted on the overlay the cycle before it left, then a
        last boot that checks the last cut."""
        name = "ab"[index] if index < 2 else str(index)
        tally = self.tallies[index] = Tally(scripted_taps(PLAYERS, 400, seed=3 + index))
        rng = random.Random(f"{SEED}-{name}")
        folder = self.folder / name
        with Bridge(folder / "bridge-board") as table:
            began = time.monotonic()
            while (taken := take()) is not None:
                self.cycle(tally, table, folder, rng, name, *taken)
            if tally.cycles:  # a last boot checks the last cut
                self.cycle(tally, table, folder, rng, name, CYCLES + index, "wear")
            self.seconds[index] = round(time.monotonic() - began, 1)
            if index == 0:
                self.found.update(read_only(self.run, table, self.disk, folder, self.boot))

    def cycle(self, tally: Tally, table: Bridge, folder: Path, rng: random.Random, name: str,
              cycle: int, mode: str) -> None:
        """One boot of a chain: its cycle's work, the plug pulled, what left the guest."""
        note: dict[str, Any] = {"cycle": cycle, "mode": mode}
        start = 0
        guest = Guest(self.run.image, self.run.accel, self.run.memory,
                      overlay=folder / "disk.qcow2", backing=self.disk, folder=folder / "guest",
                      kernel_args=lean(mode, f"c{cycle}"), **table.plugged(*self.boot))
        try:
            start = one_cycle(tally, table, guest, mode, cycle, rng, note, self.took)
            if mode == "wear" and name == "a":  # the first chain's last boot
                self.found.update(wear(tally, table, guest, start))
        except (GuestError, ValueError) as exc:
            note["error"] = str(exc)
            self.run.say(f"cuts {name}: cycle {cycle} ({mode}): {exc}")
            self.run.say("cuts: console: " + " | ".join(x for x in guest.lines[-5:] if x)[:400])
        finally:
            guest.kill()
        after_cut(tally, guest, mode, cycle, start, note)
        note["cycle_s"] = round(time.monotonic() - guest.started, 1)
        tally.cycles.append(note)
        note["so_far"] = {"acknowledged": len(tally.acknowledged) + len(tally.enrolled),
                          "lost": len(tally.lost), "unopenable": len(tally.unopenable),
                          "hub_acknowledged": len(tally.hub_acked),
                          "hub_lost": len(tally.hub_lost)}
        self.run.say(f"cuts {name}: cycle {cycle} {mode}: {json.dumps(note)}")


def chains() -> int:
    """Chains of cuts at once: one a core, two at most (TCG runs a one-CPU guest on one)."""
    return max(1, min(CHAINS, os.cpu_count() or 1))


def scenario(run: Run) -> dict[str, Any]:
    """The cut cycles: the fields of the last line."""
    found: dict[str, Any] = dict.fromkeys(("power_cuts", "acknowledged", "lost", "unopenable",
                                          "hub_power_cuts", "hub_lost"))
    rng = random.Random(SEED)
    modes = list(MODES) + ["tap"] * (CYCLES - len(MODES))
    rng.shuffle(modes)
    modes[0] = "tap"  # the evening starts with taps
    disk = prepare(run)
    evening = Evening(run, disk, (code_disk(run), lean_initrd(run)),
                      Path(tempfile.mkdtemp(prefix="cuts-run-", dir=run.cache)))
    began = time.monotonic()
    in_chains(Cycles(modes), chains(), evening.chain, run.free)
    seconds = time.monotonic() - began
    found.update(evening.found)
    shutil.rmtree(evening.folder, ignore_errors=True)
    found.update(tallied(list(evening.tallies.values())))
    found["cuts_s"] = round(seconds, 1)
    found["chains"] = [{"cycles": len(evening.tallies[i].cycles), "s": evening.seconds.get(i)}
                       for i in sorted(evening.tallies)]
    return found


def tallied(tallies: list[Tally]) -> dict[str, Any]:
    """The chains' tallies, summed into the last line's fields."""
    every = [c for t in tallies for c in t.cycles]
    cuts = [c for c in every if c["mode"] != "wear" and "error" not in c]
    lost = sorted(f"{i} {x}" for i, t in enumerate(tallies) for x in t.lost)
    unopenable = sorted(f"{i} {x}" for i, t in enumerate(tallies) for x in t.unopenable)
    resumed = [ok for t in tallies for ok in t.resumed]
    return {
        "power_cuts": len(cuts),
        "acknowledged": sum(len(t.acknowledged) + len(t.enrolled) for t in tallies),
        "lost": len(lost),
        "unopenable": len(unopenable),
        "hub_power_cuts": sum(c["mode"] == "hub" for c in cuts),
        "hub_lost": sum(len(t.hub_lost) for t in tallies),
        "hub_acknowledged": sum(len(t.hub_acked) for t in tallies),
        "cuts_by_mode": {m: sum(c["mode"] == m for c in cuts)
                         for m in sorted({c["mode"] for c in cuts})},
        "cut_errors": [c for c in every if "error" in c],
        "resumed_ok": bool(resumed) and all(resumed),
        "cut_cycle_s": round(sum(c["cycle_s"] for c in every) / max(1, len(every)), 1),
        "lost_items": lost[:10],
        "unopenable_items": unopenable[:10],
    }
