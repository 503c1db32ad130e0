#!/bin/sh
# Set up a Raspberry Pi to referee: `sudo ./uno install [EXAMPLE]` (docs/building.md).
#
#   1. Debian packages: python3-venv, and python3-dev and gcc to build spidev;
#      espeak-ng (the voice), alsa-utils (aplay plays it); for a Japanese table (language =
#      "ja" in the configuration it will run), Open JTalk's dictionary open-jtalk-mecab-naist-jdic.
#   2. The service user uno-table, and the groups spi, gpio, dialout and audio (made when the
#      system lacks them), with that user and the one running sudo in each, the one running
#      sudo in group uno-table too (it reads /etc/uno-table: check-table and hw_tests without
#      sudo); its state folder /var/lib/uno-table (the journal).
#   2b. Devices: the USB serial drivers loaded at every boot (/etc/modules-load.d), so a bridge
#      plugged in after the service started is a device the service may open; the GPIO chips
#      and SPI devices given to the groups gpio and spi (a udev rule, as Raspberry Pi OS has).
#   3. SPI on: raspi-config nonint do_spi 0, or dtparam=spi=on in config.txt (reboot after).
#   4. A virtual environment in /usr/local/lib/uno-table with uno-table, its pi extra (GPIO
#      through lgpio on every board: rpi-lgpio, gpiozero; with the japanese extra too for a
#      Japanese table, in the same pip run) and mfrc522 without its dependencies (never the
#      original RPi.GPIO, removed from an older venv), and /usr/local/bin/uno-table pointing
#      into it. Made again only when the checkout or the extras changed.
#   5. /etc/uno-table (group uno-table, mode 2750: the service reads the deck file enrolled
#      there) and its config.toml from an example (default examples/spi-pad.toml), only when
#      there is none: a configuration of your own is never overwritten.
#   6. The systemd unit of `uno-table service`, installed and enabled (started after enrolment).
#
# Idempotent: every step first looks, and acts only when something is missing; a second run
# changes nothing and says so. UNO_ROOT (tests only) puts every file it reads or writes under
# another folder.
set -eu
cd "$(dirname "$0")/.."
CHECKOUT=$(pwd)

ROOT=${UNO_ROOT:-}
PREFIX=$ROOT/usr/local/lib/uno-table
VENV=$PREFIX/venv
CONF_DIR=$ROOT/etc/uno-table
STATE_DIR=$ROOT/var/lib/uno-table
UNIT=$ROOT/etc/systemd/system/uno-table.service
MODEL_FILE=$ROOT/proc/device-tree/model
USER_NAME=uno-table
GROUPS_WANTED="spi gpio dialout audio"
PACKAGES="python3 python3-venv python3-dev gcc libc6-dev espeak-ng alsa-utils"
EXAMPLE=${1:-examples/spi-pad.toml}
MODULES_FILE=$ROOT/etc/modules-load.d/uno-table.conf
# usbserial gives /dev/ttyUSB* its major number, cdc_acm /dev/ttyACM*'s, snd (ALSA's core)
# /dev/snd/*'s (modules on Raspberry Pi OS and Debian): a sound card that comes up after the
# service started is then a device the voice may open.
MODULES="usbserial cdc_acm snd"
UDEV_RULE=$ROOT/etc/udev/rules.d/60-uno-table.rules
changed=0

say() { printf '%s\n' "$*"; }
ok() { say "ok      $*"; }
did() {
    say "changed $*"
    changed=$((changed + 1))
}
die() {
    say "install: $*" >&2
    exit 1
}
# put FILE TEXT WHAT: FILE made to hold TEXT unless it does already; says which (status 1 when
# nothing changed).
put() {
    if [ "$(cat "$1" 2>/dev/null)" = "$2" ]; then
        ok "$3"
        return 1
    fi
    install -d -m 755 "$(dirname "$1")"
    printf '%s\n' "$2" >"$1"
    did "$3 ($1)"
}

[ "$(id -u)" -eq 0 ] || die "run it as root: sudo ./uno install"
[ -f "$EXAMPLE" ] || die "$EXAMPLE: no such example (see examples/*.toml)"

# The configuration the table will run: the one there, else the example. A Japanese table
# (language = "ja") gets Open JTalk: its dictionary from Debian, the japanese extra in the venv.
config_source=$EXAMPLE
[ ! -f "$CONF_DIR/config.toml" ] || config_source=$CONF_DIR/config.toml
extra=pi
if grep -Eq '^[[:space:]]*language[[:space:]]*=[[:space:]]*"ja"' "$config_source"; then
    PACKAGES="$PACKAGES open-jtalk-mecab-naist-jdic"
    extra=pi,japanese
fi
extras_said="$extra extra"
[ "$extra" = pi ] || extras_said="pi and japanese extras"

