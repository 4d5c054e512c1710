"""devices_check.py RECORDING [PCI_BUS_ID...] - the device of every
operation of a recording of devices.py (tests/gpu/nccl.sh): every kernel and
memset runs on the device of the memory its pointers reach, unless that
device's memory is reachable by peer access enabled before it; every copy's
source and destination devices are those of its memory; and with the bus
ids of the physical GPUs as CUDA numbers them after CUDA_VISIBLE_DEVICES,
devices.pci_bus_id of each ordinal is that GPU's.  Prints what it checked;
exit 1 on the first wrong device."""
import sqlite3
import sys

db = sqlite3.connect(sys.argv[1])
q = lambda s, *a: db.execute(s, a).fetchall()
allocs = q("SELECT address, size, device FROM memory WHERE op = 'alloc' AND kind LIKE 'device%'")


def dev_of(addr):
    for a, n, d in allocs:
        if a <= addr < a + n:
            return d
    return None


peers = set((d, p) for d, p in q("SELECT device, peer FROM device_ops WHERE op = 'peer-enable'"))
bad, n, npeer = [], 0, 0
for seq, dev, api in q("SELECT c.seq, c.device, a.name FROM calls c JOIN api a ON a.id = c.api"
                       " JOIN kernels k ON k.seq = c.seq WHERE c.result = 0"):
    for (value,) in q("SELECT value FROM kernel_args WHERE seq = ?", seq):
        d = dev_of(value)
        if d is None:
            continue
        n += 1
        if d != dev:
            if (dev, d) in peers:
                npeer += 1
            else:
                bad.append("kernel call %d on device %s reaches memory of device %s" % (seq, dev, d))
for seq, op, src, dst, sd, dd, dev in q(
        "SELECT t.seq, t.op, t.src, t.dst, t.src_device, t.dst_device, c.device FROM transfers t"
        " JOIN calls c ON c.seq = t.seq WHERE c.result = 0"):
    for addr, rec, side in ((src, sd, "source"), (dst, dd, "destination")):
        d = dev_of(addr) if addr is not None else None
        if d is None:
            continue
        n += 1
        if rec is not None and rec != d:
            bad.append("%s call %d: %s recorded on device %s, its memory is on %s" % (op, seq, side, rec, d))
        if op == "memset" and dev != d:
            bad.append("memset call %d on device %s, its memory on %s" % (seq, dev, d))
ndev = q("SELECT count(DISTINCT device) FROM calls WHERE device IS NOT NULL")[0][0]
if ndev < 2:
    bad.append("calls on %d device(s), expected 2" % ndev)
for ordinal, bus in enumerate(sys.argv[2:]):
    got = q("SELECT pci_bus_id FROM devices WHERE ordinal = ?", ordinal)
    n += 1
    if not got or (got[0][0] or "").lower()[-12:] != bus.lower()[-12:]:
        bad.append("device %d is %s in the recording, %s for CUDA" % (ordinal, got, bus))
for b in bad:
    print(b)
print("devices_check: %d accesses and devices checked (%d through peer access), %d wrong" %
      (n, npeer, len(bad)))
sys.exit(1 if bad else 0)
