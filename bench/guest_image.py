"""The appliance's guest image, in two layers, each cached in ``.appliance/`` (git ignores it).

1. The base: ``debootstrap --variant=minbase bookworm`` with Debian's kernel, systemd, udev,
   qemu-guest-agent (the command channel), sudo, and the Debian packages the installer asks for
   (``sudo ./uno install`` then finds them installed, and still runs every step); an initramfs
   holding only the modules a virtio disk needs. Kept as a folder under a key made of this
   package list alone: minutes of work, done again only when the list changes.
2. The image: a copy of the base with the packages scenarios ask for (``packages``: apt in a
   chroot, at the host's speed), the guest's own settings (its name, its disk, the checkout's
   mount, a network, the installing user, the ready marker), made into an ext4 file by
   ``mke2fs -d``. Seconds; keyed by the base, the extra packages and these settings.

Nothing of the table is in the image: the install is run in the guest, from the checkout.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from guest import MARKER, USER, ApplianceError, _run

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
READY_UNIT = f"""[Unit]
Description=Tell the host the guest has booted
After=multi-user.target

[Service]
Type=oneshot
ExecStart=/bin/sh -c 'echo "{MARKER} $(cut -d" " -f1 /proc/uptime)" > /dev/ttyS0'

[Install]
WantedBy=multi-user.target
"""
FSTAB = ("/dev/vda / ext4 rw,errors=remount-ro 0 1\n"
         "checkout /mnt/checkout 9p trans=virtio,version=9p2000.L,ro,nofail,msize=262144 0 0\n")
# qemu's user-mode network: the guest 10.0.2.15, the host's gateway 10.0.2.2, DNS 10.0.2.3
NETWORK = "[Match]\nName=en*\n\n[Network]\nAddress=10.0.2.15/24\nGateway=10.0.2.2\nDNS=10.0.2.3\n"
MASKED = ("apt-daily.timer", "apt-daily-upgrade.timer", "e2scrub_all.timer", "fstrim.timer",
          "e2scrub_reap.service", "systemd-networkd-wait-online.service")


def _key(*parts: object) -> str:
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:16]


def base_key() -> str:
    """The base layer's key: its package list and initramfs."""
    return _key(SUITE, BASE_PACKAGES, INITRAMFS_MODULES)


def image_key(packages: Sequence[str]) -> str:
    """The image's key: the base, the scenarios' packages and the guest's settings."""
    return _key(base_key(), sorted(set(packages)), READY_UNIT, FSTAB, NETWORK, MASKED, USER,
                IMAGE_SIZE)


def build_image(cache: Path, packages: Sequence[str] = (),
                progress: object = print) -> Path:
    """The guest image for these extra Debian ``packages``, built when missing: a folder
    holding ``root.img`` (ext4), ``vmlinuz`` and ``initrd.img``."""
    say = progress if callable(progress) else print
    done = cache / f"image-{image_key(packages)}"
    if (done / "root.img").is_file():
        say(f"image {done.name} (cached)")
        return done
    base = build_base(cache, say)
    started = time.monotonic()
    say(f"image {done.name}: the base with {' '.join(packages) or 'no extra packages'}")
    with tempfile.TemporaryDirectory(dir=cache, prefix="build-") as tmp:
        root = Path(tmp) / "root"
        _run(["cp", "-a", "--reflink=auto", str(base / "root"), str(root)], "copying the base")
        if packages:
            with _chroot(root):
                _chroot_run(root, "apt-get -qq update && DEBIAN_FRONTEND=noninteractive "
                            "apt-get -qq install -y --no-install-recommends "
                            + " ".join(sorted(set(packages))), "apt-get install")
        configure(root)
        out = Path(tmp) / "out"
        out.mkdir()
        shutil.copy(_newest(root / "boot", "vmlinuz-"), out / "vmlinuz")
        shutil.copy(_newest(root / "boot", "initrd.img-"), out / "initrd.img")
        _run(["nice", "-n", "10", "mke2fs", "-q", "-t", "ext4", "-L", "uno-root", "-d",
              str(root), str(out / "root.img"), IMAGE_SIZE], "mke2fs")
        out.rename(done)
    say(f"image built in {time.monotonic() - started:.0f} s")
    return done


def build_base(cache: Path, say: object = print) -> Path:
    """The debootstrapped base folder for ``BASE_PACKAGES``, built when missing."""
    tell = say if callable(say) else print
    done = cache / f"base-{base_key()}"
    if (done / "ok").is_file():
        return done
    cache.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    tell(f"base {done.name}: debootstrap {SUITE} with Debian's kernel (about 10 minutes; "
         "cached afterwards)")
    building = cache / f"{done.name}.part"
    shutil.rmtree(building, ignore_errors=True)
    building.mkdir()
    _run(["nice", "-n", "10", "debootstrap", "--variant=minbase",
          f"--include={','.join(BASE_PACKAGES)}", SUITE, str(building / "root"), MIRROR],
         "debootstrap")
    finish_base(building / "root")
    (building / "ok").write_text(f"{time.monotonic() - started:.0f} s\n")
    shutil.rmtree(done, ignore_errors=True)
    building.rename(done)
    tell(f"base built in {time.monotonic() - started:.0f} s")
    return done


def finish_base(root: Path) -> None:
    """The base's initramfs made small: the modules a virtio disk needs, no resume probe."""
    conf = root / "etc/initramfs-tools"
    (conf / "conf.d").mkdir(parents=True, exist_ok=True)
    (conf / "conf.d/appliance").write_text("MODULES=list\nRESUME=none\n")
    with (conf / "modules").open("a") as modules:
        modules.write(INITRAMFS_MODULES)
    with _chroot(root):
        _chroot_run(root, "update-initramfs -u -k all", "update-initramfs")
    _run(["rm", "-rf", str(root / "var/cache/apt/archives"), str(root / "var/lib/apt/lists")],
         "cleaning apt's cache")
    (root / "var/cache/apt/archives/partial").mkdir(parents=True)
    (root / "var/lib/apt/lists/partial").mkdir(parents=True)


def configure(root: Path) -> None:
    """The guest's own settings: its name, its disk, the checkout's mount, a static address
    on qemu's user network, root without a password on the console (a machine no network
    reaches), the installing user with sudo, no timers, and the ready marker."""
    (root / "etc/hostname").write_text("uno-appliance\n")
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


@contextmanager
def _chroot(root: Path) -> Iterator[None]:
    """/proc and /dev of the host under ``root`` while a chroot step runs."""
    mounted = []
    try:
        for what, args in (("proc", ["-t", "proc", "proc"]), ("dev", ["--bind", "/dev"])):
            (root / what).mkdir(exist_ok=True)
            _run(["mount", *args, str(root / what)], f"mounting {what} in the chroot")
            mounted.append(root / what)
        yield
    finally:
        for point in reversed(mounted):
            subprocess.run(["umount", "-l", str(point)], check=False)


def _chroot_run(root: Path, script: str, what: str) -> None:
    _run(["chroot", str(root), "/bin/sh", "-c", script], what)


def _newest(folder: Path, prefix: str) -> Path:
    found = sorted(folder.glob(f"{prefix}*"))
    if not found:
        raise ApplianceError(f"the guest has no {prefix}* in /boot: the kernel did not install")
    return found[-1]
