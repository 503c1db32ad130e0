"""The kernel a guest boots: Debian's, unpacked from its bzImage once, and booted at its PVH
entry.

Under TCG the bzImage's own start costs about six seconds of every boot before the kernel's
first line: its decompressor unpacking some 65 MB from xz on an emulated CPU. qemu boots an
uncompressed kernel (an ELF file with the PVH entry note, XEN_ELFNOTE_PHYS32_ENTRY, which
Debian's kernels have: CONFIG_PVH) at that entry, with the same command line and initramfs: the
first line then comes in half a second. The kernel is the same file's code, byte for byte: only
its unpacking moves from the guest's boot to this machine, once per image (``vmlinux`` beside
``vmlinuz`` in the image's folder).

A bzImage that is not xz, or whose kernel has no PVH entry, is booted as it is.
"""

from __future__ import annotations

import lzma
import os
import struct
from pathlib import Path

XZ_MAGIC = b"\xfd7zXZ\x00"
PT_NOTE = 4
PVH_ENTRY = 18  # XEN_ELFNOTE_PHYS32_ENTRY: the 32-bit entry qemu's PVH boot jumps to


def has_pvh_entry(elf: bytes) -> bool:
    """Whether ``elf`` (a 64-bit little-endian ELF file) has a Xen note of type PVH_ENTRY."""
    if elf[:4] != b"\x7fELF" or elf[4] != 2 or elf[5] != 1:
        return False
    phoff, = struct.unpack_from("<Q", elf, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", elf, 0x36)
    for k in range(phnum):
        kind, _, offset, _, _, size = struct.unpack_from("<IIQQQQ", elf, phoff + k * phentsize)
        if kind != PT_NOTE:
            continue
        at, end = offset, offset + size
        while at + 12 <= end:
            namesz, descsz, note = struct.unpack_from("<III", elf, at)
            name = elf[at + 12:at + 12 + namesz].rstrip(b"\0")
            if name == b"Xen" and note == PVH_ENTRY:
                return True
            at += 12 + (namesz + 3) // 4 * 4 + (descsz + 3) // 4 * 4
    return False


def unpacked(bzimage: bytes) -> bytes | None:
    """The ELF kernel inside ``bzimage`` (its xz payload unpacked), or None when it has none
    this can boot at its PVH entry."""
    at = bzimage.find(XZ_MAGIC)
    if at < 0:
        return None
    try:
        elf = lzma.LZMADecompressor().decompress(bzimage[at:])
        return elf if has_pvh_entry(elf) else None
    except (lzma.LZMAError, struct.error, IndexError):  # not xz, or not a whole ELF file
        return None


def boot_kernel(image: Path) -> Path:
    """The kernel file to give qemu for the image folder ``image``: its ``vmlinux``, unpacked
    from ``vmlinuz`` the first time (written whole, then renamed: another process booting the
    same image meanwhile sees the bzImage or the whole file); ``vmlinuz`` where it cannot be."""
    elf, bz = image / "vmlinux", image / "vmlinuz"
    if elf.is_file():
        return elf
    kernel = unpacked(bz.read_bytes())
    if kernel is None:
        return bz
    part = image / f"vmlinux.{os.getpid()}.part"
    part.write_bytes(kernel)
    os.replace(part, elf)
    return elf
