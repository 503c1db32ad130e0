"""``sudo ./uno install`` twice in a fresh Debian root: the first run sets everything up, the
second changes nothing. Minutes, not seconds, so it is here and not in tests/ (where
tests/test_install.py runs the same script against a faked machine).

    sudo python bench/install_root.py [--arch arm64] [--cache DIR] [--keep]

``--arch arm64`` (the default when qemu-aarch64 is registered with binfmt_misc, as
``apt-get install qemu-user-static binfmt-support`` does) builds a Raspberry Pi OS-like arm64
root and runs everything in it under qemu-user; otherwise the machine's own architecture.
``debootstrap --variant=minbase bookworm`` builds the root once into a tarball in ``--cache``
(reused by later runs); the root gets a ``/boot/firmware/config.txt`` and a
``/proc/device-tree/model`` of a Pi 4, as Raspberry Pi OS has, and the checkout in
``/home/pi/uno-table``. No systemd and no raspi-config in a minbase root: the installer writes
the unit and edits config.txt instead, and says so. Prints each run's time and output; exit 1
when the second run changed anything.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODEL = "Raspberry Pi 4 Model B Rev 1.4"
SKIP = {".venv", ".git", "__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache"}


def native() -> str:
    return {"x86_64": "amd64", "aarch64": "arm64"}.get(platform.machine(), platform.machine())


def default_arch() -> str:
    if native() == "arm64" or Path("/proc/sys/fs/binfmt_misc/qemu-aarch64").exists():
        return "arm64"
    return native()


def base_tarball(arch: str, cache: Path) -> Path:
    """A minbase bookworm root for ``arch``, built once."""
    tarball = cache / f"bookworm-minbase-{arch}.tar"
    if tarball.exists():
        return tarball
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache) as tmp:
        target = Path(tmp) / "root"
        subprocess.run(["debootstrap", "--variant=minbase", f"--arch={arch}", "bookworm",
                        str(target)], check=True, stdout=subprocess.DEVNULL)
        subprocess.run(["tar", "-C", str(target), "-cf", str(tarball) + ".part", "."],
                       check=True)
    os.replace(str(tarball) + ".part", tarball)
    return tarball


def fresh_root(tarball: Path, where: Path) -> Path:
    root = where / "root"
    root.mkdir()
    subprocess.run(["tar", "-C", str(root), "-xf", str(tarball)], check=True)
    (root / "boot/firmware").mkdir(parents=True, exist_ok=True)
    (root / "boot/firmware/config.txt").write_text("[all]\n#dtparam=spi=on\n")
    (root / "proc/device-tree").mkdir(parents=True, exist_ok=True)
    (root / "proc/device-tree/model").write_bytes(MODEL.encode() + b"\0")
    shutil.copy2("/etc/resolv.conf", root / "etc/resolv.conf")
    shutil.copytree(ROOT, root / "home/pi/uno-table",
                    ignore=lambda d, names: [n for n in names if n in SKIP])
    return root


def install(root: Path) -> tuple[float, str]:
    start = time.monotonic()
    env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "HOME": "/home/pi", "LANG": "C.UTF-8"}
    # A network whose TLS is signed by a local authority: pip in the root trusts it too.
    cert = os.environ.get("PIP_CERT") or os.environ.get("REQUESTS_CA_BUNDLE")
    if cert and Path(cert).is_file():
        shutil.copy2(cert, root / "etc/pip-ca.crt")
        env["PIP_CERT"] = "/etc/pip-ca.crt"
    done = subprocess.run(["chroot", str(root), "sh", "/home/pi/uno-table/uno", "install"],
                          capture_output=True, text=True, env=env)
    took = time.monotonic() - start
    if done.returncode != 0:
        sys.exit(f"install failed ({done.returncode}):\n{done.stdout}{done.stderr}")
    return took, done.stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--arch", default=default_arch())
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "uno-roots")
    parser.add_argument("--keep", action="store_true", help="leave the root for a look")
    args = parser.parse_args()
    if os.geteuid() != 0:
        sys.exit("run as root (debootstrap and chroot need it)")
    start = time.monotonic()
    tarball = base_tarball(args.arch, args.cache)
    print(f"base root ({args.arch}): {time.monotonic() - start:.0f} s", flush=True)
    where = Path(tempfile.mkdtemp(prefix="uno-install-"))
    try:
        root = fresh_root(tarball, where)
        first, out1 = install(root)
        print(f"first run: {first:.0f} s\n{out1}", flush=True)
        second, out2 = install(root)
        print(f"second run: {second:.1f} s\n{out2}", flush=True)
        unit = (root / "etc/systemd/system/uno-table.service").read_text()
        assert "ExecStart=/usr/local/lib/uno-table/venv/bin/uno-table" in unit, unit
        assert "dtparam=spi=on" in (root / "boot/firmware/config.txt").read_text()
        if "changed " in out2 or not out2.rstrip().endswith("nothing changed: everything was "
                                                            "in place"):
            print("FAIL: the second run changed something")
            return 1
        print("PASS: the second run changed nothing")
        return 0
    finally:
        if args.keep:
            print(f"root kept in {where}")
        else:
            shutil.rmtree(where, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
