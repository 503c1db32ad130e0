#!/bin/sh
# The power-cut cycles' init (bench/appliance_cuts.py), run once the code disk is mounted: the
# real kernel, root filesystem, journal, daemon and hub; no systemd. The cycle's mode and match
# come on the kernel's command line (uno.cut=, uno.match=). The table's code is the checkout's
# (the code disk, with its bytecode), run by the installed venv's Python and its packages.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
STATE=/var/lib/uno-cuts
VENV=/usr/local/lib/uno-table/venv
GUEST=/mnt/checkout/bench/appliance_cuts_guest.py
mkdir -p /dev/pts /dev/shm; mount -t devpts pts /dev/pts 2>/dev/null
for t in /tmp /dev/shm; do mount -t tmpfs tmpfs $t; done
mountpoint -q /run || mount -t tmpfs tmpfs /run
modprobe -qa virtio_console xhci_pci ftdi_sio
if [ $(( $(cat /sys/class/net/lo/flags) & 1 )) = 0 ]; then  # Debian's initramfs leaves it down
    $VENV/bin/python -c "import fcntl, socket, struct; fcntl.ioctl(socket.socket(), 0x8914, \
struct.pack('16sH', b'lo', 0x49))"  # SIOCSIFFLAGS: up, loopback, running
fi
mode=tap; match=x
for w in $(cat /proc/cmdline); do case $w in
  uno.cut=*) mode=${w#uno.cut=};; uno.match=*) match=${w#uno.match=};; esac; done
say() { echo "$*" > /dev/ttyS0; }
as() {
    # -S: no site module (its .pth files cost seconds a start under TCG); its one job here,
    # the venv's packages on the path, done by PYTHONPATH.
    runuser -u uno-table -- \
        env PYTHONPATH=/mnt/checkout:/mnt/checkout/site:$VENV/lib/python3.11/site-packages \
        $VENV/bin/python -S "$@"
}
if [ "$mode" = ro ]; then  # the root read only, /var an overlay in RAM, the journal on vdc
    mkdir -p /run/ovl/u /run/ovl/w
    mount -t overlay ovl -o lowerdir=/var,upperdir=/run/ovl/u,workdir=/run/ovl/w /var
    mkdir -p $STATE && mount /dev/vdc $STATE && chown uno-table:uno-table $STATE
    say "UNO-CUT-RO root $(awk '$2 == "/" {split($4, o, ","); print o[1]}' /proc/mounts)"
fi
[ "$mode" = ro ] || [ -d $STATE ] || install -d -o uno-table -g uno-table -m 750 $STATE
agent() {  # the guest agent on its port, found by name (udev would link it)
    i=0; while [ $i -lt 100 ]; do
        for port in /sys/class/virtio-ports/*; do
            [ "$(cat $port/name 2>/dev/null)" = org.qemu.guest_agent.0 ] &&
                exec qemu-ga -m virtio-serial -p /dev/${port##*/}
        done
        sleep 0.1; i=$((i+1))
    done
}
agent &
i=0; while [ ! -e /dev/ttyUSB0 ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done
chgrp dialout /dev/ttyUSB0 /dev/ttyS0; chmod 660 /dev/ttyUSB0 /dev/ttyS0  # as udev would
say "UNO-CUT-BOOT $(cut -d' ' -f1 /proc/uptime) $mode"
cycle() { as $GUEST cycle $mode $STATE "$match" >/dev/ttyS0 2>&1 & }
case $mode in
hub)
    printf 'listener 1883 127.0.0.1\nallow_anonymous true\npersistence false\n%s\n%s\n' \
        'log_dest stdout' 'log_type all' > /run/mosquitto.conf
    mosquitto -c /run/mosquitto.conf >/dev/ttyS0 2>&1 &
    cycle;;
*) cycle;;
esac
while :; do wait; sleep 5; done