# 1. Packages.
missing=""
for pkg in $PACKAGES; do
    dpkg -s "$pkg" 2>/dev/null | grep -q '^Status: install ok installed$' || missing="$missing $pkg"
done
if [ -n "$missing" ]; then
    # shellcheck disable=SC2086  # a list of package names
    env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 update -qq &&
        env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq \
            --no-install-recommends $missing >/dev/null ||
        die "apt-get could not install:$missing"
    did "packages:$missing installed"
else
    ok "packages: $PACKAGES"
fi
python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' ||
    die "uno-table needs Python 3.11 or newer (Raspberry Pi OS Bookworm or later): $(python3 -V 2>&1)"

# 2. The service user and the groups.
for group in $GROUPS_WANTED; do
    if ! getent group "$group" >/dev/null; then
        groupadd --system "$group"
        did "group $group made"
    fi
done
if ! getent passwd "$USER_NAME" >/dev/null; then
    useradd --system --home-dir /var/lib/uno-table --no-create-home \
        --shell /usr/sbin/nologin --user-group "$USER_NAME"
    did "user $USER_NAME made (the service runs as it)"
fi
for member in $USER_NAME ${SUDO_USER:-}; do
    [ "$member" != root ] || continue
    wanted=$GROUPS_WANTED
    # The one installing reads /etc/uno-table (group uno-table) for check-table and hw_tests.
    [ "$member" = "$USER_NAME" ] || wanted="$wanted $USER_NAME"
    for group in $wanted; do
        if id -nG "$member" | tr ' ' '\n' | grep -qx "$group"; then
            continue
        fi
        usermod -aG "$group" "$member"
        did "user $member added to group $group (log in again to use it)"
    done
done
ok "groups: $USER_NAME${SUDO_USER:+ and $SUDO_USER} in $GROUPS_WANTED${SUDO_USER:+ ($SUDO_USER in $USER_NAME too)}"
if [ ! -d "$STATE_DIR" ]; then
    install -d -m 750 "$STATE_DIR"
    chown "$USER_NAME:$USER_NAME" "$STATE_DIR"
    did "folder $STATE_DIR for the journal, the service user's"
fi

# 2b. Devices. A unit's DeviceAllow=char-ttyUSB finds the major number of /dev/ttyUSB* only
# when usbserial is loaded as the service starts: loaded at every boot, a bridge plugged in
# later is a device the service may open (else it stays refused until a restart). The same for
# char-alsa and the sound card.
modules_wanted=$(printf '# uno-table: USB serial readers and sound cards that come up after it starts\n'
    for module in $MODULES; do printf '%s\n' "$module"; done)
put "$MODULES_FILE" "$modules_wanted" "modules: $MODULES loaded at boot" || true
if [ -z "$ROOT" ] && command -v modprobe >/dev/null 2>&1; then
    # shellcheck disable=SC2086  # a list of module names
    modprobe -a -q $MODULES 2>/dev/null || true
fi
# The GPIO chips and SPI devices for their groups (Raspberry Pi OS's own rules do the same;
# elsewhere they are root's alone, and the buttons and readers could not be opened).
rule_wanted='# uno-table: lgpio opens /dev/gpiochip*, the readers /dev/spidev*
SUBSYSTEM=="gpio", KERNEL=="gpiochip*", GROUP="gpio", MODE="0660"
SUBSYSTEM=="spidev", GROUP="spi", MODE="0660"'
if put "$UDEV_RULE" "$rule_wanted" "devices: /dev/gpiochip* group gpio, /dev/spidev* group spi" &&
    [ -z "$ROOT" ] && command -v udevadm >/dev/null 2>&1; then
    udevadm control --reload-rules 2>/dev/null || true
    udevadm trigger --subsystem-match=gpio --subsystem-match=spidev 2>/dev/null || true
fi

# 3. SPI.
if [ -z "$ROOT" ] && command -v raspi-config >/dev/null 2>&1; then
    if [ "$(raspi-config nonint get_spi)" = 0 ]; then
        ok "SPI: on"
    else
        raspi-config nonint do_spi 0
        did "SPI: turned on with raspi-config (reboot before the readers can work)"
    fi
else
    boot=""
    for candidate in "$ROOT/boot/firmware/config.txt" "$ROOT/boot/config.txt"; do
        if [ -f "$candidate" ]; then
            boot=$candidate
            break
        fi
    done
    if [ -z "$boot" ]; then
        say "warning SPI: no /boot/firmware/config.txt (not Raspberry Pi OS?): turn SPI on yourself"
    elif grep -q '^[[:space:]]*dtparam=spi=on' "$boot"; then
        ok "SPI: dtparam=spi=on in $boot"
    else
        printf '\n# uno-table: the readers are on SPI\ndtparam=spi=on\n' >>"$boot"
        did "SPI: dtparam=spi=on added to $boot (reboot before the readers can work)"
    fi
