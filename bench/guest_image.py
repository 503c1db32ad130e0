"""The appliance's guest image, in two layers, each cached in ``.appliance/`` (git ignores it).

1. The base: ``debootstrap --variant=minbase bookworm`` with Debian's kernel, systemd, udev,
   qemu-guest-agent (the command channel), sudo, and the Debian packages the installer asks for
   (``sudo ./uno install`` then finds them installed, and still runs every step); an initramfs
   holding only the modules a virtio disk needs. Kept as a folder under a key made of this
   package list alone: minutes of work, done again only when the list changes.
2. The image: a copy of the base with the packages scenarios ask for (``packages``: apt in a
   chroot, at the host's speed), the guest's own settings (its name, its disk, the checkout's
   mount, a network, the installing user, the ready marker), made into an ext4 file by
   ``mke2fs -d``. A minute or two; keyed by the base, the extra packages, these settings, and
   the installer and pyproject.toml: a wheelhouse of every Python package the install asks for
   is made there too (``pip wheel`` in the chroot), and the guest's pip finds it.

Nothing of the table is in the image: the install is run in the guest, from the checkout.
"""

from __future__ import annotations

import hashlib
import os
import re
import shlex
import shutil
import subprocess
import tempfile
import time
import tomllib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from guest import MARKER, NICE, ROOT, USER, ApplianceError, _run
from guest_kernel import boot_kernel

SUITE = "bookworm"
MIRROR = "http://deb.debian.org/debian"
BASE_PACKAGES = (
    "systemd-sysv", "udev", "linux-image-amd64", "kmod", "e2fsprogs",
    "qemu-guest-agent",  # the command channel (guest-exec over virtio-serial)
    "sudo", "ca-certificates",  # the installing user's sudo; pip's HTTPS
    # what scripts/install-pi.sh installs, and Open JTalk's dictionary for a "ja" table
    "python3", "python3-venv", "python3-dev", "gcc", "libc6-dev", "espeak-ng", "alsa-utils",
    "open-jtalk-mecab-naist-jdic",
)
INITRAMFS_MODULES = "virtio_pci\nvirtio_blk\next4\n"  # MODULES=list: the boot reads less
IMAGE_SIZE = "4G"
BUILD_DPKG = "etc/dpkg/dpkg.cfg.d/appliance-build"  # dpkg's settings while the base is built
# The guest's pip finds every wheel the install asks for in a wheelhouse made here, in the
# image's chroot at the host's speed (the same Debian, Python and compiler as the guest), and
# takes them from there alone (no-index): with the index beside it, the guest's pip took the
# index's copy of the very same files, and under TCG each project page, TLS handshake and
# download over the emulated network cost seconds to tens of seconds (about 5 minutes of the
# install). lgpio has wheels for Arm only, so its source is built (it needs swig and PYPI=1:
# its own C library linked in); spidev has no wheel at all. The guest's pip still resolves and
# installs everything itself, and builds the checkout; a requirement missing from the
# wheelhouse fails the install in the guest, as a package missing from PyPI would.
WHEELS = "/var/cache/uno-wheels"
# The extras the guest installs: the install scenario's Japanese example (pi, japanese), the
# power cuts' hub (paho-mqtt, added to the installed venv).
WHEEL_EXTRAS = ("pi", "japanese", "hub")
KEYED = (ROOT / "scripts/install-pi.sh", ROOT / "pyproject.toml")  # a change rebuilds the image
PIP_CONF = f"[global]\nfind-links = {WHEELS}\nno-index = true\n"
READY_UNIT = f"""[Unit]
Description=Tell the host the guest has booted
After=multi-user.target

[Service]
Type=oneshot
ExecStart=/bin/sh -c 'echo "{MARKER} $(cut -d" " -f1 /proc/uptime)" > /dev/ttyS0'

[Install]
WantedBy=multi-user.target
"""
# The checkout's share is mounted when first used (the install's copy), not at every boot: its
# mount took 11 s of a TCG boot's one CPU while the table's service was starting.
FSTAB = ("/dev/vda / ext4 rw,errors=remount-ro 0 1\n"
         "checkout /mnt/checkout 9p trans=virtio,version=9p2000.L,ro,nofail,msize=262144,"
         "noauto,x-systemd.automount 0 0\n")
