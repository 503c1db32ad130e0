"""The appliance's first scenario: the install for real, as a maker runs it on a fresh Pi.

In the booted guest (systemd, udev, the network through qemu's user-mode network), the
installing user ``maker`` copies the checkout to its home and runs ``sudo ./uno install
examples/bridge-four-seats.toml``; runs it again (it must change nothing and say so); then, as
itself without sudo, ``uno-table check-table`` and the hardware tests' collection (no
"Permission denied"); ``systemd-analyze verify`` of the unit must be clean. The configuration is
then made the guest's, as docs/building.md tells a maker (the bridge's port its by-path name,
read from /dev/serial/by-path), the machine powered off and booted again with the bridge
plugged in: the service starts at boot, and the referee's ``ready`` is timed from the kernel's
start (the journal's monotonic clock) and from qemu's start (the host's clock).

The disk is kept, powered off cleanly: every later scenario boots a copy of it.
"""

from __future__ import annotations

import re
import time
from typing import Any

from appliance import Run
from appliance_table import VENV, GuestTable, by_path, guest_config
from guest import USER, Guest, GuestError

PACKAGES: tuple[str, ...] = ()
EXAMPLE = "examples/bridge-four-seats.toml"
# For the timed boot only, the service's log is copied to the serial console, where the host
# sees its ``ready`` line; the drop-in is removed after it.
CONSOLE = "/etc/systemd/system/uno-table.service.d/appliance-console.conf"
CONSOLE_DROP_IN = b"[Service]\nStandardError=journal+console\n"
HOME = f"/home/{USER}/uno-table"
UNIT = "/etc/systemd/system/uno-table.service"
# A configuration changed after the install gets its unit again, as docs/building.md tells a
# maker: the install run once more (the sandbox follows the configuration: ``[web]`` on opens
# AF_INET; off, the unit has no network at all).
INSTALL = f"cd {HOME} && sudo ./uno install {EXAMPLE}"
COPY = (f"mkdir -p {HOME} && tar -C /mnt/checkout --exclude=./.venv --exclude=./.appliance "
        f"--exclude=./.git --exclude='*/__pycache__' -cf - . | tar -C {HOME} -xf -")


def timed(guest: Guest, command: str, timeout: float, **options: Any
          ) -> tuple[int, str, str, float]:
    """``guest.run`` and its seconds."""
    began = time.monotonic()
    code, out, err = guest.run(command, timeout, **options)
    return code, out, err, round(time.monotonic() - began, 1)


def install_twice(run: Run, guest: Guest, found: dict[str, Any]) -> None:
    """The install, then again; ``install_twice_ok`` and both runs' seconds in ``found``."""
    guest.check(COPY, 300, user=USER)
    code, out, err, seconds = timed(guest, INSTALL, 3600, user=USER)
    found["install_s"] = seconds
    run.say(f"install: first run exit {code} in {seconds:.0f} s")
    if code != 0:
        run.say("install: " + " | ".join((out + err).strip().splitlines()[-5:]))
        found["install_twice_ok"] = False
        return
    first_changes = [line for line in out.splitlines() if line.startswith("changed ")]
    code2, out2, err2, seconds2 = timed(guest, INSTALL, 900, user=USER)
    found["install_again_s"] = seconds2
    again = [line for line in out2.splitlines() if line.startswith("changed ")]
    said = "nothing changed: everything was in place" in out2
    run.say(f"install: {len(first_changes)} changes, then exit {code2} in {seconds2:.0f} s "
            f"with {len(again)} changes{' (says so)' if said else ''}")
    for line in again + (err2.strip().splitlines() if code2 else []):
        run.say(f"install: second run: {line}")
    found["install_twice_ok"] = code2 == 0 and not again and said


