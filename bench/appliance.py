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
   every later scenario boots a copy of it), the USB serial bridge, the power cuts, the GPIO
   chip. The power cuts run in a process of their own (``--only cuts --beside``) beside the
   GPIO chip, one guest each on two cores (TCG runs a one-CPU guest on one), and take the
   second core too once the GPIO chip is done (a second chain of cycles, told on its stdin);
   the bridge, whose late plug is timed, runs alone before them. What a scenario needs from
   this machine only (the GPIO chip's kernel module) is built while the install runs. Progress
   on the terminal, each line named by its scenario.

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
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
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
# The scenarios, in the order they start: (module in bench/, the fields of the last line it
# fills). Each module has PACKAGES (extra Debian packages for the image) and
# scenario(run: Run) -> dict of those fields; it may have ahead(run), this machine's part,
# started in a thread once the image is built (its result: ``Run.early``). A module not there
# yet is a scenario not done.
SCENARIOS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("appliance_install", ("boot_to_ready_s", "install_twice_ok")),
    ("appliance_bridge", ("late_device_ok", "late_device_s", "replug_ok", "taps_per_s")),
    ("appliance_cuts", ("power_cuts", "acknowledged", "lost", "unopenable", "hub_power_cuts",
                        "hub_lost")),
    ("appliance_gpio", ("buttons_ok",)),
)
# Run in a process of their own beside the scenarios after them (when any runs): the power
# cuts' boots on one core, the GPIO chip's guest on the other, then the cuts on both (told when
# the scenarios beside them are done: ``tell_free``). The bridge runs before, alone:
# its late plug is timed against a bound (5 s), and a guest beside it took that from 0.55 s to
# 2.97 s.
APART = ("appliance_cuts",)
RUN_OWN = ("kvm", "phases", "not_done", "load_average")  # the last line's fields of the run
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
        ended = guest.proc.poll() is not None  # its kernel stopped (a panic): qemu is gone
        seconds = time.monotonic() - guest.started
        guest.kill()
        tail = " | ".join(x for x in guest.lines if x and "Kernel panic" in x) or \
            " | ".join(x for x in guest.lines[-3:] if x)
        said = (f"stopped after {seconds:.0f} s" if ended
                else f"did not finish booting in {limit:g} s")
        raise ApplianceError(f"the guest {said} under {accel.upper()} (console: "
                             f"{tail or 'nothing'})")
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
    early: dict[str, Future[Any]] = field(default_factory=dict)
    # Set once the machine's cores are this process's own: at once, unless it runs beside
    # other scenarios (``--beside``: then when their process says they are done).
    free: threading.Event = field(default_factory=threading.Event)

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


def apart(args: argparse.Namespace, run: Run, short: str) -> subprocess.Popen[str]:
    """Scenario ``short`` started in a process of its own (this script, ``--only short``, the
    same image, cache and installed disk): its progress on the terminal, its last line read
    by ``joined``."""
    command = [sys.executable, str(Path(__file__).resolve()), "--only", short,
               "--cache", str(args.cache), "--memory", str(args.memory),
               "--boot-limit", str(args.boot_limit), "--beside"]
    if run.accel == "tcg":
        command.append("--tcg")
    if run.installed is not None:
        command += ["--installed", str(run.installed)]
    run.say(f"{short}: started in a process of its own, beside the scenarios after it")
    return subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)


def tell_free(child: subprocess.Popen[str]) -> None:
    """A process run apart told that the scenarios beside it are done: one line on its
    stdin (``--beside``)."""
    if child.stdin is None:
        return
    try:
        child.stdin.write("free\n")
        child.stdin.flush()
    except OSError:  # it has ended already
        pass


def await_free(run: Run, beside: bool) -> None:
    """``run.free`` set at once, or (``beside``) once a line or the end comes on stdin."""
    if not beside:
        run.free.set()
        return

    def listen() -> None:
        sys.stdin.readline()
        run.free.set()

    threading.Thread(target=listen, daemon=True).start()


