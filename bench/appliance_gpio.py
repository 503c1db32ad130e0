"""``./uno appliance``, the buttons (issue 32, item 4): seat buttons through a real kernel.

The guest gets a real GPIO chip: gpio-sim (built for the guest's kernel by
``gpio_sim_build.py``, kept beside the cached image), loaded with ``insmod`` and made through
configfs with 28 lines named ``GPIO0`` to ``GPIO27``, the BCM numbers of the Pi's header. An x86
guest has no other GPIO chip, so it is ``/dev/gpiochip0``, the chip gpiozero's lgpio factory
opens on every Pi but the 5. A button's press is its line pulled low: gpio-sim's sysfs ``pull``
attribute set to ``pull-down`` (the level the line's consumer reads, with an edge event), then
back to ``pull-up``, written from the host through the guest agent.

What is faked, here and nowhere in the product: gpiozero asks the board's revision of
``/proc/cpuinfo`` (or the device tree) to know its header, and an x86 guest has none. The
daemon's unit gets a drop-in binding a copy of ``/proc/cpuinfo`` with the ``Revision`` line of a
Raspberry Pi 4 Model B (``c03114``, the board of ``examples/bridge-four-seats.toml``) over
``/proc/cpuinfo`` in its own mount namespace, and the commands run here get the same bind in a
namespace of their own (``unshare``). Nothing else of the guest is a Pi: the GPIO character
devices are the group ``gpio``'s by the udev rule ``sudo ./uno install`` wrote (Debian leaves
them root's only), and the service opens the chip as its own user.
The drop-in also adds ``--events`` to the daemon's command, so that its verdicts can be read
from the host, and the configuration loses the ``pin_factory = "mock"`` the other scenarios
give it: gpiozero chooses its factory, lgpio first, as on a Pi.

Then, on the table installed by the install scenario (its configuration, its unit, its venv):

1. every configured button, pressed on the chip, reaches the referee: the service's event
   stream shows the press and its verdict;
2. ``uno-table doctor``, as the installing user, requests every button's line with edge
   detection, and names the one line a second program (``gpioset``) holds;
3. ``uno-table check-table --buttons``, as the installing user, asks for each press in turn and
   is answered by a press of the button it names: all PASS;
4. the daemon, started with a line held, stops with the advice that names what fixes it.
"""

from __future__ import annotations

import json
import shlex
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from appliance_table import STATE
from gpio_sim_build import BuildError, build_module
from guest import USER, ApplianceError, Guest

PACKAGES = ("gpiod",)  # gpiodetect, gpioinfo, gpioset: a second program holding a line
LINES = 28  # BCM 0 to 27
CONFIG = "/etc/uno-table/config.toml"
DECK = "/etc/uno-table/deck.toml"
EVENTS = f"{STATE}/appliance-events.jsonl"
FAKE = "/run/uno-appliance/cpuinfo"
REVISION = "c03114"  # a Raspberry Pi 4 Model B 1.4 (gpiozero's table of boards)
DROP_IN = "/etc/systemd/system/uno-table.service.d/appliance-gpio.conf"
PRESS_S = 0.2  # how long a press holds the line low
WAIT_S = 120.0  # the longest wait for one answer of the table under TCG
READY_WAIT_S = 600.0  # the service's start under TCG: Python's imports, the Japanese voice
# lgpio's x86-64 wheel uses SSE4.1, which TCG's default CPU (qemu64) lacks: "Illegal
# instruction" at import. TCG's "max" model has it (KVM's "host" too, given by the Guest).
CPU = ("-cpu", "max")

