#!/bin/sh
# The power-cut cycles' init (bench/appliance_cuts.py), run by the prepared disk's stub once the
# checkout is mounted: the real kernel, root filesystem, journal, daemon and hub; no systemd.
# The cycle's mode and match come on the kernel's command line (uno.cut=, uno.match=).
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
STATE=/var/lib/uno-cuts
VENV=/usr/local/lib/uno-table/venv
GUEST=/mnt/checkout/bench/appliance_cuts_guest.py
CONFIG=/run/uno-cuts.toml
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
$VENV/bin/python $GUEST config > $CONFIG
say "UNO-CUT-BOOT $(cut -d' ' -f1 /proc/uptime) $mode"
say "UNO-CUT-CHECK $(as $VENV/bin/python $GUEST check $STATE 2>&1 | tail -n 1)"
say "UNO-CUT-START $(cut -d' ' -f1 /proc/uptime)"
case $mode in
tap|ro)
    as $VENV/bin/uno-table run --config $CONFIG --events /dev/ttyS0 >/dev/null 2>/run/daemon.log &;;
enroll)
    as $VENV/bin/uno-table enroll --out $STATE/deck.toml --config $CONFIG --reader pad \
        >/dev/ttyS0 2>&1 &;;
repair)
    rm -rf $STATE/repair; as mkdir $STATE/repair
    for f in $STATE/journal.sqlite3 $STATE/journal.sqlite3-wal; do
        [ -e $f ] && as cp $f $STATE/repair/; done
    as dd if=/dev/urandom of=$STATE/repair/journal.sqlite3 bs=4096 seek=1 count=1 conv=notrunc \
        2>/dev/null
    sync; say "UNO-CUT-REPAIR $(cut -d' ' -f1 /proc/uptime)"
    as $VENV/bin/python $GUEST repair $STATE/repair/journal.sqlite3 >/dev/ttyS0 2>&1 &;;
hub)
    printf 'listener 1883 127.0.0.1\nallow_anonymous true\npersistence false\n%s\n%s\n' \
        'log_dest stdout' 'log_type all' > /run/mosquitto.conf
    mosquitto -c /run/mosquitto.conf >/dev/ttyS0 2>&1 &
    as $VENV/bin/uno-table hub --mqtt 127.0.0.1:1883 --store $STATE/hub.sqlite3 \
        >/dev/null 2>/run/hub.log &
    as $VENV/bin/python $GUEST send "$match" 60 >/dev/null 2>&1 &;;
esac
while :; do wait; sleep 5; done
