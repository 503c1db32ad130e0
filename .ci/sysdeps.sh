#!/bin/sh
# Make sure the Debian packages a step needs are installed:
#
#   sh .ci/sysdeps.sh demo     what `./uno demo` needs
#   sh .ci/sysdeps.sh demo-ja  what `./uno demo --lang ja` needs (the demo's and Open JTalk's)
#   sh .ci/sysdeps.sh test     what `./uno test` needs (the demo's too)
#   sh .ci/sysdeps.sh install-root  what bench/install_root.py needs (a fresh Debian root)
#   sh .ci/sysdeps.sh appliance     what `./uno appliance` needs (a guest booted under qemu)
#   sh .ci/sysdeps.sh --list demo|demo-ja|test|install-root|appliance    the package names only
#
# demo: python3 python3-venv     the interpreter, and venv with pip (a fresh Debian lacks both)
#       espeak-ng                the referee's voice
# demo-ja: open-jtalk-mecab-naist-jdic   the dictionary of Open JTalk, the Japanese voice (the
#                                        japanese extra brings pyopenjtalk-ndy, which finds it
#                                        in /var/lib/mecab/dic/open-jtalk/naist-jdic, offline)
# test: make gcc-avr avr-libc    build the reader firmware
#       simavr libsimavr-dev libelf-dev   run the firmware in a simulated AVR
#       gcc libc6-dev python3-dev         build the simulated board, RPi.GPIO and spidev
#                                         (pulled by mfrc522 in the test extra)
#       socat                    pseudo-terminal pairs standing in for the serial link
#       systemd                  systemd-analyze, to check the unit of `uno-table service`
#       chromium                 the browser the web view's tests drive (through Playwright)
#       open-jtalk-mecab-naist-jdic   as for demo-ja (the test extra brings pyopenjtalk-ndy;
#                                     the tests run the real Japanese voice)
#       mosquitto                the MQTT broker the tables publish to and the hub reads
#       mosquitto-clients        mosquitto_sub, bench/hub.py's observer in a process of its own
#       strace                   shows the hub's fsync before each PUBACK (test_hub_durable.py)
#       fonts-noto-cjk           names in Japanese in the plots of `stats` and `study`
#       ngspice                  simulates the SPI lines over the cables (table/circuit/spice.py)
#       chromium                 opens their HTML reports in the tests (through Playwright)
#       nginx caddy openssl      the web view behind a real TLS proxy (tests/test_web_real_proxy.py)
# install-root: debootstrap      a fresh minbase Debian root for `./uno install` to set up
#               qemu-user-static binfmt-support   run an arm64 (Raspberry Pi OS) root on x86-64
# appliance: qemu-system-x86     qemu-system-x86_64, the machine the appliance boots in
#            qemu-utils          qemu-img: each boot writes to an overlay, the image stays clean
#            debootstrap         the guest's Debian root (with Debian's kernel, systemd, udev)
#            e2fsprogs           mke2fs -d: the root made into an ext4 image without a mount
#            make gcc-avr avr-libc simavr libsimavr-dev libelf-dev gcc libc6-dev   the bridge's
#                                firmware in simavr on the host, the guest's USB serial bridge
#                                (gcc and libc6-dev also build the power cuts' static initramfs)
#            gcc-12 make binutils   the guest's GPIO chip: gpio-sim built as a module for the
#                                   guest's kernel (the compiler Debian's 6.1 kernels are built by)
#
# Quiet and fast (a few dpkg queries) when everything is present. When something is missing
# it installs it with apt-get: as root, through sudo (asking for the password on a
# terminal); failing both, it prints the command to run and exits 1.
set -eu

DEMO_PACKAGES="python3 python3-venv espeak-ng"
JAPANESE_PACKAGES="open-jtalk-mecab-naist-jdic"
TEST_PACKAGES="$DEMO_PACKAGES make gcc-avr avr-libc simavr libsimavr-dev libelf-dev gcc libc6-dev
python3-dev socat systemd mosquitto mosquitto-clients strace chromium fonts-noto-cjk ngspice
$JAPANESE_PACKAGES nginx caddy openssl"
INSTALL_ROOT_PACKAGES="debootstrap qemu-user-static binfmt-support"
APPLIANCE_PACKAGES="python3 qemu-system-x86 qemu-utils debootstrap e2fsprogs make gcc-avr avr-libc
    simavr libsimavr-dev libelf-dev gcc libc6-dev gcc-12 binutils"

list=false
if [ "${1:-}" = --list ]; then
    list=true
    shift
fi
case ${1:-} in
demo) packages=$DEMO_PACKAGES ;;
demo-ja) packages="$DEMO_PACKAGES $JAPANESE_PACKAGES" ;;
test) packages=$TEST_PACKAGES ;;
install-root) packages=$INSTALL_ROOT_PACKAGES ;;
appliance) packages=$APPLIANCE_PACKAGES ;;
*)
    echo "usage: sh .ci/sysdeps.sh [--list] demo|demo-ja|test|install-root|appliance" >&2
    exit 2
    ;;
esac
if $list; then
    echo $packages
    exit 0
fi

warn() {
    printf '\n*************************************************************************\n' >&2
    printf '* %s\n' "$@" >&2
    printf '*************************************************************************\n\n' >&2
}

if ! command -v dpkg >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
    warn "WARNING: no dpkg or apt-get: cannot check system packages (not a Debian-like system)." \
        "Install what these Debian packages provide: $(echo $packages)"
    exit 0
fi

is_installed() {
    # "dpkg -s" also succeeds for removed packages whose config files remain,
    # so look at the status line itself.
    dpkg -s "$1" 2>/dev/null | grep -q '^Status: install ok installed$'
}

missing=""
for pkg in $packages; do
    is_installed "$pkg" || missing="$missing $pkg"
done
missing=${missing# }
[ -n "$missing" ] || exit 0

install="apt-get install -y --no-install-recommends $missing"
if [ "$(id -u)" -eq 0 ]; then
    as_root=""
elif command -v sudo >/dev/null 2>&1 && { sudo -n true 2>/dev/null || [ -t 0 ]; }; then
    as_root="sudo"
else
    if command -v sudo >/dev/null 2>&1; then
        run="sudo apt-get update && sudo $install"
    else
        run="su -c 'apt-get update && $install'"
    fi
    warn "missing Debian packages: $missing" \
        "Install them (as root) with:" \
        "    $run" \
        "then run this command again."
    exit 1
fi

echo "sysdeps: installing $missing" >&2
# Wait for another apt/dpkg run (e.g. an unattended update) instead of failing at once.
apt="apt-get -o DPkg::Lock::Timeout=600 -o Acquire::Retries=3"
# shellcheck disable=SC2086  # lists of words
$as_root env DEBIAN_FRONTEND=noninteractive $apt update -qq
# shellcheck disable=SC2086
$as_root env DEBIAN_FRONTEND=noninteractive $apt install -y -qq --no-install-recommends $missing

# Check the result: a package that apt could not provide is worth a loud message.
still=""
for pkg in $missing; do
    is_installed "$pkg" || still="$still $pkg"
done
if [ -n "$still" ]; then
    warn "still missing after install:$still"
    exit 1
fi
