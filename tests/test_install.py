"""``sudo ./uno install`` on a Raspberry Pi, faked at its edges: twice, and the second run
changes nothing. The Pi's files (config.txt, the board's model, /etc, /usr/local) lie under
UNO_ROOT; apt, dpkg, the user and group tools and python3 are fakes that keep their state in
files and log what they were asked. (bench/install_root.py runs the same script in a real fresh
Debian root, arm64 under qemu-user where binfmt_misc allows it: minutes, so not here.)
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REAL_TOOLS = ("sh", "dirname", "grep", "tr", "find", "sort", "xargs", "cat", "sha256sum", "cut",
              "mkdir", "ln", "readlink", "install", "cmp", "mktemp", "rm", "env", "cp", "chmod",
              "tail")
PACKAGES = "python3 python3-venv python3-dev gcc libc6-dev espeak-ng alsa-utils"

FAKES = {
    "dpkg": r"""#!/bin/sh
grep -qx "$2" "$STATE/installed" || exit 1
echo "Status: install ok installed"
""",
    "apt-get": r"""#!/bin/sh
echo "apt-get $*" >> "$STATE/log"
for word in "$@"; do
    case $word in -*|install|update|DPkg*) ;; *) echo "$word" >> "$STATE/installed" ;; esac
done
if grep -qx python3 "$STATE/installed"; then cp "$STATE/python3" "$BIN/python3"; fi
""",
    "id": r"""#!/bin/sh
case $1 in
-u) echo "$FAKE_UID" ;;
-nG) grep " $2\$" "$STATE/members" | cut -d' ' -f1 | tr '\n' ' '; echo ;;
esac
""",
    "getent": r"""#!/bin/sh
grep -q "^$2:" "$STATE/$1"
""",
    "groupadd": r"""#!/bin/sh
echo "groupadd $*" >> "$STATE/log"
for last; do :; done
echo "$last:" >> "$STATE/group"
""",
    "useradd": r"""#!/bin/sh
echo "useradd $*" >> "$STATE/log"
for last; do :; done
echo "$last:" >> "$STATE/passwd"
echo "$last:" >> "$STATE/group"
""",
    "usermod": r"""#!/bin/sh
echo "usermod $*" >> "$STATE/log"
echo "$2 $3" >> "$STATE/members"
""",
    # Owners and groups of files under UNO_ROOT, kept in a list (the test runs as root, and the
    # machine has no user uno-table).
    "chown": r"""#!/bin/sh
echo "chown $*" >> "$STATE/log"
echo "$2 ${1#*:}" >> "$STATE/owners"
""",
    "chgrp": r"""#!/bin/sh
echo "chgrp $*" >> "$STATE/log"
echo "$2 $1" >> "$STATE/owners"
""",
    "stat": r"""#!/bin/sh
group=$(grep "^$3 " "$STATE/owners" | tail -n 1 | cut -d' ' -f2)
echo "${group:-root}"
""",
}
# python3: a version check passes; -m venv makes DIR/bin/python (itself); -m pip logs the
# install and puts an uno-table beside it whose `service` prints a unit.
FAKE_PYTHON = r"""#!/bin/sh
here=$(dirname "$0")
case $1 in
-c) exit 0 ;;
-m)
    case $2 in
    venv) echo "venv $3" >> "$STATE/log"; mkdir -p "$3/bin"; cp "$0" "$3/bin/python" ;;
    pip)
        echo "pip $*" >> "$STATE/log"
        printf '#!/bin/sh\nprintf "[Service]\\nExecStart=%%s run\\n" "$0"\n' > "$here/uno-table"
        chmod +x "$here/uno-table" ;;
    esac ;;