CHIP = """set -e
modprobe configfs
mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
insmod {module}
d=/sys/kernel/config/gpio-sim/uno-table
mkdir $d $d/bank0
echo {lines} > $d/bank0/num_lines
i=0
while [ $i -lt {lines} ]; do
    mkdir $d/bank0/line$i && echo GPIO$i > $d/bank0/line$i/name; i=$((i + 1))
done
echo 1 > $d/live
udevadm settle
echo /sys/devices/platform/$(cat $d/dev_name)/$(cat $d/bank0/chip_name)
"""
PRETEND = f"""set -e
sed -i '/^pin_factory = "mock"$/d' {CONFIG}
mkdir -p {Path(FAKE).parent}
{{ cat /proc/cpuinfo; printf 'Revision\\t: {REVISION}\\n'; }} > {FAKE}
mkdir -p {Path(DROP_IN).parent}
start=$(sed -n 's/^ExecStart=//p' /etc/systemd/system/uno-table.service)
printf '[Service]\\nBindReadOnlyPaths={FAKE}:/proc/cpuinfo\\nExecStart=\\nExecStart=%s --events \
{EVENTS}\\n' "$start" > {DROP_IN}
systemctl daemon-reload
"""


class Chip:
    """The gpio-sim chip in the guest: its sysfs folder, and its lines pressed from the host."""

    def __init__(self, guest: Guest, folder: str) -> None:
        self.guest, self.folder = guest, folder

    def press(self, line: int) -> None:
        """A button's press and release: the line pulled low, then high again."""
        pull = f"{self.folder}/sim_gpio{line}/pull"
        self.guest.check(f"echo pull-down > {pull}; sleep {PRESS_S}; echo pull-up > {pull}", 30)


def make_chip(guest: Guest, module: Path) -> Chip:
    """gpio-sim loaded in the guest and its chip made through configfs."""
    where = "/run/gpio-sim.ko"
    guest.write_file(where, module.read_bytes())
    folder = guest.check(CHIP.format(module=where, lines=LINES), 120).strip().splitlines()[-1]
    return Chip(guest, folder)


def as_pi(command: str, user: str | None = USER) -> str:
    """``command`` (as ``user``, a fresh login) with the Pi 4's revision in /proc/cpuinfo, in a
    mount namespace of its own: the rest of the guest still sees its own."""
    inner = command if user is None else f"runuser -l {user} -c {shlex.quote(command)}"
    return (f"unshare --mount --propagation private sh -c "
            f"{shlex.quote(f'mount --bind {FAKE} /proc/cpuinfo && exec {inner}')}")


def buttons(guest: Guest) -> list[tuple[str, str, int]]:
    """The configured buttons of the installed table: (player, button, BCM pin), seat by
    seat, read from its configuration by the guest's own Python."""
    script = ("import json, tomllib; c = tomllib.load(open('" + CONFIG + "', 'rb'))\n"
              "seats = c.get('controls', {}).get('seats', {})\n"
              "print(json.dumps([[p, b, n] for p, s in seats.items() for b, n in s.items() "
              "if b != 'led']))")
    found = json.loads(guest.check(f"python3 -c {shlex.quote(script)}"))
    return [(player, name, int(pin)) for player, name, pin in found]


def events(guest: Guest) -> list[dict[str, Any]]:
    """The daemon's event stream so far."""
    code, out, _ = guest.run(f"cat {EVENTS}", 30)
    return [json.loads(line) for line in out.splitlines() if line.strip()] if code == 0 else []


