"""``./uno appliance`` on a machine that cannot start a guest: one line naming what is missing
and the command that installs it, exit 2, never a traceback. (The guest itself boots in
minutes, so the appliance runs on its own, not in this suite.)"""

from __future__ import annotations

import lzma
import os
import struct
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from table.runtime.config import load_config

ROOT = Path(__file__).resolve().parent.parent
APPLIANCE = ROOT / "bench" / "appliance.py"
sys.path.insert(0, str(ROOT / "bench"))


@pytest.mark.parametrize(("tools", "missing"), [
    ((), "qemu-system-x86_64 not found (Debian package qemu-system-x86)"),
    (("qemu-system-x86_64",), "qemu-img not found (Debian package qemu-utils)"),
    (("qemu-system-x86_64", "qemu-img"), "debootstrap not found (Debian package debootstrap)"),
])
def test_a_machine_without_the_tools_is_told_what_to_install(
        tmp_path: Path, tools: tuple[str, ...], missing: str) -> None:
    for tool in tools:  # present, but never run before the check of the next
        (tmp_path / tool).write_text("#!/bin/sh\nexit 99\n")
        (tmp_path / tool).chmod(0o755)
    done = subprocess.run([sys.executable, str(APPLIANCE), "--cache", str(tmp_path / "cache")],
                          env={"PATH": str(tmp_path)}, capture_output=True, text=True,
                          timeout=60)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"appliance: {missing}: sudo sh .ci/sysdeps.sh appliance\n"
    assert not (tmp_path / "cache").exists()  # nothing built


def test_a_base_that_cannot_be_built_is_one_line(tmp_path: Path) -> None:
    """debootstrap failing (no network, a mirror down) is one line naming the step, exit 2."""
    for tool in ("qemu-system-x86_64", "qemu-img", "debootstrap", "mke2fs", "nice"):
        (tmp_path / tool).write_text("#!/bin/sh\necho 'E: cannot reach the mirror' >&2\n"
                                     "exit 99\n")
        (tmp_path / tool).chmod(0o755)
    done = subprocess.run([sys.executable, str(APPLIANCE), "--cache", str(tmp_path / "cache")],
                          env={"PATH": str(tmp_path)}, capture_output=True, text=True,
                          timeout=60)
    assert (done.returncode, done.stdout) == (2, "")
    assert "Traceback" not in done.stderr
    last = done.stderr.splitlines()[-1]
    if os.geteuid() == 0:  # after the progress line that says what is being built
        assert last == "appliance: debootstrap failed (exit 99): E: cannot reach the mirror"
    else:
        assert last == ("appliance: building the guest image needs root (debootstrap): "
                        "sudo ./uno appliance")


def test_a_change_of_the_installer_or_of_a_scenario_s_packages_keeps_the_debootstrap() -> None:
    """The debootstrapped base (minutes) is keyed by its package list alone: the installer,
    pyproject.toml and a scenario's extra packages make a new image from it in seconds."""
    import guest_image
    assert guest_image.image_key(["mosquitto"]) != guest_image.image_key([])
    assert guest_image.image_key(["a", "b"]) == guest_image.image_key(["b", "a", "a"])
    before = guest_image.base_key()
    guest_image.BASE_PACKAGES = (*guest_image.BASE_PACKAGES, "mosquitto")
    try:
        assert guest_image.base_key() != before
    finally:
        guest_image.BASE_PACKAGES = guest_image.BASE_PACKAGES[:-1]
    assert guest_image.base_key() == before