esac
"""


class Pi:
    """A fresh Raspberry Pi OS, faked: its packages, users and groups, and its files."""

    def __init__(self, tmp: Path, model: str = "Raspberry Pi 5 Model B Rev 1.0") -> None:
        self.checkout = tmp / "uno-table"
        shutil.copytree(ROOT, self.checkout, ignore=shutil.ignore_patterns(
            ".venv", ".git", ".appliance", "__pycache__", "*_cache", "tests", "docs", "bench"))
        self.root, self.state, self.bin = tmp / "root", tmp / "state", tmp / "bin"
        for folder in (self.root / "boot/firmware", self.root / "proc/device-tree", self.state,
                       self.bin):
            folder.mkdir(parents=True)
        (self.root / "boot/firmware/config.txt").write_text("[all]\n#dtparam=spi=on\n")
        self.set_model(model)
        (self.state / "installed").write_text("")
        (self.state / "group").write_text("dialout:\naudio:\nsudo:\n")
        (self.state / "passwd").write_text("pi:\n")
        for name in ("log", "members", "owners"):
            (self.state / name).write_text("")
        for tool in REAL_TOOLS:
            found = shutil.which(tool)
            assert found, tool
            (self.bin / tool).symlink_to(found)
        for name, text in FAKES.items():
            self._script(self.bin / name, text)
        self._script(self.state / "python3", FAKE_PYTHON)
        self.env = {"PATH": str(self.bin), "STATE": str(self.state), "BIN": str(self.bin),
                    "FAKE_UID": "0", "UNO_ROOT": str(self.root), "SUDO_USER": "pi",
                    "HOME": str(tmp)}

    def set_model(self, model: str) -> None:
        (self.root / "proc/device-tree/model").write_bytes(model.encode() + b"\0")

    @staticmethod
    def _script(path: Path, text: str) -> None:
        path.write_text(text)
        path.chmod(0o755)

    def install(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["sh", "./uno", "install", *args], cwd=self.checkout, env=self.env,
                              stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=60)

    def log(self) -> list[str]:
        return (self.state / "log").read_text().splitlines()


def test_a_second_install_changes_nothing_and_says_so(tmp_path: Path) -> None:
    pi = Pi(tmp_path)
    first = pi.install()
    assert first.returncode == 0, first.stdout + first.stderr
    changed = [line for line in first.stdout.splitlines() if line.startswith("changed")]
    venv = f"{pi.root}/usr/local/lib/uno-table/venv"
    modules = pi.root / "etc/modules-load.d/uno-table.conf"
    rule = pi.root / "etc/udev/rules.d/60-uno-table.rules"
    assert changed == [
        f"changed packages: {PACKAGES} installed",
        "changed group spi made", "changed group gpio made",
        "changed user uno-table made (the service runs as it)",
        *[f"changed user {user} added to group {group} (log in again to use it)"
          for user in ("uno-table", "pi") for group in ("spi", "gpio", "dialout", "audio")],
        # the one installing reads /etc/uno-table: check-table and hw_tests without sudo
        "changed user pi added to group uno-table (log in again to use it)",
        f"changed folder {pi.root}/var/lib/uno-table for the journal, the service user's",
        f"changed modules: usbserial cdc_acm snd loaded at boot ({modules})",
        f"changed devices: /dev/gpiochip* group gpio, /dev/spidev* group spi ({rule})",
        f"changed SPI: dtparam=spi=on added to {pi.root}/boot/firmware/config.txt (reboot "
        "before the readers can work)",
        f"changed venv: uno-table with the pi extra installed in {venv} (Raspberry Pi 5 Model B "
        "Rev 1.0)",
        "changed command: /usr/local/bin/uno-table",
        f"changed folder {pi.root}/etc/uno-table: group uno-table, mode 2750 (its group reads "
        "the deck file)",
        f"changed config: {pi.root}/etc/uno-table/config.toml from examples/spi-pad.toml (edit "
        "the players and readers)",
        f"changed service: {pi.root}/etc/systemd/system/uno-table.service written",
    ]
    pips = [line for line in pi.log() if line.startswith("pip ")]
    assert [p.split("install ")[1] for p in pips] == [f"{pi.checkout}[pi]",
                                                       "--no-deps mfrc522==0.0.7"]
    assert (pi.root / "etc/uno-table/config.toml").read_text() == (
        ROOT / "examples/spi-pad.toml").read_text()
    assert (pi.root / "etc/systemd/system/uno-table.service").read_text() == (
        f"[Service]\nExecStart={venv}/bin/uno-table run\n")
    assert (pi.root / "usr/local/bin/uno-table").readlink() == Path(f"{venv}/bin/uno-table")
    assert oct((pi.root / "etc/uno-table").stat().st_mode & 0o7777) == oct(0o2750)
    boot = (pi.root / "boot/firmware/config.txt").read_text()
    assert boot.count("dtparam=spi=on") == 2  # the commented line left, one line added
    # A bridge plugged in after boot, a sound card that comes up after the service: their
    # drivers' major numbers are there when the service starts (the unit's
    # DeviceAllow=char-ttyUSB and char-alsa), and the GPIO chips are the gpio group's.
    assert [m for m in modules.read_text().splitlines() if not m.startswith("#")] == [
        "usbserial", "cdc_acm", "snd"]
    assert 'SUBSYSTEM=="gpio", KERNEL=="gpiochip*", GROUP="gpio", MODE="0660"' in \
        rule.read_text().splitlines()

    before = pi.log()
    second = pi.install()
    assert second.returncode == 0, second.stdout + second.stderr
    assert not [line for line in second.stdout.splitlines() if line.startswith("changed")]
    assert second.stdout.splitlines()[-1] == "nothing changed: everything was in place"
    assert pi.log() == before  # nothing installed, made or added
    assert (pi.root / "boot/firmware/config.txt").read_text() == boot


def test_a_config_of_ones_own_is_kept_and_every_board_gets_lgpio(tmp_path: Path) -> None:
    pi = Pi(tmp_path)
    assert pi.install().returncode == 0
    mine = pi.root / "etc/uno-table/config.toml"
    mine.write_text("# my table\n")
    pi.set_model("Raspberry Pi 4 Model B Rev 1.4")  # the card moved to another Pi
    again = pi.install("examples/bridge-four-seats.toml")
    assert again.returncode == 0, again.stderr
    assert "ok      config: " in again.stdout and mine.read_text() == "# my table\n"
    assert again.stdout.splitlines()[-1] == "nothing changed: everything was in place"


def test_an_older_venv_loses_the_original_rpi_gpio(tmp_path: Path) -> None:
    """A venv made with the original RPi.GPIO (the old pi extra): both RPi.GPIO packages are
    removed before the extra brings rpi-lgpio back, so the file is lgpio's."""
    pi = Pi(tmp_path, model="Raspberry Pi 4 Model B Rev 1.4")
    assert pi.install().returncode == 0
    (pi.root / "usr/local/lib/uno-table/venv/.uno-stamp").write_text("older\n")
    again = pi.install()
    assert again.returncode == 0, again.stderr
    pips = [line.split("--quiet ")[1] for line in pi.log() if line.startswith("pip ")]
    assert pips[-3:] == ["uninstall -y RPi.GPIO rpi-lgpio", f"install {pi.checkout}[pi]",
                         "install --no-deps mfrc522==0.0.7"]


