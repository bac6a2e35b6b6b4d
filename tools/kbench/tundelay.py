#!/usr/bin/python3
"""tundelay: a delay line on a TUN device, for kbench's TCP flows.

This kernel has no netem (nor fq or etf, which honour a packet's departure
time), so kbench routes the TCP flows' ACKs through a TUN device in its
router namespace and this program holds each one for its flow's round-trip
delay before handing it back to the kernel, which forwards it on:

    tundelay.py TUN PORT:DELAY_NS [PORT:DELAY_NS ...]

It creates TUN (in the namespace it runs in), prints "ready" once it is
there, and runs until SIGTERM or SIGINT. A packet whose TCP source or
destination port is a PORT waits DELAY_NS nanoseconds; anything else
passes at once. Packets leave in the order they came (delays are per
port, so one flow's packets never pass each other). kbench adds the routes.
"""

import fcntl
import heapq
import os
import select
import signal
import struct
import sys
import time

TUNSETIFF = 0x400454CA
IFF_TUN = 0x0001
IFF_NO_PI = 0x1000


def open_tun(name):
    fd = os.open("/dev/net/tun", os.O_RDWR)
    fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", name.encode(), IFF_TUN | IFF_NO_PI))
    return fd


def ports(pkt):
    """(source, destination) TCP ports of an IPv4 packet, or None."""
    if len(pkt) < 20 or pkt[0] >> 4 != 4 or pkt[9] != 6:
        return None
    ihl = (pkt[0] & 0x0F) * 4
    if len(pkt) < ihl + 4:
        return None
    return struct.unpack_from("!HH", pkt, ihl)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    delays = {}
    for arg in sys.argv[2:]:
        port, ns = arg.split(":")
        delays[int(port)] = int(ns)
    fd = open_tun(sys.argv[1])
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    print("ready", flush=True)
    held, seq = [], 0
    while True:
        now = time.monotonic_ns()
        while held and held[0][0] <= now:
            os.write(fd, heapq.heappop(held)[2])
        timeout = (held[0][0] - now) / 1e9 if held else None
        try:
            ready, _, _ = select.select([fd], [], [], timeout)
        except KeyboardInterrupt:
            return
        if not ready:
            continue
        pkt = os.read(fd, 65536)
        p = ports(pkt)
        delay = 0
        if p is not None:
            delay = delays.get(p[0], delays.get(p[1], 0))
        # seq keeps the order of packets due at the same instant
        heapq.heappush(held, (time.monotonic_ns() + delay, seq, pkt))
        seq += 1


if __name__ == "__main__":
    main()