def bring_up(run: Run, guest: Guest, found: dict[str, Any]) -> None:
    """The next steps of docs/building.md as the installing user, without sudo; the unit
    verified."""
    guest.check(f"sudo {VENV}/bin/pip install -q pytest", 900,
                user=USER)  # as building.md's hardware tests say: pytest is not in the extras
    checks = {
        "check_table": "uno-table check-table --config /etc/uno-table/config.toml --timeout 2",
        "hw_tests": f"cd {HOME} && {VENV}/bin/python -m pytest "
                    "hw_tests --hw --hw-config /etc/uno-table/config.toml --collect-only -q",
    }
    denied = []
    for name, command in checks.items():
        code, out, err = guest.run(command, 300, user=USER)
        text = out + err
        run.say(f"bring-up: {name} as {USER}: exit {code}: "
                f"{(text.strip().splitlines() or ['no output'])[-1][:160]}")
        if "ermission denied" in text or "PermissionError" in text:
            denied.append(name)
    found["bring_up_without_sudo_ok"] = not denied
    code, out, err = guest.run(f"systemd-analyze verify {UNIT}", 120)
    found["unit_verify_ok"] = code == 0 and not (out + err).strip()
    run.say(f"bring-up: systemd-analyze verify: exit {code}"
            f"{': ' + (out + err).strip() if (out + err).strip() else ', clean'}")


def ready_at(guest: Guest, timeout: float) -> float | None:
    """The kernel's seconds (the journal's monotonic clock) at the service's ``ready`` line,
    or None. Awaited on the console (:data:`CONSOLE`), so nothing runs in the guest meanwhile:
    a journalctl each second took a share of its one CPU from the start it timed."""
    if guest.wait_line("daemon: ready", timeout) is None:
        return None
    code, out, _ = guest.run("journalctl -b -u uno-table -o short-monotonic --no-pager "
                             "| grep -m1 'daemon: ready'", 60)
    match = re.match(r"\[\s*([0-9.]+)\]", out.strip())
    return float(match.group(1)) if code == 0 and match else None


def scenario(run: Run) -> dict[str, Any]:
    """Install twice, bring up, boot with the bridge: the fields of the last line."""
    found: dict[str, Any] = {"boot_to_ready_s": None, "install_twice_ok": None}
    with GuestTable(run) as table:
        guest, boot_s = run.boot(**table.plugged())
        found["first_boot_s"] = round(boot_s, 1)
        run.say(f"install: guest booted in {boot_s:.0f} s")
        try:
            install_twice(run, guest, found)
            if found["install_twice_ok"] is False:
                guest.kill()
                return found
            bring_up(run, guest, found)
            port = by_path(guest)
            run.say(f"install: the bridge is {port} in the guest")
            installed = guest.check("cat /etc/uno-table/config.toml")
            guest.write_file("/etc/uno-table/config.toml",
                             guest_config(installed, port).encode())
            code, out, _ = guest.run(INSTALL, 900, user=USER)  # the unit for the web view
            found["unit_again_ok"] = code == 0 and "changed service: " in out
            run.say(f"install: run again after the configuration's edit: exit {code}, "
                    f"{'the unit written again' if found['unit_again_ok'] else 'unit unchanged'}")
            guest.check(f"mkdir -p {CONSOLE.rsplit('/', 1)[0]}")
            guest.write_file(CONSOLE, CONSOLE_DROP_IN)
            guest.poweroff()
            guest, boot_s = run.boot(overlay=guest.overlay, folder=guest.folder,
                                     **table.plugged())
            seconds = ready_at(guest, 120)
            guest.check(f"rm {CONSOLE}")
            found["second_boot_s"] = round(boot_s, 1)
            found["boot_to_ready_host_s"] = round(time.monotonic() - guest.started, 1)
            if seconds is not None:
                found["boot_to_ready_s"] = round(seconds, 1)
            _, out, _ = guest.run("systemctl is-enabled uno-table; systemctl is-active "
                                  "uno-table", 30)
            run.say(f"install: after the reboot the service is {' and '.join(out.split())}; "
                    f"ready {seconds} s after the kernel started")
            guest.poweroff()
            run.installed = guest.overlay
        except GuestError as exc:
            run.say(f"install: {exc}")
            guest.kill()
            found["install_twice_ok"] = found.get("install_twice_ok") or False
    return found