HOSTS = "127.0.0.1 localhost\n127.0.1.1 uno-appliance\n::1 localhost ip6-localhost ip6-loopback\n"
# qemu's user-mode network: the guest 10.0.2.15, the host's gateway 10.0.2.2, DNS 10.0.2.3
NETWORK = "[Match]\nName=en*\n\n[Network]\nAddress=10.0.2.15/24\nGateway=10.0.2.2\nDNS=10.0.2.3\n"
# Units a test machine does without: timers, the console's logins (the agent is the way in),
# kernel file systems nobody mounts here, binfmt (no foreign binaries run here), Mosquitto's
# service (the power cuts' hub starts its broker by hand; the table's example has no MQTT).
# Each costs seconds of a TCG boot's one CPU, which the table's service shares as it starts.
MASKED = ("apt-daily.timer", "apt-daily-upgrade.timer", "e2scrub_all.timer", "fstrim.timer",
          "e2scrub_reap.service", "systemd-networkd-wait-online.service",
          "serial-getty@ttyS0.service", "getty@tty1.service", "getty-static.service",
          "dev-hugepages.mount", "dev-mqueue.mount", "sys-kernel-tracing.mount",
          "sys-kernel-debug.mount", "modprobe@efi_pstore.service", "modprobe@dm_mod.service",
          "modprobe@drm.service", "systemd-pstore.service", "systemd-update-utmp.service",
          "systemd-update-utmp-runlevel.service", "systemd-binfmt.service",
          "proc-sys-fs-binfmt_misc.automount", "mosquitto.service")


LOCAL_CAS = Path("/usr/local/share/ca-certificates")  # authorities this host adds (a proxy's)


def local_cas() -> dict[str, bytes]:
    """The certificate authorities the host trusts beyond Debian's (a network that inspects
    HTTPS through its own authority): the guest trusts them too, or pip cannot reach PyPI."""
    if not LOCAL_CAS.is_dir():
        return {}
    return {p.name: p.read_bytes() for p in sorted(LOCAL_CAS.glob("*.crt")) if p.is_file()}


def _key(*parts: object) -> str:
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:16]


def base_key() -> str:
    """The base layer's key: its package list and initramfs."""
    return _key(SUITE, BASE_PACKAGES, INITRAMFS_MODULES)


def wheel_requirements() -> tuple[list[str], list[str]]:
    """What the guest's pip is asked for, read from the checkout: the build backend, the
    dependencies and ``WHEEL_EXTRAS`` of pyproject.toml, and pytest (the bring-up's hardware
    tests); then the installer's own pins, which it installs without their dependencies
    (mfrc522, whose original RPi.GPIO is never installed)."""
    project = tomllib.loads(KEYED[1].read_text())
    wanted = [*project["build-system"]["requires"], *project["project"]["dependencies"],
              "pytest"]
    for extra in WHEEL_EXTRAS:
        wanted += project["project"]["optional-dependencies"][extra]
    pins = re.findall(r"[A-Za-z0-9_.-]+==[A-Za-z0-9_.]+", KEYED[0].read_text())
    return sorted(set(wanted)), sorted(set(pins))


def wheel_script() -> str:
    """The chroot's shell command that fills ``WHEELS``."""
    wanted, pins = wheel_requirements()
    pip = f"PYPI=1 /tmp/wheels/bin/pip wheel -q --disable-pip-version-check -w {WHEELS}"
    alone = f" && {pip} --no-deps {shlex.join(pins)}" if pins else ""
    return (f"python3 -m venv /tmp/wheels && {pip} {shlex.join(wanted)}{alone}; code=$?; "
            "rm -rf /tmp/wheels; exit $code")


def image_key(packages: Sequence[str]) -> str:
    """The image's key: the base, the scenarios' packages, the guest's settings, and the
    installer and pyproject.toml (the wheelhouse is made from them)."""
    return _key(base_key(), sorted(set(packages)), READY_UNIT, FSTAB, HOSTS, NETWORK, MASKED,
                USER, IMAGE_SIZE, wheel_script(), PIP_CONF, local_cas(),
                [hashlib.sha256(path.read_bytes()).hexdigest() for path in KEYED])