def joined(child: subprocess.Popen[str], short: str, fields: tuple[str, ...]
           ) -> tuple[dict[str, Any], float | None]:
    """What a scenario run apart found (its last line's fields but the run's own), and its
    seconds; nothing when it ended without a last line."""
    out, _ = child.communicate()
    try:
        theirs = json.loads(out.strip().splitlines()[-1])
    except (IndexError, ValueError):
        progress(f"{short}: its process ended (exit {child.returncode}) without a last line")
        return {}, None
    found = {k: v for k, v in theirs.items()
             if k not in RUN_OWN and (k in fields or v is not None)}
    return found, theirs.get("phases", {}).get(f"{short}_s")


def scenarios(args: argparse.Namespace, run: Run, modules: list[tuple[str, Any, Any]],
              out: dict[str, Any], phases: dict[str, float]) -> list[str]:
    """Every scenario asked for, in order, those in APART beside the ones after them: their
    fields into ``out``, their seconds into ``phases``; the names of those not done."""
    asked = [(name, fields, module) for name, fields, module in modules if module is not None
             and (not args.only or name.removeprefix("appliance_") in args.only)]
    not_done = [name.removeprefix("appliance_") for name, _, _ in modules
                if name not in [a for a, _, _ in asked]]
    running: list[tuple[str, tuple[str, ...], subprocess.Popen[str]]] = []
    try:
        for index, (name, fields, module) in enumerate(asked):
            short = name.removeprefix("appliance_")
            if name in APART and index < len(asked) - 1:
                running.append((short, fields, apart(args, run, short)))
                continue
            began = time.monotonic()
            progress(f"{short}: started")
            found = module.scenario(run)
            run.results.update(found)
            out.update(found)
            phases[f"{short}_s"] = round(time.monotonic() - began, 1)
            progress(f"{short}: done in {phases[f'{short}_s']:.0f} s: {json.dumps(found)}")
            if any(found.get(f) is None for f in fields):
                not_done.append(short)
        for _, _, child in running:
            tell_free(child)
        for short, fields, child in running:
            found, seconds = joined(child, short, fields)
            out.update(found)
            if seconds is not None:
                phases[f"{short}_s"] = seconds
            if any(found.get(f) is None for f in fields):
                not_done.append(short)
        running.clear()
    finally:
        for _, _, child in running:  # the run stopped early: so do the processes it started
            child.terminate()
            child.wait()
    return not_done


def main(argv: list[str] | None = None) -> int:
    """Build, boot, run the scenarios; the last line one JSON object."""
    parser = argparse.ArgumentParser(prog="./uno appliance", description=__doc__.split("\n")[0])
    parser.add_argument("--cache", type=Path, default=CACHE, help="where the image is kept")
    parser.add_argument("--memory", type=int, default=1536, help="the guest's MB (1536)")
    parser.add_argument("--tcg", action="store_true", help="TCG without trying KVM")
    parser.add_argument("--boot-limit", type=float, default=600.0,
                        help="seconds a boot may take before the guest counts as stuck (600)")
    parser.add_argument("--only", nargs="+", metavar="NAME",
                        help="run only these scenarios (install, bridge, cuts, gpio)")
    parser.add_argument("--installed", type=Path, metavar="DISK",
                        help="the disk an earlier install scenario left (its guest folder's "
                             "disk.qcow2): the later scenarios boot copies of it")
    parser.add_argument("--beside", action="store_true",
                        help="other scenarios run beside this process: what would use the "
                             "second core (the cuts' second chain) waits for a line on stdin")
    args = parser.parse_args(argv)
    started = time.monotonic()
    out: dict[str, Any] = {"kvm": None}
    for _, fields in SCENARIOS:
        out.update(dict.fromkeys(fields))
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
        await_free(run, args.beside)
        if args.installed is not None:
            if not args.installed.is_file():
                raise ApplianceError(f"--installed {args.installed}: no such disk (an install "
                                     "scenario's guest folder holds disk.qcow2)")
            run.installed = args.installed.resolve()
        with ThreadPoolExecutor(max_workers=1) as pool:
            for name, _, module in modules:
                short = name.removeprefix("appliance_")
                if hasattr(module, "ahead") and (not args.only or short in args.only):
                    run.early[name] = pool.submit(module.ahead, run)
            not_done = scenarios(args, run, modules, out, phases)
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