def wait_for(guest: Guest, found: Any, what: str, timeout: float = WAIT_S) -> Any:
    """``found()`` polled until it gives something; ApplianceError naming ``what`` after
    ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while True:
        got = found()
        if got:
            return got
        if time.monotonic() > deadline:
            raise ApplianceError(f"gpio: no {what} in {timeout:g} s")
        time.sleep(0.5)


def presses_reach_referee(guest: Guest, chip: Chip, wanted: list[tuple[str, str, int]]
                          ) -> dict[str, Any]:
    """The service started on the chip; every button pressed once: each press's event and the
    verdict that follows it, as the host reads them."""
    guest.check(f"rm -f {EVENTS}; systemctl restart uno-table", 120)
    started = time.monotonic()
    try:
        wait_for(guest, lambda: [e for e in events(guest) if e.get("type") == "ready"],
                 "ready event from the service", READY_WAIT_S)
    except ApplianceError as exc:
        _, said, _ = guest.run("journalctl -u uno-table -o cat --no-pager | tail -n 8", 60)
        raise ApplianceError(f"{exc}; the service's last words: "
                             f"{' | '.join(said.strip().splitlines())}") from None
    ready_s = time.monotonic() - started
    reached: list[str] = []
    missed: list[str] = []
    for player, name, pin in wanted:
        seen = len(events(guest))
        chip.press(pin)

        def verdict(seen: int = seen, player: str = player, name: str = name) -> Any:
            new = events(guest)[seen:]
            pressed = [i for i, e in enumerate(new) if e.get("type") == "press"
                       and (e.get("seat"), e.get("button")) == (player, name)]
            return [e for e in new[pressed[0]:] if e.get("type") == "verdict"
                    and e.get("input") == "press"][:1] if pressed else []

        try:
            got = wait_for(guest, verdict, f"verdict for {player}'s {name} (GPIO{pin})", 60)
            reached.append(f"{player} {name} GPIO{pin}: {got[0]['verdict']} {got[0]['reason']}")
        except ApplianceError:
            missed.append(f"{player} {name} GPIO{pin}")
    return {"pressed": len(wanted), "reached": reached, "missed": missed,
            "service_ready_s": round(ready_s, 1)}


@contextmanager
def held(guest: Guest, pin: int) -> Iterator[str]:
    """GPIO ``pin`` requested by a second program (gpiod's ``gpioset``, as another driver or
    program would hold it) while the block runs; what ``gpioinfo`` says of the line."""
    guest.check(f"setsid gpioset --mode=signal gpiochip0 {pin}=1 >/dev/null 2>&1 & "
                "echo $! > /run/appliance-gpioset.pid", 30)
    try:
        line = wait_for(guest, lambda: [x for x in guest.check("gpioinfo gpiochip0", 30)
                                        .splitlines() if f'"GPIO{pin}"' in x and "gpioset" in x],
                        f"gpioset holding GPIO{pin}", 60)
        yield " ".join(line[0].split())
    finally:
        guest.run("kill $(cat /run/appliance-gpioset.pid)", 30)


def doctor(guest: Guest, wanted: list[tuple[str, str, int]], pin: int) -> dict[str, Any]:
    """``uno-table doctor`` as the installing user, with the service stopped and ``pin`` held:
    every other button's line requested with edge detection, the held one named."""
    guest.check("systemctl stop uno-table", 120)
    with held(guest, pin) as holder:
        _, out, err = guest.run(as_pi(f"uno-table doctor --config {CONFIG}"), 600)
    lines = out.splitlines()
    fine = [x for x in lines if x.startswith("ok ") and "line requested with edge detection" in x]
    named = [f"{x.strip()} {lines[i + 1].strip()}" for i, x in enumerate(lines[:-1])
             if x.startswith("FIX") and f"(GPIO{pin})" in x]
    ok = len(fine) == len(wanted) - 1 and len(named) == 1 and "gpioinfo" in named[0]
    return {"doctor_ok": ok, "doctor_lines_ok": len(fine), "doctor_held": named,
            "gpioinfo": holder, **({} if ok else {"doctor_output": (out + err)[-2000:]})}


def _lines(guest: Guest, path: str) -> list[str]:
    """The whole lines written to ``path`` in the guest so far."""
    _, out, _ = guest.run(f"cat {path}", 30)
    return out.split("\n")[:-1]


