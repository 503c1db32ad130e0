#!/bin/sh
# uno-table from a fresh checkout, on a machine with nothing but sh:
#
#   ./uno demo [DEMO OPTIONS]    three bots play a round on a simulated table, narrated
#                                (with --lang ja, in Japanese: Open JTalk is installed too)
#   ./uno test [PYTEST OPTIONS]  ruff, mypy and the whole test suite (what CI runs)
#   ./uno venv                   only make .venv with the test extra (for working on the code)
#   sudo ./uno install [EXAMPLE]  set up a Raspberry Pi to referee: packages, groups, SPI, a
#                                venv with the board's extra, /etc/uno-table/config.toml from
#                                EXAMPLE, the systemd unit (scripts/install-pi.sh; idempotent)
#   sudo ./uno appliance         the appliance in a virtual machine: a Debian guest built and
#                                booted under qemu, the table installed and run in it
#                                (bench/appliance.py)
#
# Each first installs the Debian packages it needs when they are missing (python3 itself
# included; .ci/sysdeps.sh), as root or through sudo, or says what to install and stops.
# Then it makes .venv (again when pyproject.toml has changed since) with what it needs: the
# demo only the program itself, the tests the test extra too.
set -eu
cd "$(dirname "$0")"

DEMO="--players 3 --rounds 1 --seed 1"
LINT_PATHS="table firmware_bridge sim tests bench hw_tests"

die() {
    printf 'uno: %s\n' "$*" >&2
    exit 1
}

need_python() {
    command -v python3 >/dev/null 2>&1 || die "python3 not found: install Python 3.11 or newer"
    python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' ||
        die "uno-table needs Python 3.11 or newer; python3 here is $(python3 -V 2>&1)"
}

# venv EXTRA: .venv with the project installed (EXTRA "test": with the test extra; "japanese":
# with Open JTalk; "": alone). A stamp per extra remembers the pyproject.toml it was made from;
# the test stamp covers them all (the test extra has Open JTalk too).
venv() {
    for stamp in ".venv/.stamp-${1:-run}" .venv/.stamp-test; do
        if [ -f "$stamp" ] && ! [ pyproject.toml -nt "$stamp" ]; then
            return 0
        fi
    done
    if ! [ -x .venv/bin/python ]; then
        python3 -m venv .venv || die "python3 -m venv failed (Debian: apt-get install python3-venv)"
    fi
    echo "uno: installing uno-table${1:+ with the $1 extra} into .venv" >&2
    .venv/bin/python -m pip install --quiet --disable-pip-version-check -e ".${1:+[$1]}" ||
        return 1
    touch ".venv/.stamp-${1:-run}"
}

command=${1:-}
[ $# -eq 0 ] || shift
case $command in
demo)
    case " $* " in
    *" --lang ja "* | *" --lang=ja "*)
        # The Japanese voice: Open JTalk's dictionary and pyopenjtalk-ndy (no wheel for 32-bit
        # Arm: there espeak-ng speaks Japanese).
        sh .ci/sysdeps.sh demo-ja
        need_python
        venv japanese || {
            echo "uno: pyopenjtalk-ndy cannot be installed here: espeak-ng speaks Japanese" >&2
            venv ""
        }
        ;;
    *)
        sh .ci/sysdeps.sh demo
        need_python
        venv ""
        ;;
    esac
    # --noise runs the real mfrc522 driver on simulated chips, RPi.GPIO and spidev simulated
    # too: the driver alone (its declared Pi dependencies do not work off a Pi).
    .venv/bin/python -c 'import importlib.util as u, sys; sys.exit(not u.find_spec("mfrc522"))' ||
        .venv/bin/python -m pip install --quiet --disable-pip-version-check --no-deps \
            mfrc522==0.0.7 ||
        echo "uno: mfrc522 cannot be installed: the demo runs without --noise" >&2
    # shellcheck disable=SC2086  # DEMO is a list of words
    exec .venv/bin/uno-table demo $DEMO "$@"
    ;;
test)
    sh .ci/sysdeps.sh test
    need_python
    venv test
    lint=""
    for path in $LINT_PATHS; do
        if [ -e "$path" ]; then lint="$lint $path"; fi
    done
    # shellcheck disable=SC2086  # a list of paths without spaces
    .venv/bin/ruff check $lint
    .venv/bin/mypy  # files and strictness: [tool.mypy] in pyproject.toml
    if .venv/bin/python -c 'import xdist' 2>/dev/null; then set -- -n auto "$@"; fi
    exec .venv/bin/python -m pytest "$@"
    ;;
install)
    exec sh scripts/install-pi.sh "$@"
    ;;
appliance)
    sh .ci/sysdeps.sh appliance
    need_python
    exec nice -n 10 python3 bench/appliance.py "$@"
    ;;
venv)
    sh .ci/sysdeps.sh test
    need_python
    venv test
    ;;
*)
    echo "usage: ./uno demo [DEMO OPTIONS] | ./uno test [PYTEST OPTIONS] | ./uno venv |" \
        "./uno install [EXAMPLE] | ./uno appliance" >&2
    exit 2
    ;;
esac
