#!/bin/sh
# The power-cut cycles' init (bench/appliance_cuts.py), run by the prepared disk's stub once the
# checkout is mounted: the real kernel, root filesystem, journal, daemon and hub; no systemd.
# The cycle's mode and match come on the kernel's command line (uno.cut=, uno.match=).
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
STATE=/var/lib/uno-cuts
VENV=/usr/local/lib/uno-table/venv
GUEST=/mnt/checkout/bench/appliance_cuts_guest.py
mkdir -p /dev/pts /dev/shm; mount -t devpts pts /dev/pts
for t in /run /tmp /dev/shm; do mount -t tmpfs tmpfs $t; done
for m in virtio_console xhci_pci ftdi_sio; do modprobe -q $m; done
mode=tap; match=x
for w in $(cat /proc/cmdline); do case $w in
  uno.cut=*) mode=${w#uno.cut=};; uno.match=*) match=${w#uno.match=};; esac; done
say() { echo "$*" > /dev/ttyS0; }
as() { runuser -u uno-table -- "$@"; }
if [ "$mode" = ro ]; then  # the root read only, /var an overlay in RAM, the journal on vdb
    mkdir -p /run/ovl/u /run/ovl/w
    mount -t overlay ovl -o lowerdir=/var,upperdir=/run/ovl/u,workdir=/run/ovl/w /var
    mount /dev/vdb $STATE && chown uno-table:uno-table $STATE
    say "UNO-CUT-RO root $(awk '$2 == "/" {split($4, o, ","); print o[1]}' /proc/mounts)"
fi
i=0; while [ ! -e /dev/vport1p1 ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done
qemu-ga -d -m virtio-serial -p /dev/vport1p1
i=0; while [ ! -e /dev/ttyUSB0 ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done
chgrp dialout /dev/ttyUSB0 /dev/ttyS0; chmod 660 /dev/ttyUSB0 /dev/ttyS0  # as udev would
say "UNO-CUT-BOOT $(cut -d' ' -f1 /proc/uptime) $mode"
cycle() { as $VENV/bin/python $GUEST cycle $mode $STATE "$match" >/dev/ttyS0 2>/run/cycle.log & }
case $mode in
hub)
    printf 'listener 1883 127.0.0.1\nallow_anonymous true\npersistence false\n%s\n%s\n' \
        'log_dest stdout' 'log_type all' > /run/mosquitto.conf
    mosquitto -c /run/mosquitto.conf >/dev/ttyS0 2>&1 &
    cycle
    as $VENV/bin/python $GUEST send "$match" 60 >/dev/null 2>&1 &;;
*) cycle;;
esac
while :; do wait; sleep 5; done