def check_table(guest: Guest, chip: Chip, wanted: list[tuple[str, str, int]]) -> dict[str, Any]:
    """``uno-table check-table --buttons`` as the installing user; each press it asks for
    given on the line it names, as a person at the table would."""
    log = "/run/appliance-check-buttons.log"
    command = as_pi(f"uno-table check-table --buttons --config {CONFIG} --timeout 60")
    guest.check(f"setsid sh -c {shlex.quote(f'{command} > {log} 2>&1; echo EXIT $? >> {log}')}"
                " > /dev/null 2>&1 &", 30)
    read = asked = 0
    while True:
        new = wait_for(guest, lambda done=read: _lines(guest, log)[done:],
                       "line from check-table")
        read += len(new)
        for line in new:
            if line.startswith(">>> press"):
                chip.press(int(line.rsplit("(GPIO", 1)[1].split(")")[0]))
                asked += 1
        if any(line.startswith("EXIT") for line in new):
            break
    _, text, _ = guest.run(f"cat {log}", 30)
    code = int(text.rsplit("EXIT ", 1)[1].split()[0])
    passes = [x for x in text.splitlines() if x.startswith("PASS")]
    ok = code == 0 and asked == len(wanted) and len(passes) == len(wanted)
    return {"check_table_ok": ok, "check_table_asked": asked, "check_table_pass": len(passes),
            **({} if ok else {"check_table_output": text[-2000:]})}


def daemon_advice(guest: Guest, pin: int) -> dict[str, Any]:
    """The service started while ``pin`` is held: the line it leaves in the log names the pin,
    what it is for and what fixes it."""
    since = guest.check("date +%s", 30).strip()
    with held(guest, pin):
        guest.run("systemctl restart uno-table", 120)
        said = wait_for(guest, lambda: [
            x for x in guest.check(f"journalctl -u uno-table -o cat --since @{since}", 60)
            .splitlines() if f"GPIO{pin}" in x], f"word from the service on GPIO{pin}", 180)
    return {"advice_ok": "gpioinfo" in said[0], "advice": said[0][-400:]}


def ahead(run: Any) -> Path:
    """This machine's part, done while the install runs: gpio-sim built for the guest's
    kernel (kept beside the image)."""
    return build_module(run.image, run.say)


def scenario(run: Any) -> dict[str, Any]:
    """Item 4 on the installed table: ``buttons_ok`` when every press reaches the referee,
    doctor names the held line, check-table passes every button and the daemon's advice names
    the fix; the details and the seconds each part took beside it."""
    if run.installed is None:
        return {"buttons_ok": None, "buttons_not_run": "needs the install scenario's table"}
    began = time.monotonic()
    try:
        early = run.early.get(__name__)
        module = early.result() if early is not None else ahead(run)
    except BuildError as exc:
        raise ApplianceError(f"gpio: {exc}") from None
    out: dict[str, Any] = {"gpio_module_s": round(time.monotonic() - began, 1)}
    guest, boot_s = run.boot(qemu_args=CPU)
    out["gpio_boot_s"] = round(boot_s, 1)
    began = time.monotonic()
    try:
        guest.check(PRETEND, 60)
        chip = make_chip(guest, module)
        run.say(f"gpio: gpio-sim's chip at {chip.folder}")
        # The installer's udev rule, not the harness, gives the chip to the group gpio.
        out["chip_owner"] = guest.check("stat -c '%U:%G %a' /dev/gpiochip0", 30).strip()
        guest.check(f"test -e {DECK} || uno-table deck virtual --out {DECK}", 300)
        wanted = buttons(guest)
        presses = presses_reach_referee(guest, chip, wanted)
        run.say(f"gpio: {len(presses['reached'])} of {len(wanted)} presses reached the referee")
        held_pin = wanted[-1][2]
        out.update(presses)
        out.update(doctor(guest, wanted, held_pin))
        out.update(check_table(guest, chip, wanted))
        out.update(daemon_advice(guest, held_pin))
    finally:
        guest.close()
    out["gpio_scenario_s"] = round(time.monotonic() - began, 1)
    out["buttons_ok"] = bool(wanted) and not out["missed"] and all(
        out[k] for k in ("doctor_ok", "check_table_ok", "advice_ok"))
    return out
