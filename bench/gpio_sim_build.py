"""The appliance's GPIO chip, built: gpio-sim as a kernel module for the guest's own kernel.

Debian's bookworm kernel is built without gpio-sim, gpio-mockup and virtio-gpio, and without
the interrupt simulator gpio-sim needs (``CONFIG_IRQ_SIM``, a bool, so no module of it exists
either). So the two sources, ``drivers/gpio/gpio-sim.c`` and ``kernel/irq/irq_sim.c``, are taken
from Debian's kernel source of the guest's exact version (``linux-source-6.1``) and compiled
into one out-of-tree module against the guest kernel's headers (``linux-headers-<release>``,
with ``linux-kbuild-6.1`` and the headers' ``-common`` part), all from Debian's registry with
``apt-get download`` and unpacked in a scratch folder, so nothing is installed on this machine.

One line of ``irq_sim.c`` is changed: it calls ``handle_simple_irq(irq_to_desc(irq))``, and
``irq_to_desc`` is not exported to modules in 6.1. The simulator maps each of its interrupts
with ``handle_simple_irq`` as the flow handler, so ``generic_handle_domain_irq(domain, offset)``
(exported) runs the same handler on the same descriptor.

The module is kept beside the cached image (``gpio-sim.ko``), so it is built once per image.
"""

from __future__ import annotations

import re
import shutil
import struct
import subprocess
import tempfile
import time
from pathlib import Path

MODULE = "gpio-sim.ko"
SOURCES = {  # the kernel source's file -> its name in the module's folder
    "drivers/gpio/gpio-sim.c": "gpio-sim-main.c",
    "drivers/gpio/gpiolib.h": "gpiolib.h",
    "kernel/irq/irq_sim.c": "irq_sim.c",
}
KBUILD = "obj-m := gpio-sim.o\ngpio-sim-y := gpio-sim-main.o irq_sim.o\n"
UNEXPORTED = ("\t\tirqnum = irq_find_mapping(work_ctx->domain, offset);\n"
              "\t\thandle_simple_irq(irq_to_desc(irqnum));\n")
EXPORTED = "\t\tgeneric_handle_domain_irq(work_ctx->domain, offset);\n"
TOOLS = {"gcc-12": "gcc-12", "make": "make", "apt-get": "apt", "dpkg-deb": "dpkg",
         "strip": "binutils"}


class BuildError(Exception):
    """The module cannot be built: one line saying why and what to do."""


def kernel_of(vmlinuz: Path) -> tuple[str, str]:
    """The guest kernel's release and Debian version (``6.1.0-50-amd64``, ``6.1.176-1``), read
    from the bzImage's header (its ``kernel_version`` string)."""
    head = vmlinuz.read_bytes()[:0x10000]
    if head[0x202:0x206] != b"HdrS":
        raise BuildError(f"{vmlinuz}: not a bzImage (no boot header)")
    offset = struct.unpack_from("<H", head, 0x20E)[0] + 0x200
    text = head[offset:offset + 256].split(b"\0")[0].decode("ascii", errors="replace")
    found = re.match(r"(\S+) .* Debian (\S+) ", text)
    if not found:
        raise BuildError(f"{vmlinuz}: not a Debian kernel ({text!r})")
    return found.group(1), found.group(2)


def packages(release: str, version: str) -> list[str]:
    """The Debian packages the module is built from, pinned to the guest kernel's version."""
    series = ".".join(version.split(".")[:2])  # 6.1
    abi = release.rsplit("-", 1)[0]  # 6.1.0-50
    return [f"linux-headers-{release}={version}", f"linux-headers-{abi}-common={version}",
            f"linux-source-{series}={version}", f"linux-kbuild-{series}"]


