"""``./uno appliance``: the table as an appliance, booted for real in a machine a test can switch
off.

    sudo ./uno appliance [--cache DIR] [--memory MB] [--tcg] [--only NAME...] [--installed DISK]

1. The guest image from Debian's packages (bench/guest_image.py): a debootstrapped base cached
   by its package list, and the image made from it in seconds, cached in ``.appliance/``
   (git ignores it).
2. qemu-system-x86_64 boots it (bench/guest.py): KVM when a guest really boots under it here
   (the kernel's first line within 20 s), else TCG (two threads), and says which. The
   checkout is shared into the guest read-only (virtio 9p, at ``/mnt/checkout``); commands
   reach the guest through qemu-guest-agent, the machine through QMP.
3. The scenarios, in order, each on its own guest: the install (the installed disk is kept and
   every later scenario boots a copy of it), the USB serial bridge, the GPIO chip, the power
   cuts. Progress on the terminal.

The last line is one JSON object with every field the scenarios measure. A scenario not built
yet leaves its fields null and is listed under ``not_done``, and the exit code is 1 while any
is: nothing here passes for what it does not do. A guest that cannot start (no qemu, no
debootstrap, an image that cannot be built) is one line naming what is missing and the
command that installs it, exit 2.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import shutil
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # run as a script: find its parts
sys.path.insert(1, str(Path(__file__).resolve().parent.parent))  # and the checkout (sim/)

from guest import ROOT, ApplianceError, Guest, GuestError, free_port
from guest_image import build_image

__all__ = ["ROOT", "ApplianceError", "Guest", "GuestError", "Run", "boot", "build_image",
           "choose_accel", "free_port", "main", "progress"]

CACHE = ROOT / ".appliance"
TOOLS = {  # what the appliance needs: the command, and the Debian package that has it
    "qemu-system-x86_64": "qemu-system-x86",
    "qemu-img": "qemu-utils",
    "debootstrap": "debootstrap",
    "mke2fs": "e2fsprogs",
}
FIX = "sudo sh .ci/sysdeps.sh appliance"
# The scenarios, in the order they run: (module in bench/, the fields of the last line it
# fills). Each module has PACKAGES (extra Debian packages for the image) and
# scenario(run: Run) -> dict of those fields. A module not there yet is a scenario not done.
SCENARIOS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("appliance_install", ("boot_to_ready_s", "install_twice_ok")),
    ("appliance_bridge", ("late_device_ok", "late_device_s", "replug_ok", "taps_per_s")),
    ("appliance_gpio", ("buttons_ok",)),
    ("appliance_cuts", ("power_cuts", "acknowledged", "lost", "unopenable", "hub_power_cuts",
                        "hub_lost")),
)
LOSSES = ("lost", "unopenable", "hub_lost")  # counts that fail the run when above 0
READY_BOUND_S = {True: 20.0, False: 90.0}  # boot to the referee's ready: with KVM, under TCG


def judged(out: dict[str, Any]) -> list[str]:
    """The fields of the last line that fail the run: an ``_ok`` that is false, a loss above
    0, boot to ready over its bound (``boot_to_ready_ok`` set here from it)."""
    ready = out.get("boot_to_ready_s")
    if ready is not None and out.get("kvm") is not None:
        out["boot_to_ready_ok"] = ready <= READY_BOUND_S[bool(out["kvm"])]
    return [k for k, v in out.items()
            if (k.endswith("_ok") and v is False) or (k in LOSSES and (v or 0) > 0)]


def progress(text: str) -> None:
    """One line of progress on the terminal."""
    print(f"appliance: {text}", file=sys.stderr, flush=True)


def need_tools() -> None:
    """Every tool there, or the one line that says which is not and how to install it."""
    for tool, package in TOOLS.items():
        if shutil.which(tool) is None:
            raise ApplianceError(f"{tool} not found (Debian package {package}): {FIX}")
    if os.geteuid() != 0:
        raise ApplianceError("building the guest image needs root (debootstrap): sudo ./uno "
                             "appliance")


def choose_accel(image: Path, memory: int, tcg: bool) -> str:
    """KVM when a guest really boots under it here (its kernel's first line within 20 s),
    else TCG."""
    if tcg or not os.access("/dev/kvm", os.R_OK | os.W_OK):
        return "tcg"
    guest = Guest(image, "kvm", memory, smp=1, kernel_args=("loglevel=7",))
    try:
        booted = guest.wait_line("Linux version", 20) is not None
    finally:
        guest.close()
    if not booted:
        progress("KVM: /dev/kvm opens but the guest printed nothing in 20 s: TCG instead")
    return "kvm" if booted else "tcg"


def boot(image: Path, accel: str, memory: int, limit: float, **options: Any
         ) -> tuple[Guest, float]:
    """A guest booted to its ready marker and its agent answering: the guest and the seconds
    from qemu's start. ``options`` go to Guest (qemu_args, kernel_args, hostfwd, overlay,
    backing, smp)."""
    guest = Guest(image, accel, memory, **options)
    line = guest.wait_line("UNO-APPLIANCE-UP", limit)
    if line is None:
        guest.kill()
        tail = " | ".join(x for x in guest.lines[-3:] if x)
        raise ApplianceError(f"the guest did not finish booting in {limit:g} s under "
                             f"{accel.upper()} (last console lines: {tail or 'none'})")
    booted = time.monotonic() - guest.started
    guest.wait_agent(60)
    return guest, booted


@dataclass
class Run:
    """What every scenario is given: the image, how to boot it, and what earlier scenarios
    left (``installed``: the disk with the table installed, powered off cleanly)."""

    image: Path
    accel: str
    memory: int
    cache: Path
    boot_limit: float
    installed: Path | None = None
    results: dict[str, Any] = field(default_factory=dict)
    say: Callable[[str], None] = progress

    def boot(self, **options: Any) -> tuple[Guest, float]:
        """A guest booted (on a copy of the installed disk when there is one, unless
        ``overlay`` or ``backing`` says otherwise): the guest and its boot's seconds."""
        if self.installed is not None and "overlay" not in options:
            options.setdefault("backing", self.installed)
        return boot(self.image, self.accel, self.memory, self.boot_limit, **options)