def test_a_change_of_the_installer_or_of_pyproject_makes_a_new_image_on_the_same_base(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The image (and its wheelhouse) is made again when the installer or pyproject.toml
    changes, the debootstrapped base is kept; a dependency added to pyproject.toml is in the
    wheelhouse the guest's pip is offered, and so are the installer's pins."""
    import guest_image
    copies = tuple(tmp_path / path.name for path in guest_image.KEYED)
    for path, copy in zip(guest_image.KEYED, copies, strict=True):
        copy.write_bytes(path.read_bytes())
    monkeypatch.setattr(guest_image, "KEYED", copies)
    base, image = guest_image.base_key(), guest_image.image_key([])
    wanted, pins = guest_image.wheel_requirements()
    assert {"setuptools>=64", "spidev", "lgpio", "pytest"} <= set(wanted)
    assert any(r.startswith("pyopenjtalk-ndy==") for r in wanted)  # the japanese extra
    assert any(r.startswith("paho-mqtt") for r in wanted)  # the hub's, for the power cuts
    assert [p.split("==")[0] for p in pins] == ["mfrc522"]  # installed --no-deps
    installer, pyproject = copies
    installer.write_text(installer.read_text() + "# one more line\n")
    assert guest_image.base_key() == base
    assert guest_image.image_key([]) != image
    again = guest_image.image_key([])
    pyproject.write_text(pyproject.read_text().replace(
        'dependencies = [\n', 'dependencies = [\n    "tomli-w>=1.0",\n', 1))
    assert "tomli-w>=1.0" in guest_image.wheel_requirements()[0]
    assert "'tomli-w>=1.0'" in guest_image.wheel_script()
    assert guest_image.image_key([]) not in (image, again)
    assert guest_image.base_key() == base


def test_the_guest_s_configuration_is_the_example_with_its_bridge_by_path(tmp_path: Path) -> None:
    """The installed example made the guest's as a maker would: every bridge reader on the
    by-path name udev gave the bridge; what a guest lacks (SPI, a Pi's GPIO) replaced; the
    table's own loader takes it."""
    from appliance_table import guest_config
    port = "/dev/serial/by-path/pci-0000:00:04.0-usb-0:1:1.0-port0"
    text = guest_config((ROOT / "examples/bridge-four-seats.toml").read_text(), port)
    config = tomllib.loads(text)
    assert [(r["name"], r["role"], r["kind"], r["port"], r["channel"]) for r in config["readers"]] \
        == [("pad", "play", "bridge", port, 0), ("aki-pad", "seat", "bridge", port, 1),
            ("ken-pad", "seat", "bridge", port, 2), ("mio-pad", "seat", "bridge", port, 3)]
    assert config["controls"]["pin_factory"] == "mock"
    assert config["controls"]["seats"]["Yui"]["uno"] == 21  # the example's pins kept
    assert config["web"]["enabled"] is True
    assert config["table"]["pronunciations"]["Aki"] == "あき"
    mine = tmp_path / "config.toml"
    mine.write_text(text.replace("/var/lib/uno-table/", f"{tmp_path}/"))
    loaded = load_config(mine, need_deck=False)
    assert [r.name for r in loaded.readers] == ["pad", "aki-pad", "ken-pad", "mio-pad"]


def test_boot_to_ready_over_its_bound_fails_the_run() -> None:
    """Boot to the referee's ready is judged against its bound (90 s under TCG, 20 s with
    KVM), beside the losses and the ``_ok`` fields: a slow boot is a failed run, not a number
    nobody reads."""
    from appliance import judged

    tcg = {"kvm": False, "boot_to_ready_s": 77.5, "lost": 0, "replug_ok": True}
    assert judged(tcg) == [] and tcg["boot_to_ready_ok"] is True
    slow = {"kvm": False, "boot_to_ready_s": 138.7, "lost": 0}
    assert judged(slow) == ["boot_to_ready_ok"]
    assert judged({"kvm": True, "boot_to_ready_s": 21.0}) == ["boot_to_ready_ok"]
    assert judged({"kvm": False, "boot_to_ready_s": None, "lost": 1}) == ["lost"]


def test_the_power_cuts_run_beside_the_scenarios_after_them(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch
                                                             ) -> None:
    """The power cuts run in a process of their own, started once the install left its disk
    and finished beside the bridge and the GPIO chip, told when those are done (a second chain
    of cuts then takes the core they leave): their fields reach the last line, and the fields
    the process did not fill leave the install's alone."""
    import argparse
    import json
    from types import SimpleNamespace

    import appliance

    disk = tmp_path / "disk.qcow2"
    gpio_done = tmp_path / "gpio-done"
    started: list[list[str]] = []
    # The process apart: started before the GPIO scenario, beside it.
    # It is told on its stdin when the scenarios beside it are done (its second chain of cuts
    # starts then): it counts its cuts only when the GPIO scenario had ended by then.
    child = (f"import json, pathlib, sys\nmark = pathlib.Path({str(gpio_done)!r})\n"
             "told = sys.stdin.readline() == 'free\\n'\n"
             "print(json.dumps({'kvm': False, 'boot_to_ready_s': None, 'power_cuts': 32 if "
             "told and mark.exists() else 0, 'lost': 0, 'acknowledged': 78, "
             "'cut_cycle_s': 22.0, 'phases': {'cuts_s': 700.0}, 'not_done': ['install']}))")

    def apart(args: argparse.Namespace, run: appliance.Run, short: str
              ) -> subprocess.Popen[str]:
        started.append([short, str(run.installed)])
        return subprocess.Popen([sys.executable, "-c", child], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, text=True)

    def install(run: appliance.Run) -> dict[str, object]:
        run.installed = disk
        return {"boot_to_ready_s": 70.0, "install_twice_ok": True}

    def gpio(run: appliance.Run) -> dict[str, object]:
        assert started  # the cuts had started before it
        gpio_done.touch()
        return {"buttons_ok": True}

    monkeypatch.setattr(appliance, "apart", apart)
    modules = [("appliance_install", ("boot_to_ready_s",), SimpleNamespace(scenario=install)),
               ("appliance_cuts", ("power_cuts", "lost"), SimpleNamespace(scenario=None)),
               ("appliance_bridge", ("replug_ok",), None),
               ("appliance_gpio", ("buttons_ok",), SimpleNamespace(scenario=gpio))]
    run = appliance.Run(tmp_path, "tcg", 512, tmp_path, 60.0, say=lambda _: None)
    out: dict[str, object] = {}
    phases: dict[str, float] = {}
    args = argparse.Namespace(only=None)
    not_done = appliance.scenarios(args, run, modules, out, phases)
    assert started == [["cuts", str(disk)]]
    assert out["power_cuts"] == 32 and out["cut_cycle_s"] == 22.0
    assert out["boot_to_ready_s"] == 70.0 and out["buttons_ok"] is True
    assert "kvm" not in out and phases["cuts_s"] == 700.0
    assert not_done == ["bridge"]
    assert json.dumps(out)  # the last line can carry it
    # The bridge's late plug is timed against its bound: no guest of the run's beside it.
    order = [name for name, _ in appliance.SCENARIOS]
    assert "appliance_cuts" in appliance.APART
    assert order.index("appliance_bridge") < order.index("appliance_cuts")


def test_a_scenario_run_apart_starts_this_script_with_only_it(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch
                                                              ) -> None:
    """The process apart is this script, asked for that one scenario on the same image, cache
    and installed disk, TCG when the run is."""
    import argparse

    import appliance

    seen: list[list[str]] = []

    class Popen:
        def __init__(self, command: list[str], **_: object) -> None:
            seen.append(command)

    monkeypatch.setattr(subprocess, "Popen", Popen)
    run = appliance.Run(tmp_path, "tcg", 1536, tmp_path, 600.0, installed=tmp_path / "d.qcow2",
                        say=lambda _: None)
    args = argparse.Namespace(cache=tmp_path, memory=1536, boot_limit=600.0)
    appliance.apart(args, run, "cuts")
    assert seen[0][1:] == [str(APPLIANCE), "--only", "cuts", "--cache", str(tmp_path),
                           "--memory", "1536", "--boot-limit", "600.0", "--beside", "--tcg",
                           "--installed", str(tmp_path / "d.qcow2")]


def test_a_lift_the_web_stream_leaves_out_is_not_a_missing_input() -> None:
    """The replug's check: every input numbered once. A card lifted off the pad is an input
    (numbered, journaled) that the web stream never shows; its number comes from the guest's
    journal, so it is not counted missing, while a verdict really missing still is."""
    from types import SimpleNamespace

    from appliance_bridge import numbered_once

    seen = SimpleNamespace(events=[{"type": "verdict", "n": n} for n in (1, 2, 4)])
    assert numbered_once(seen, ["tag", "tag", "lift", "tag"]) == (True, {})  # type: ignore[arg-type]
    ok, why = numbered_once(seen, ["tag", "tag", "tag", "tag"])  # type: ignore[arg-type]
    assert not ok and why["replug_missing"] == [3] and why["replug_journal"] == 4
    seen.events.append({"type": "verdict", "n": 4})
    ok, why = numbered_once(seen, ["tag", "tag", "lift", "tag"])  # type: ignore[arg-type]
    assert not ok and why["replug_twice"] == [4]
    ok, why = numbered_once(SimpleNamespace(events=[{"type": "verdict", "n": 1}]),  # type: ignore[arg-type]
                            ["tag", "tag"])  # the journal's last input never reached the host
    assert not ok and why["replug_missing"] == [2]


def _elf_with_note(note_type: int) -> bytes:
    """A 64-bit ELF file whose one program header is a note: Xen's, of ``note_type``."""
    note = struct.pack("<III", 4, 4, note_type) + b"Xen\0" + struct.pack("<I", 0x1000000)
    header = bytearray(64)
    header[:6] = b"\x7fELF\x02\x01"
    struct.pack_into("<Q", header, 0x20, 64)  # program headers right after this one
    struct.pack_into("<HH", header, 0x36, 56, 1)
    program = struct.pack("<IIQQQQQQ", 4, 4, 64 + 56, 0, 0, len(note), len(note), 4)
    return bytes(header) + program + note


@pytest.mark.parametrize(("note_type", "booted"), [(18, "vmlinux"), (17, "vmlinuz"),
                                                   (None, "vmlinuz")])
def test_the_guest_boots_the_kernel_unpacked_at_its_pvh_entry(
        tmp_path: Path, note_type: int | None, booted: str) -> None:
    """A bzImage's xz payload with the PVH entry note is unpacked once into ``vmlinux`` (qemu
    boots it in half a second where the bzImage's own unpacking took six under TCG); a kernel
    without that entry, or not a whole ELF file, is booted as it is."""
    from guest_kernel import boot_kernel

    elf = _elf_with_note(note_type) if note_type else _elf_with_note(18)[:70]  # cut short
    (tmp_path / "vmlinuz").write_bytes(b"MZ" + bytes(600) + b"HdrS" + bytes(400)
                                       + lzma.compress(elf, format=lzma.FORMAT_XZ) + bytes(64))
    assert boot_kernel(tmp_path) == tmp_path / booted
    if booted == "vmlinux":
        assert (tmp_path / "vmlinux").read_bytes() == elf
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted({"vmlinuz", booted})


def test_the_second_chain_of_cuts_takes_cycles_only_once_the_cores_are_free() -> None:
    """The cut cycles in two chains: the first alone while the scenarios beside it run, the
    second once they are done, opening with taps. Every cycle is cut once, in the seeded
    order; a chain that comes when none is left cuts nothing."""
    import threading

    from appliance_chains import Cycles, in_chains

    modes = ["tap", "repair", "hub", "tap", "enroll", "repair", "tap", "hub", "tap", "tap"]
    free = threading.Event()
    taken: dict[int, list[tuple[int, str]]] = {0: [], 1: []}
    done = threading.Condition()

    def evening(index: int, take: object) -> None:
        assert callable(take)
        while (cycle := take()) is not None:
            with done:
                taken[index].append(cycle)
                done.notify_all()
                if index == 0 and len(taken[0]) == 3:
                    free.set()  # the scenarios beside the cuts end here
                    # the first goes on once the second has its opening cycle
                    assert done.wait_for(lambda: bool(taken[1]), 60)

    in_chains(Cycles(modes), 2, evening, free)
    assert taken[0][:3] == [(0, "tap"), (1, "repair"), (2, "hub")]
    assert taken[1][0][1] == "tap"  # the second chain's evening starts with taps
    every = sorted(taken[0] + taken[1])
    assert every == list(enumerate(modes))  # each cycle once
    for chain in taken.values():  # each chain in the seeded order, but for its opening tap
        numbers = [n for n, _ in chain[1:]]
        assert numbers == sorted(numbers)

    late: dict[int, list[tuple[int, str]]] = {0: [], 1: []}

    def alone(index: int, take: object) -> None:
        assert callable(take)
        while (cycle := take()) is not None:
            late[index].append(cycle)

    in_chains(Cycles(modes), 2, alone, threading.Event())  # never free: the first does all
    assert late == {0: list(enumerate(modes)), 1: []}


def test_the_chains_tallies_sum_into_the_last_line() -> None:
    """Each chain keeps its own tally (its own disk, journal and deck): the last line sums
    them, and a loss in either chain fails the run."""
    from appliance import judged
    from appliance_cuts import Tally, tallied

    first = Tally([], acknowledged={1, 2, 3}, enrolled={"0C0001A5"}, resumed=[True, True],
                  cycles=[{"mode": "tap", "cycle_s": 20.0}, {"mode": "enroll", "cycle_s": 22.0},
                          {"mode": "wear", "cycle_s": 30.0}])
    second = Tally([], acknowledged={1, 2}, hub_acked={"2/c5/1"}, resumed=[True],
                   lost={"input 2"},
                   cycles=[{"mode": "tap", "cycle_s": 18.0},
                           {"mode": "hub", "cycle_s": 25.0, "error": "no PUBACK"},
                           {"mode": "wear", "cycle_s": 25.0}])
    out = tallied([first, second])
    assert out["power_cuts"] == 3 and out["cuts_by_mode"] == {"enroll": 1, "tap": 2}
    assert out["acknowledged"] == 6  # inputs numbered from 1 on each chain's own journal
    assert out["lost"] == 1 and out["lost_items"] == ["1 input 2"]
    assert out["hub_acknowledged"] == 1 and out["resumed_ok"] is True
    assert out["cut_cycle_s"] == 23.3 and len(out["cut_errors"]) == 1
    assert judged({"kvm": False, **out}) == ["lost"]