def build_module(image: Path, say: object = print) -> Path:
    """``gpio-sim.ko`` for the kernel of the image folder ``image`` (holding ``vmlinuz``),
    built when missing."""
    done = image / MODULE
    if done.is_file():
        return done
    for tool, package in TOOLS.items():
        if shutil.which(tool) is None:
            raise BuildError(f"{tool} not found (Debian package {package}), needed to build "
                             "the guest's gpio-sim module: sudo sh .ci/sysdeps.sh appliance")
    release, version = kernel_of(image / "vmlinuz")
    started = time.monotonic()
    assert callable(say)
    say(f"building gpio-sim with the interrupt simulator for the guest's kernel {release} "
        f"(Debian {version})")
    with tempfile.TemporaryDirectory(prefix="gpio-sim-") as tmp:
        work = Path(tmp)
        debs = _download(packages(release, version), work / "debs")
        tree = work / "tree"
        for deb in debs:
            if "linux-source" not in deb.name:
                _run(["dpkg-deb", "-x", str(deb), str(tree)], f"unpacking {deb.name}")
        folder = work / "module"
        _sources(next(d for d in debs if "linux-source" in d.name), folder)
        headers = tree / "usr/src" / f"linux-headers-{release}"
        _relocate(headers, tree)
        _run(["make", "-C", str(headers), f"M={folder}", "modules"], "building gpio-sim")
        _run(["strip", "--strip-debug", str(folder / MODULE)], "stripping gpio-sim.ko")
        partial = image / f"{MODULE}.part"
        shutil.copy(folder / MODULE, partial)
        partial.rename(done)
    say(f"gpio-sim.ko built in {time.monotonic() - started:.1f} s")
    return done


def _download(names: list[str], folder: Path) -> list[Path]:
    folder.mkdir(parents=True)
    _run(["apt-get", "download", "-q", *names], "apt-get download of the kernel's headers and "
         "source (an old kernel's packages may be gone: sudo apt-get update, or build the "
         "image again)", cwd=folder)
    return sorted(folder.glob("*.deb"))


def _sources(deb: Path, folder: Path) -> None:
    """The three files out of the source package's tarball (140 MB of xz: ``tar`` reads the
    stream once and stops when all three are out), with the one-line change and the Kbuild."""
    folder.mkdir()
    top = f"linux-source-{_series(deb)}"
    members = [f"{top}/{name}" for name in SOURCES]
    unpacked = folder / "source"
    unpacked.mkdir()
    package = subprocess.Popen(["dpkg-deb", "--fsys-tarfile", str(deb)],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    tarball = subprocess.Popen(["tar", "-xO", f"./usr/src/{top}.tar.xz"], stdin=package.stdout,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert package.stdout is not None and tarball.stdout is not None
    package.stdout.close()  # tar alone reads it now: dpkg-deb stops when tar does
    subprocess.run(["nice", "-n", "10", "tar", "-xJ", "--occurrence=1", "-C", str(unpacked),
                    *members], stdin=tarball.stdout, stderr=subprocess.DEVNULL, check=False)
    tarball.stdout.close()
    for process in (tarball, package):
        process.kill()
        process.wait()
    for name, local in SOURCES.items():
        found = unpacked / top / name
        if not found.is_file():
            raise BuildError(f"{deb.name} has no {top}/{name}")
        found.rename(folder / local)
    shutil.rmtree(unpacked)
    source = (folder / "irq_sim.c").read_text()
    if UNEXPORTED not in source:
        raise BuildError("irq_sim.c changed: its interrupt call needs a new look "
                         "(bench/gpio_sim_build.py)")
    source = source.replace(UNEXPORTED, EXPORTED).replace("\tint irqnum;\n", "", 1)
    (folder / "irq_sim.c").write_text(source)
    (folder / "Kbuild").write_text(KBUILD)


def _series(deb: Path) -> str:
    found = re.match(r"linux-source-([0-9.]+)_", deb.name)
    if not found:
        raise BuildError(f"{deb.name}: not Debian's kernel source package")
    return found.group(1)


def _relocate(headers: Path, tree: Path) -> None:
    """The headers' Makefile includes its ``-common`` half by an absolute path under /usr/src:
    pointed at the unpacked copy instead."""
    makefile = headers / "Makefile"
    text = makefile.read_text()
    makefile.write_text(re.sub(r"^include /usr/src/", f"include {tree}/usr/src/", text,
                               flags=re.M))


def _run(command: list[str], what: str, cwd: Path | None = None) -> None:
    done = subprocess.run(["nice", "-n", "10", *command], capture_output=True, text=True,
                          cwd=cwd)
    if done.returncode != 0:
        lines = (done.stderr or done.stdout).strip().splitlines()
        errors = [line for line in lines if "error" in line.lower()] or lines or ["no output"]
        raise BuildError(f"{what} failed (exit {done.returncode}): {errors[-1]}")