def _load(name: str) -> Any:
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name != name:
            raise
        return None


def main(argv: list[str] | None = None) -> int:
    """Build, boot, run the scenarios; the last line one JSON object."""
    parser = argparse.ArgumentParser(prog="./uno appliance", description=__doc__.split("\n")[0])
    parser.add_argument("--cache", type=Path, default=CACHE, help="where the image is kept")
    parser.add_argument("--memory", type=int, default=1536, help="the guest's MB (1536)")
    parser.add_argument("--tcg", action="store_true", help="TCG without trying KVM")
    parser.add_argument("--boot-limit", type=float, default=600.0,
                        help="seconds a boot may take before the guest counts as stuck (600)")
    parser.add_argument("--only", nargs="+", metavar="NAME",
                        help="run only these scenarios (install, bridge, gpio, cuts)")
    parser.add_argument("--installed", type=Path, metavar="DISK",
                        help="the disk an earlier install scenario left (its guest folder's "
                             "disk.qcow2): the later scenarios boot copies of it")
    args = parser.parse_args(argv)
    started = time.monotonic()
    out: dict[str, Any] = {"kvm": None}
    for _, fields in SCENARIOS:
        out.update(dict.fromkeys(fields))
    not_done: list[str] = []
    phases: dict[str, float] = {}
    try:
        need_tools()
        modules = [(name, fields, _load(name)) for name, fields in SCENARIOS]
        packages = [p for _, _, m in modules if m is not None for p in getattr(m, "PACKAGES", ())]
        image = build_image(args.cache, packages, progress)
        phases["image_s"] = round(time.monotonic() - started, 1)
        accel = choose_accel(image, args.memory, args.tcg)
        progress(f"guests run under {accel.upper()}")
        out["kvm"] = accel == "kvm"
        run = Run(image, accel, args.memory, args.cache, args.boot_limit)
        if args.installed is not None:
            if not args.installed.is_file():
                raise ApplianceError(f"--installed {args.installed}: no such disk (an install "
                                     "scenario's guest folder holds disk.qcow2)")
            run.installed = args.installed.resolve()
        for name, fields, module in modules:
            short = name.removeprefix("appliance_")
            if module is None or (args.only and short not in args.only):
                not_done.append(short)
                continue
            began = time.monotonic()
            progress(f"{short}: started")
            found = module.scenario(run)
            run.results.update(found)
            out.update({k: v for k, v in found.items()})
            phases[f"{short}_s"] = round(time.monotonic() - began, 1)
            progress(f"{short}: done in {phases[f'{short}_s']:.0f} s: {json.dumps(found)}")
            if any(found.get(f) is None for f in fields):
                not_done.append(short)
    except ApplianceError as exc:
        print(f"appliance: {exc}", file=sys.stderr)
        return 2
    phases["total_s"] = round(time.monotonic() - started, 1)
    out["phases"] = phases
    out["load_average"] = round(os.getloadavg()[0], 1)
    out["not_done"] = not_done
    failed = judged(out)
    print(json.dumps(out), flush=True)
    return 1 if not_done or failed else 0


if __name__ == "__main__":
    sys.exit(main())