def test_a_japanese_table_gets_open_jtalk_in_one_pip_run(tmp_path: Path) -> None:
    """The four-seat example speaks Japanese: the installer adds Open JTalk's dictionary with
    the other packages and the japanese extra in the same pip run as the pi extra (pip is slow
    on a small Pi), and a second run leaves them."""
    pi = Pi(tmp_path)
    first = pi.install("examples/bridge-four-seats.toml")
    assert first.returncode == 0, first.stderr
    assert f"changed packages: {PACKAGES} open-jtalk-mecab-naist-jdic installed" in first.stdout
    venv = f"{pi.root}/usr/local/lib/uno-table/venv"
    assert f"changed venv: uno-table with the pi and japanese extras installed in {venv} " \
           "(Raspberry Pi 5 Model B Rev 1.0)" in first.stdout
    pips = [line.split("--quiet ")[1] for line in pi.log() if line.startswith("pip ")]
    assert pips == [f"install {pi.checkout}[pi,japanese]", "install --no-deps mfrc522==0.0.7"]
    again = pi.install("examples/bridge-four-seats.toml")
    assert again.returncode == 0, again.stderr
    assert not [line for line in again.stdout.splitlines() if line.startswith("changed")]
    english = Pi(tmp_path / "en")
    assert english.install().returncode == 0
    assert not any("jdic" in line or ",japanese]" in line for line in english.log())


def test_a_table_turned_japanese_after_the_install_gets_its_voice(tmp_path: Path) -> None:
    """The configuration there decides, not the example named: made Japanese after the first
    install, the next install brings the dictionary and the japanese extra."""
    pi = Pi(tmp_path)
    assert pi.install().returncode == 0
    config = pi.root / "etc/uno-table/config.toml"
    config.write_text(config.read_text().replace('language = "en"', 'language = "ja"'))
    assert 'language = "ja"' in config.read_text()
    again = pi.install()
    assert again.returncode == 0, again.stderr
    assert "changed packages: open-jtalk-mecab-naist-jdic installed" in again.stdout
    assert f"install {pi.checkout}[pi,japanese]" in pi.log()[-2]


def test_install_needs_root_and_a_real_example(tmp_path: Path) -> None:
    pi = Pi(tmp_path)
    pi.env["FAKE_UID"] = "1000"
    done = pi.install()
    assert (done.returncode, done.stderr) == (1, "install: run it as root: sudo ./uno install\n")
    pi.env["FAKE_UID"] = "0"
    done = pi.install("examples/nope.toml")
    assert done.returncode == 1
    assert done.stderr == "install: examples/nope.toml: no such example (see examples/*.toml)\n"
    assert pi.log() == []