def build_image(cache: Path, packages: Sequence[str] = (),
                progress: object = print) -> Path:
    """The guest image for these extra Debian ``packages``, built when missing: a folder
    holding ``root.img`` (ext4), ``vmlinuz`` (and ``vmlinux``, bench/guest_kernel.py) and
    ``initrd.img``."""
    say = progress if callable(progress) else print
    unmount_stale(cache)
    done = cache / f"image-{image_key(packages)}"
    if (done / "root.img").is_file():
        say(f"image {done.name} (cached)")
        boot_kernel(done)
        return done
    base = build_base(cache, say)
    started = time.monotonic()
    say(f"image {done.name}: the base with {' '.join(packages) or 'no extra packages'}")
    with tempfile.TemporaryDirectory(dir=cache, prefix="build-") as tmp:
        root = Path(tmp) / "root"
        _run(["cp", "-a", "--reflink=auto", str(base / "root"), str(root)], "copying the base")
        shutil.copy("/etc/resolv.conf", root / "etc/resolv.conf")  # the host's, for apt and pip
        cas = root / LOCAL_CAS.relative_to("/")
        cas.mkdir(parents=True, exist_ok=True)
        for name, pem in local_cas().items():
            (cas / name).write_bytes(pem)
        with _chroot(root):
            _chroot_run(root, "update-ca-certificates >/dev/null", "update-ca-certificates")
            _chroot_run(root, "apt-get -qq update && DEBIAN_FRONTEND=noninteractive "
                        "apt-get -qq install -y --no-install-recommends "
                        + " ".join(sorted({"swig", *packages})), "apt-get install")
            _chroot_run(root, wheel_script(), "the wheelhouse (pip wheel)")
        (root / "etc/pip.conf").write_text(PIP_CONF)
        configure(root)
        out = Path(tmp) / "out"
        out.mkdir()
        shutil.copy(_newest(root / "boot", "vmlinuz-"), out / "vmlinuz")
        shutil.copy(_newest(root / "boot", "initrd.img-"), out / "initrd.img")
        _run([*_nice(), "mke2fs", "-q", "-t", "ext4", "-L", "uno-root", "-d",
              str(root), str(out / "root.img"), IMAGE_SIZE], "mke2fs")
        out.rename(done)
    boot_kernel(done)  # unpacked here once, before any guest boots it
    say(f"image built in {time.monotonic() - started:.0f} s")
    return done


def build_base(cache: Path, say: object = print) -> Path:
    """The debootstrapped base folder for ``BASE_PACKAGES``, built when missing.

    debootstrap's two stages, run apart: the first downloads every package (its .debs kept in
    ``cache/debs`` for the next base) and unpacks the essential ones; between them dpkg is told
    not to sync each file it writes (``force-unsafe-io``: a folder being built needs no
    durability until it is whole), and the kernel's initramfs is left for ``finish_base`` to
    make once, small (``INITRD=No``); the second stage installs and configures in the chroot.
    The setting is removed afterwards: the guest's own dpkg syncs as Debian's does."""
    tell = say if callable(say) else print
    done = cache / f"base-{base_key()}"
    if (done / "ok").is_file():
        return done
    debs = cache / "debs"
    debs.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    tell(f"base {done.name}: debootstrap {SUITE} with Debian's kernel (about 5 minutes; "
         "cached afterwards)")
    building = cache / f"{done.name}.part"
    shutil.rmtree(building, ignore_errors=True)
    building.mkdir()
    root = building / "root"
    _run([*_nice(), "debootstrap", "--foreign", "--variant=minbase",
          f"--cache-dir={debs.resolve()}", f"--include={','.join(BASE_PACKAGES)}", SUITE,
          str(root), MIRROR], "debootstrap")
    tell(f"base: {len(list(debs.glob('*.deb')))} packages downloaded in "
         f"{time.monotonic() - started:.0f} s; installing them")
    unsafe = root / BUILD_DPKG
    unsafe.parent.mkdir(parents=True, exist_ok=True)
    unsafe.write_text("force-unsafe-io\n")
    initramfs_settings(root)
    _run([*_nice(), "env", "INITRD=No", "chroot", str(root),
          "/debootstrap/debootstrap", "--second-stage"], "debootstrap --second-stage")
    unsafe.unlink()
    finish_base(root)
    (building / "ok").write_text(f"{time.monotonic() - started:.0f} s\n")
    shutil.rmtree(done, ignore_errors=True)
    building.rename(done)
    tell(f"base built in {time.monotonic() - started:.0f} s")
    return done


def initramfs_settings(root: Path) -> None:
    """The base's initramfs made small: the modules a virtio disk needs, no resume probe.
    Written before the second stage, so every initramfs made there is already the small one
    (files of no package's: initramfs-tools reads both)."""
    conf = root / "etc/initramfs-tools/conf.d"
    conf.mkdir(parents=True, exist_ok=True)
    (conf / "appliance").write_text("MODULES=list\nRESUME=none\n")
    modules = root / "usr/share/initramfs-tools/modules.d"
    modules.mkdir(parents=True, exist_ok=True)
    (modules / "appliance").write_text(INITRAMFS_MODULES)


