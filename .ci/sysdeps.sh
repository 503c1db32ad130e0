#!/usr/bin/env bash
# Make sure the Debian packages the test suite needs are installed.
#
#   espeak-ng                  voice output (announcements rendered to .wav in tests)
#   gcc-avr avr-libc           build the reader firmware
#   simavr libsimavr-dev       run the firmware in a simulated AVR
#   libelf-dev                 needed to link against libsimavr
#   socat                      pseudo-terminal pairs standing in for the serial link
#   gcc python3-dev            build RPi.GPIO and spidev (pulled by mfrc522 in the test extra)
#
# Quiet and fast (a few dpkg queries) when everything is present. When something is
# missing it installs it with apt-get, as root or through passwordless sudo; failing
# both it prints the command to run and exits 0, so the tests that need the package
# fail on their own with a clear error.
set -euo pipefail

PACKAGES=(espeak-ng gcc-avr avr-libc simavr libsimavr-dev libelf-dev socat gcc python3-dev)

export DEBIAN_FRONTEND=noninteractive

warn() {
    printf '\n' >&2
    printf '*************************************************************************\n' >&2
    printf '* WARNING: %s\n' "$1" >&2
    shift
    [ $# -eq 0 ] || printf '*   %s\n' "$@" >&2
    printf '*************************************************************************\n\n' >&2
}

if ! command -v dpkg >/dev/null 2>&1; then
    warn "dpkg not found: cannot check system packages (not a Debian-like system)." \
        "Tests needing these may fail: ${PACKAGES[*]}"
    exit 0
fi

is_installed() {
    # "dpkg -s" also succeeds for removed packages whose config files remain,
    # so look at the status line itself.
    dpkg -s "$1" 2>/dev/null | grep -q '^Status: install ok installed$'
}

missing=()
for pkg in "${PACKAGES[@]}"; do
    is_installed "$pkg" || missing+=("$pkg")
done

if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi

install_cmd="apt-get install -y --no-install-recommends ${missing[*]}"

if [ "$(id -u)" -eq 0 ]; then
    SUDO=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    SUDO=(sudo -n env DEBIAN_FRONTEND=noninteractive)
else
    warn "missing system packages: ${missing[*]}" \
        "Install them with:" \
        "    sudo apt-get update && sudo ${install_cmd}" \
        "Tests that need them will fail until then."
    exit 0
fi

echo "sysdeps: installing ${missing[*]}" >&2
# Wait for another apt/dpkg run (e.g. an unattended update) instead of failing at once.
APT_OPTS=(-o DPkg::Lock::Timeout=600 -o Acquire::Retries=3)
"${SUDO[@]}" apt-get "${APT_OPTS[@]}" update -qq
"${SUDO[@]}" apt-get "${APT_OPTS[@]}" install -y -qq --no-install-recommends "${missing[@]}"

# Check the result: a package that apt could not provide is worth a loud message.
still_missing=()
for pkg in "${missing[@]}"; do
    is_installed "$pkg" || still_missing+=("$pkg")
done
if [ ${#still_missing[@]} -ne 0 ]; then
    warn "still missing after install: ${still_missing[*]}"
    exit 1
fi