fi

# 4. The virtual environment, with the pi extra: lgpio on every board (the original RPi.GPIO's
# edge detection fails on Bookworm's kernels 6.6 and later, and it cannot drive a Pi 5).
model=""
if [ -r "$MODEL_FILE" ]; then model=$(tr -d '\000' <"$MODEL_FILE"); fi
# What the venv was made from: this checkout's files and the extra.
stamp=$(
    {
        echo "$extra"
        find pyproject.toml setup.py table sim firmware_bridge -type f \
            ! -name '*.pyc' ! -path '*/__pycache__/*' | LC_ALL=C sort | xargs cat
    } | sha256sum | cut -d' ' -f1
)
if [ -f "$VENV/.uno-stamp" ] && [ "$(cat "$VENV/.uno-stamp")" = "$stamp" ]; then
    ok "venv: $VENV has this checkout with the $extras_said${model:+ ($model)}"
else
    [ -x "$VENV/bin/python" ] || python3 -m venv "$VENV" || die "python3 -m venv $VENV failed"
    pip="$VENV/bin/python -m pip --disable-pip-version-check --quiet"
    if [ -f "$VENV/.uno-stamp" ]; then
        # An older venv may hold the original RPi.GPIO, whose file rpi-lgpio shares: both go,
        # and rpi-lgpio comes back with the extra.
        $pip uninstall -y RPi.GPIO rpi-lgpio >/dev/null 2>&1 || true
    fi
    $pip install "$CHECKOUT[$extra]" || die "pip install $CHECKOUT[$extra] failed"
    # mfrc522 requires the original RPi.GPIO: rpi-lgpio stands in for it.
    $pip install --no-deps mfrc522==0.0.7 || die "pip install mfrc522 failed"
    echo "$stamp" >"$VENV/.uno-stamp"
    did "venv: uno-table with the $extras_said installed in $VENV${model:+ ($model)}"
fi
mkdir -p "$ROOT/usr/local/bin"
if [ "$(readlink "$ROOT/usr/local/bin/uno-table" 2>/dev/null)" != "$VENV/bin/uno-table" ]; then
    ln -sfn "$VENV/bin/uno-table" "$ROOT/usr/local/bin/uno-table"
    did "command: /usr/local/bin/uno-table"
fi

# 5. The configuration, in a folder whose group (the service's) reads the deck file written in
# it (set-group-ID: `sudo uno-table enroll` writes it root's, mode 0640, group uno-table).
if [ ! -d "$CONF_DIR" ] || [ "$(stat -c %G "$CONF_DIR")" != "$USER_NAME" ]; then
    install -d "$CONF_DIR"
    chgrp "$USER_NAME" "$CONF_DIR"
    chmod 2750 "$CONF_DIR"
    did "folder $CONF_DIR: group $USER_NAME, mode 2750 (its group reads the deck file)"
fi
if [ -f "$CONF_DIR/config.toml" ]; then
    ok "config: $CONF_DIR/config.toml is there (left as it is)"
else
    install -m 644 "$EXAMPLE" "$CONF_DIR/config.toml"
    did "config: $CONF_DIR/config.toml from $EXAMPLE (edit the players and readers)"
fi

# 6. The service.
new=$(mktemp)
trap 'rm -f "$new"' EXIT
"$VENV/bin/uno-table" service --config /etc/uno-table/config.toml --user "$USER_NAME" >"$new" ||
    die "uno-table service could not write the unit"
if [ -f "$UNIT" ] && cmp -s "$new" "$UNIT"; then
    ok "service: $UNIT"
else
    install -d -m 755 "$(dirname "$UNIT")"
    install -m 644 "$new" "$UNIT"
    did "service: $UNIT written"
    if [ -z "$ROOT" ] && [ -d /run/systemd/system ]; then systemctl daemon-reload; fi
fi
if [ -z "$ROOT" ] && command -v systemctl >/dev/null 2>&1; then
    if [ "$(systemctl is-enabled uno-table 2>/dev/null)" = enabled ]; then
        ok "service: enabled"
    else
        systemctl enable uno-table >/dev/null 2>&1 || die "systemctl enable uno-table failed"
        did "service: enabled (starts at boot)"
    fi
else
    say "warning service: no systemd here: the unit is written, not enabled"
fi

if [ "$changed" -eq 0 ]; then
    say "nothing changed: everything was in place"
else
    say "$changed changes. Next (docs/building.md): reboot if SPI was turned on, then"
    say "  uno-table check-table --config /etc/uno-table/config.toml"
    say "  sudo uno-table enroll --out /etc/uno-table/deck.toml"
    say "  sudo systemctl start uno-table"
fi