def finish_base(root: Path) -> None:
    """The base's initramfs made when no package made it (the kernel's own hook is skipped
    while the base is built), apt's downloads and lists left out."""
    with _chroot(root):
        _chroot_run(root, "for k in /lib/modules/*; do [ -e /boot/initrd.img-${k##*/} ] || "
                    "update-initramfs -c -k ${k##*/} || exit; done", "update-initramfs")
    _run(["rm", "-rf", str(root / "var/cache/apt/archives"), str(root / "var/lib/apt/lists")],
         "cleaning apt's cache")
    (root / "var/cache/apt/archives/partial").mkdir(parents=True)
    (root / "var/lib/apt/lists/partial").mkdir(parents=True)


def configure(root: Path) -> None:
    """The guest's own settings: its name, its disk, the checkout's mount, a static address
    on qemu's user network, root without a password on the console (a machine no network
    reaches), the installing user with sudo, no timers, and the ready marker."""
    (root / "etc/hostname").write_text("uno-appliance\n")
    (root / "etc/hosts").write_text(HOSTS)  # sudo looks its host up: found here, not asked
    (root / "etc/fstab").write_text(FSTAB)
    (root / "mnt/checkout").mkdir(parents=True, exist_ok=True)
    (root / "etc/systemd/network/10-nic.network").write_text(NETWORK)
    resolv = root / "etc/resolv.conf"
    resolv.unlink(missing_ok=True)
    resolv.write_text("nameserver 10.0.2.3\n")
    units = root / "etc/systemd/system"
    (units / "uno-appliance-up.service").write_text(READY_UNIT)
    (root / "etc/sudoers.d/maker").write_text(f"{USER} ALL=(ALL) NOPASSWD: ALL\n")
    (root / "etc/sudoers.d/maker").chmod(0o440)
    with _chroot(root):
        _chroot_run(root, "passwd -d root && useradd -m -s /bin/bash -G sudo " + USER +
                    " && systemctl enable -q systemd-networkd uno-appliance-up && "
                    "systemctl mask -q " + " ".join(MASKED), "configuring the guest")


def unmount_stale(cache: Path) -> None:
    """What a build killed before its end left mounted under ``cache`` (its chroot's /proc and
    /dev), unmounted: else removing the cache would walk into them."""
    inside = str(cache.resolve()) + "/"
    with open("/proc/self/mounts", encoding="utf-8") as mounts:
        points = [line.split()[1] for line in mounts if line.split()[1].startswith(inside)]
    for point in sorted(points, reverse=True):
        subprocess.run(["umount", "-l", point], check=False)


@contextmanager
def _chroot(root: Path) -> Iterator[None]:
    """/proc and /dev of the host under ``root`` while a chroot step runs; /dev bound read-only
    (its devices still open for writing), so that a build killed before it unmounts leaves
    nothing a later ``rm -rf`` of the cache could delete on the host."""
    mounted = []
    try:
        for what, args in (("proc", ["-t", "proc", "proc"]), ("dev", ["--bind", "/dev"])):
            (root / what).mkdir(exist_ok=True)
            _run(["mount", *args, str(root / what)], f"mounting {what} in the chroot")
            mounted.append(root / what)
        _run(["mount", "-o", "remount,bind,ro", str(root / "dev")], "making the chroot's /dev "
             "read-only")
        yield
    finally:
        for point in reversed(mounted):
            subprocess.run(["umount", "-l", str(point)], check=False)


def _nice() -> list[str]:
    """The build at ``NICE``, not further down: ``./uno appliance`` is there already, and a
    step at 19 on a busy machine got a sliver of a core (debootstrap's own dependency
    resolution took minutes)."""
    return ["nice", "-n", str(max(0, NICE - os.nice(0)))]


def _chroot_run(root: Path, script: str, what: str) -> None:
    _run(["chroot", str(root), "/bin/sh", "-c", script], what)


def _newest(folder: Path, prefix: str) -> Path:
    found = sorted(folder.glob(f"{prefix}*"))
    if not found:
        raise ApplianceError(f"the guest has no {prefix}* in /boot: the kernel did not install")
    return found[-1]
