"""One qemu-system-x86_64 guest of the appliance, and the three ways a test reaches into it.

- The console (the guest's ttyS0), read line by line: ``Guest.wait_line``.
- Commands, as root or as the installing user: ``Guest.run`` through qemu-guest-agent
  (Debian's qemu-guest-agent in the image, ``guest-exec`` over a virtio-serial port). A
  well-kept agent that systemd starts as soon as udev sees its port, that needs no network,
  no login and no shell on the console, and that leaves the console to the guest's own
  messages.
- The machine itself: ``Guest.qmp`` (qemu's monitor protocol: ``device_add``, ``device_del``,
  ``quit``...).

Each guest has its own folder (its disk overlay on the cached image, its sockets), so two can
run at once; a guest booted again after a cut is given the same overlay.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import shlex
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from guest_kernel import boot_kernel

ROOT = Path(__file__).resolve().parent.parent
MARKER = "UNO-APPLIANCE-UP"  # the image's last unit writes it on the console
USER = "maker"  # the installing user in the guest: a normal user with sudo
CHECKOUT = "/mnt/checkout"  # the checkout in the guest (virtio 9p, read-only)
NICE = 10  # a guest's niceness on this shared machine (./uno appliance is at 10 already)
# One virtual CPU: on a host whose cores are busy, a second one spins on the locks the first
# holds while it waits for the host (the boot took longer with two).
SMP = 1
# no_timer_check: the kernel's check that the 8254 timer reaches the IO-APIC, which a virtual
# CPU starved by its host can fail ("IO-APIC + timer doesn't work!", a panic at 0 s: seen once
# here while a module was built beside the boot); virtual machines' kernels are booted with it.
KERNEL_ARGS = ("root=/dev/vda", "rw", "console=ttyS0", "panic=-1", "quiet",
               "systemd.show_status=false", "mitigations=off", "no_timer_check")


class ApplianceError(Exception):
    """The guest cannot start, or did not do what it was asked: one line, exit 2."""


class GuestError(ApplianceError):
    """A command channel into the guest (the agent or QMP) failed or timed out."""


def free_port() -> int:
    """A TCP port on the host nobody listens on now (for a ``hostfwd``)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class _JsonSocket:
    """A unix socket speaking one JSON object a line (QMP and the guest agent both do)."""

    def __init__(self, path: Path, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while True:
            self.sock = socket.socket(socket.AF_UNIX)
            try:
                self.sock.connect(str(path))
                break
            except OSError:
                self.sock.close()
                if time.monotonic() > deadline:
                    raise GuestError(f"no socket at {path} after {timeout:g} s") from None
                time.sleep(0.1)
        self._buffer = b""
        self.lock = threading.Lock()

    def send(self, message: dict[str, Any]) -> None:
        try:
            self.sock.sendall(json.dumps(message).encode() + b"\n")
        except OSError as exc:
            raise GuestError(f"the socket failed: {exc.strerror}") from None

    def receive(self, timeout: float) -> dict[str, Any]:
        """The next whole object, or GuestError after ``timeout`` s."""
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise GuestError(f"no answer in {timeout:g} s")
            self.sock.settimeout(left)
            try:
                chunk = self.sock.recv(65536)
            except TimeoutError:
                continue
            except OSError as exc:
                raise GuestError(f"the socket failed: {exc.strerror}") from None
            if not chunk:
                raise GuestError("the socket closed (qemu gone?)")
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        line = line.strip(b"\xff \r")  # guest-sync-delimited's 0xFF, stray blanks
        if not line:
            return self.receive(max(0.1, deadline - time.monotonic()))
        decoded: dict[str, Any] = json.loads(line)
        return decoded

    def close(self) -> None:
        self.sock.close()


class Guest:
    """One qemu-system-x86_64 run of an image (``build_image``'s folder).

    ``qemu_args`` are added to qemu's command line (chardevs, devices); ``hostfwd`` are
    forwards on the user-mode network (``"tcp::8080-:8080"``); ``kernel_args`` are added to
    the kernel's command line (``init=...``); ``overlay`` is the disk of an earlier guest to
    boot again (after a cut), else a fresh one on ``backing`` (a disk an earlier guest left,
    say the installed one: that disk is only read) or on the cached image."""

    def __init__(self, image: Path, accel: str, memory: int = 1536, *, smp: int = SMP,
                 qemu_args: Sequence[str] = (), kernel_args: Sequence[str] = (),
                 hostfwd: Sequence[str] = (), overlay: Path | None = None,
                 backing: Path | None = None, folder: Path | None = None) -> None:
        self.accel = accel
        self.image = image.resolve()  # the overlay names its backing file by this path
        self.folder = folder or Path(tempfile.mkdtemp(prefix="guest-", dir=self.image.parent))
        self.folder.mkdir(parents=True, exist_ok=True)
        self.overlay = overlay or self.folder / "disk.qcow2"
        if not self.overlay.exists():  # each guest writes here, the cached image stays clean
            below = ["-F", "qcow2", "-b", str(backing.resolve())] if backing else \
                ["-F", "raw", "-b", str(self.image / "root.img")]
            _run(["qemu-img", "create", "-q", "-f", "qcow2", *below, str(self.overlay)],
                 "qemu-img")
        self.qmp_path = self.folder / "qmp.sock"
        self.agent_path = self.folder / "agent.sock"
        for stale in (self.qmp_path, self.agent_path):
            stale.unlink(missing_ok=True)
        self.lines: list[str] = []
        self.events: list[dict[str, Any]] = []  # QMP events seen, in order
        self._new = threading.Condition()
        self._qmp: _JsonSocket | None = None
        self._agent: _JsonSocket | None = None
        nic = "user,model=virtio-net-pci" + "".join(f",hostfwd={f}" for f in hostfwd)
        tcg = "tcg,thread=multi" if smp > 1 else "tcg"
        self.command = [
            "nice", "-n", str(max(0, NICE - os.nice(0))), "qemu-system-x86_64",
            "-accel", tcg if accel == "tcg" else accel, "-m", str(memory), "-smp", str(smp),
            "-nographic", "-no-reboot", "-nodefaults", "-serial", "stdio",
            "-kernel", str(boot_kernel(self.image)), "-initrd", str(self.image / "initrd.img"),
            "-append", " ".join((*KERNEL_ARGS, *kernel_args)),
            "-drive", f"file={self.overlay},if=virtio,format=qcow2",
            "-virtfs", f"local,path={ROOT},mount_tag=checkout,security_model=none,readonly=on",
            "-nic", nic,
            "-qmp", f"unix:{self.qmp_path},server=on,wait=off",
            "-device", "virtio-serial-pci",
            "-chardev", f"socket,path={self.agent_path},server=on,wait=off,id=agent",
            "-device", "virtserialport,chardev=agent,name=org.qemu.guest_agent.0",
            # A sound card, as every Pi has (its headphone jack, HDMI): the voice's aplay plays
            # into it and qemu drops the sound. Without one, every phrase was an error.
            "-audiodev", "none,id=sound", "-device", "ich9-intel-hda",
            "-device", "hda-output,audiodev=sound",
            *qemu_args,
        ]
        # TCG's default CPU (qemu64) lacks SSE4.2 and POPCNT, which numpy 2's wheels need
        # (check-table died of "Illegal instruction"): every feature TCG can emulate.
        cpu = "host" if accel == "kvm" else "max"
        self.command[self.command.index("-m"):self.command.index("-m")] = ["-cpu", cpu]
        self.started = time.monotonic()
        self.proc = subprocess.Popen(self.command, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        threading.Thread(target=self._read, daemon=True).start()

    # The console.

    def _read(self) -> None:
        assert self.proc.stdout is not None
        log = (self.folder / "console.log").open("a", encoding="utf-8")  # to look at meanwhile
        for raw in self.proc.stdout:
            line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
            log.write(line + "\n")
            log.flush()
            with self._new:
                self.lines.append(line)
                self._new.notify_all()
        log.close()
        with self._new:
            self.lines.append("")  # the end: qemu is gone
            self._new.notify_all()

    def wait_line(self, needle: str, timeout: float, start: int = 0) -> str | None:
        """The first console line from ``start`` on holding ``needle`` within ``timeout`` s,
        or None (also when qemu ends)."""
        deadline = time.monotonic() + timeout
        seen = start
        with self._new:
            while True:
                for line in self.lines[seen:]:
                    if needle in line:
                        return line
                seen = max(seen, len(self.lines))
                left = deadline - time.monotonic()
                if left <= 0 or self.proc.poll() is not None:
                    return None
                self._new.wait(left)

    def alive(self) -> bool:
        """qemu still runs."""
        return self.proc.poll() is None

    # QMP.

    def qmp(self, command: str, timeout: float = 30.0, **arguments: Any) -> Any:
        """One QMP command and its ``return`` (GuestError on its ``error``):
        ``guest.qmp("device_add", driver="usb-serial", id="bridge", chardev="bridge")``; an
        argument with a dash in its name goes in as ``**{"name-with-dash": value}``."""
        if self._qmp is None:
            qmp = _JsonSocket(self.qmp_path, timeout)
            qmp.receive(timeout)  # the greeting
            self._qmp = qmp
            self.qmp("qmp_capabilities", timeout)
        message: dict[str, Any] = {"execute": command}
        if arguments:
            message["arguments"] = arguments
        with self._qmp.lock:
            self._qmp.send(message)
            while True:
                answer = self._qmp.receive(timeout)
                if "event" in answer:
                    self.events.append(answer)
                    continue
                if "error" in answer:
                    raise GuestError(f"QMP {command}: {answer['error'].get('desc')}")
                return answer.get("return")

    # The guest agent.

    def wait_agent(self, timeout: float) -> None:
        """Wait until the guest agent answers (it starts with udev, before the marker)."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                self._agent_call("guest-ping", {}, 5.0)
                return
            except GuestError:
                if self._agent is not None:
                    self._agent.close()
                    self._agent = None
                if time.monotonic() > deadline or not self.alive():
                    raise GuestError(f"the guest agent did not answer in {timeout:g} s") \
                        from None

    def _agent_call(self, command: str, arguments: dict[str, Any], timeout: float) -> Any:
        if self._agent is None:
            agent = _JsonSocket(self.agent_path, timeout)
            token = int(time.monotonic() * 1000) % 2**31
            agent.sock.sendall(b"\xff")  # drop whatever an earlier client left half-written
            agent.send({"execute": "guest-sync-delimited", "arguments": {"id": token}})
            while agent.receive(timeout).get("return") != token:
                pass
            self._agent = agent
        with self._agent.lock:
            self._agent.send({"execute": command, "arguments": arguments})
            answer = self._agent.receive(timeout)
        if "error" in answer:
            raise GuestError(f"guest agent {command}: {answer['error'].get('desc')}")
        return answer.get("return")

    def run(self, command: str, timeout: float = 120.0, *, user: str | None = None,
            stdin: str | None = None) -> tuple[int, str, str]:
        """``command`` run by ``sh -c`` in the guest as root (``user=USER``: as the installing
        user, a fresh login with its groups as they are now): (exit code, stdout, stderr).
        Killed after ``timeout`` s (exit 124, as timeout(1) says)."""
        argv = ["timeout", "-k", "5", str(int(timeout)), "sh", "-c", command]
        if user is not None:
            argv = ["runuser", "-l", user, "-c", shlex.join(argv)]
        arguments: dict[str, Any] = {"path": argv[0], "arg": argv[1:], "capture-output": True}
        if stdin is not None:
            arguments["input-data"] = base64.b64encode(stdin.encode()).decode()
        pid = self._agent_call("guest-exec", arguments, 30.0)["pid"]
        deadline = time.monotonic() + timeout + 30
        pause = 0.05
        while True:
            status = self._agent_call("guest-exec-status", {"pid": pid}, 30.0)
            if status.get("exited"):
                break
            if time.monotonic() > deadline:
                raise GuestError(f"{command!r} still runs after {timeout:g} s")
            time.sleep(pause)
            pause = min(pause * 1.5, 1.0)
        out = base64.b64decode(status.get("out-data", "")).decode("utf-8", "replace")
        err = base64.b64decode(status.get("err-data", "")).decode("utf-8", "replace")
        code = status.get("exitcode", 128 + status.get("signal", 0))
        return int(code), out, err

    def check(self, command: str, timeout: float = 120.0, *, user: str | None = None) -> str:
        """``run``, and its stdout; GuestError naming the command and its stderr when it
        exits other than 0."""
        code, out, err = self.run(command, timeout, user=user)
        if code != 0:
            tail = (err or out).strip().splitlines()[-1:] or ["no output"]
            raise GuestError(f"in the guest, {command!r} exited {code}: {tail[0]}")
        return out

    def write_file(self, path: str, data: bytes, mode: str = "644") -> None:
        """A file written in the guest (as root), through the agent."""
        quoted = shlex.quote(path)
        code, _, err = self.run(f"base64 -d > {quoted} && chmod {mode} {quoted}", 60,
                                stdin=base64.b64encode(data).decode())
        if code != 0:
            raise GuestError(f"writing {path} in the guest: {err.strip()}")

    # The end.

    def kill(self) -> None:
        """Pull the plug: qemu killed. What the guest flushed is on the disk (qemu's default
        writeback cache writes its qcow2 tables and syncs the file on each guest flush); what
        it did not flush may be lost, as in a power cut."""
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(30)
        for channel in (self._qmp, self._agent):
            if channel is not None:
                channel.close()
        self._qmp = self._agent = None

    def poweroff(self, timeout: float = 120.0) -> None:
        """A clean shutdown (systemd stops every unit, the disk synced), qemu's end awaited;
        killed after ``timeout`` s."""
        with contextlib.suppress(GuestError):
            self.run("sync; systemctl poweroff --no-block", 30)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout)
        self.kill()

    def close(self, keep_disk: bool = False) -> None:
        """qemu ended and the guest's folder removed (its disk kept when asked)."""
        self.kill()
        if keep_disk:
            return
        shutil.rmtree(self.folder, ignore_errors=True)
        if not self.overlay.is_relative_to(self.folder):
            self.overlay.unlink(missing_ok=True)


def _run(command: list[str], what: str) -> None:
    """A host step; its failure is the one line naming it."""
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
        raise ApplianceError(f"{what} failed (exit {done.returncode}): {tail[0]}")
