#!/usr/bin/python3
"""kbench: a scenario on a real kernel bottleneck.

Reads a scenario file (the keys of docs/scenarios.md) and runs it between
three network namespaces joined by veth pairs, sender -- router --
receiver, with a `tbf` queue on the router's egress towards the receiver at
the scenario's capacity and queue limit (following its `schedule` with `tc
qdisc change`). Media flows are real pipelines (videotestsrc ! ENCODER !
PAYLOADER ! CONTROLLER ! rtpbin ! udpsink, a stock rtpbin receiver sending
TWCC feedback back), CBR flows RTP/UDP at their rate, long TCP flows iperf3
and short ones kernel TCP transfers of their sizes. This kernel has no
netem: a `linksim` on the receiver's side adds each flow's propagation
delay and the scenario's noise and loss after the queue, one on the
sender's side the feedback's return delay (and a `[reverse]` section's
link), and a delay line on a TUN device in the router (tundelay.py) holds
the TCP flows' ACKs for their round trip's delay.

It computes no metric itself: media and CBR packets are timed at the
sockets (pad probes), TCP packets by tcpdump on the router, all written as
rcsim's packet log, and `rcsim SCENARIO --from-log LOG` prints the metrics
of docs/metrics.md with a `realtime` block added. docs/kbench.md says what
is measured where, and what it cannot express.

    tools/kbench/kbench.py SCENARIO [--controller NAME] [--duration S]
        [--seed N] [--json] [--csv DIR] [--log FILE] [--rcsim PATH]
        [--content scroll|snow|ball|scenes]

Needs root, veth and tbf; without them it says so and exits with 77
(skip), as it does for `--controller gcc` without rtpgccbwe.
"""

import argparse
import bisect
import collections
import ctypes
import json
import os
import random
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "rtsim"))
import rtpipes as rp  # noqa: E402
from rtpipes import Gst, make  # noqa: E402

from gi.repository import Gio  # noqa: E402

rp.PROG = "kbench"
die = rp.die

# tbf's bucket: at least one full-size packet (1500 B) or such a packet never
# leaves; two of them, so a late timer (the watchdog is an hrtimer, but the
# softirq that dequeues can run late) costs no capacity: up to one packet's
# worth of tokens (12 ms at 1 Mbit/s) is kept rather than lost. PEAK_FACTOR
# keeps it from sending them back to back.
BURST = 3000
# tbf's second bucket (`peakrate`, one packet deep): packets leave no faster
# than 1 % above the rate, as from a link that serializes them, instead of
# BURST bytes back to back after each idle period. Without it every busy
# period ran up to BURST/rate (24 ms at 1 Mbit/s) ahead of a serializing
# link, and kbench's queueing delay read that much lower than rcsim's for
# the same queue. 1 % above the rate so that the first bucket, not this
# one, sets the long-run capacity; a busy period of 1 s gets 10 ms ahead.
PEAK_FACTOR = 1.01
# The second bucket's depth (tc's `mtu`) is the largest packet the
# scenario sends (peak_mtu()): tbf drops a packet larger than it, and what a
# smaller packet leaves of it lets the next one out early. With a fixed
# 1600 bytes a 1256-byte media packet left 344 B after each idle moment,
# the second packet of a pair left 2.7 ms early at 1 Mbit/s, and URCP's
# packet pairs read the bottleneck 1.5 % above the link (results.md,
# 2026-11-28).
PEAK_MTU_MIN = 64
# What rtpbin's TWCC header extension adds to each RTP packet beyond the
# payloader's `mtu` (a kbench log: 1200-byte `mtu` -> 1228-byte UDP
# payloads), and what a ULPFEC repair packet adds beyond the largest packet
# it protects (RFC 5109 sec. 7.3-7.4: 10 + 8 bytes of FEC and level
# headers, gst/rc-fec.h).
TWCC_EXT = 8
ULPFEC_EXTRA = 10 + 8
TCP_IP_MTU = 1500           # the veths' MTU: TCP's largest IP packet
NO_LIMIT = 1 << 30          # queue-limit-ms=0: no tail drop (1 GiB of queue)
FAST_LINK = 1000000000      # linksim after the queue: no second bottleneck
OUTAGE_BPS = 8              # tbf's rate during a 0 bit/s schedule step
IPV4_UDP = 28               # the IPv4 + UDP bytes the kernel path really adds
ETH = 14                    # what tbf counts on top of the IP packet on veth
CLONE_NEWNET = 0x40000000
SO_RCVBUFFORCE = 33          # linux/asm-generic/socket.h
IPERF3_PORT0 = 5201
LONG_RUN_S = 86400          # iperf3 -t: it is stopped by the run, not by itself
TUNDELAY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tundelay.py")
TCP_DELAY_TABLE = "100"     # the router's routing table that sends TCP to the delay line
# A trace-file's capacity as tbf steps of this length: the window over which
# rcsim reports a trace's rate (RC_LINK_TRACE_RATE_WINDOW, rc-link.h), so a
# step's rate is the capacity the metrics use for it. Every change refills
# tbf's buckets (BURST): while backlogged, tbf then runs at its peak rate
# (PEAK_FACTOR) rather than its rate, 1 % above the trace.
TRACE_BIN_S = 0.2
TRACE_OPPORTUNITY_BYTES = 1500   # a Mahimahi delivery opportunity (rc-link.c)


def skip(msg):
    print(f"kbench: {msg}: skipped", file=sys.stderr)
    sys.exit(77)


def real_to_mono_offset():
    """CLOCK_REALTIME - CLOCK_MONOTONIC (ns), from the tightest of a few
    bracketed readings: pcap times are realtime, GStreamer's monotonic."""
    best = None
    for _ in range(5):
        a = time.monotonic_ns()
        r = time.clock_gettime_ns(time.CLOCK_REALTIME)
        b = time.monotonic_ns()
        if best is None or b - a < best[0]:
            best = (b - a, r - (a + b) // 2)
    return best[1]


class Net:
    """Three namespaces, sender (s), router (b) and receiver (r), joined by
    two veth pairs, named and numbered after the pid so that two runs never
    collide; tbf on the router's egress towards the receiver."""

    def __init__(self, pid, overhead, peak_mtu):
        self.pid = pid
        self.peak_mtu = peak_mtu
        self.ns = {k: f"kb{pid}{k}" for k in "sbr"}
        # interface names at most 11 characters (IFNAMSIZ 16)
        self.ifs = {"s": f"kb{pid}s", "bs": f"kb{pid}bs", "br": f"kb{pid}br", "r": f"kb{pid}r",
                    "t": f"kb{pid}t"}     # t: the TCP delay line's TUN, in b
        # two /30s in 10.96.0.0/11 from the pid (8 addresses per run)
        base = (10 << 24) | (96 << 16) | ((pid % (1 << 18)) << 3)

        def ip(n):
            return socket.inet_ntoa(struct.pack("!I", base + n))
        self.addr = {"s": ip(1), "bs": ip(2), "br": ip(5), "r": ip(6)}
        # tbf counts the IP packet plus the Ethernet header on a veth; a
        # size table makes it count what the scenario's `overhead` counts
        # (the IP and UDP headers when overhead=28).
        self.stab = overhead - IPV4_UDP - ETH
        self.procs = []
        self.made = False

    def cmd(self, ns, *argv, check=True):
        full = ["ip", "netns", "exec", self.ns[ns], *argv] if ns else list(argv)
        p = subprocess.run(full, capture_output=True, text=True)
        if check and p.returncode != 0:
            raise RuntimeError(f"{' '.join(full)}: {p.stderr.strip() or p.returncode}")
        return p.stdout

    def up(self):
        self.made = True
        try:
            for n in self.ns.values():
                self.cmd(None, "ip", "netns", "add", n)
            self.cmd(None, "ip", "link", "add", self.ifs["s"], "type", "veth",
                     "peer", "name", self.ifs["bs"])
            self.cmd(None, "ip", "link", "add", self.ifs["br"], "type", "veth",
                     "peer", "name", self.ifs["r"])
        except RuntimeError as e:
            skip(f"no network namespaces or veth here ({e})")
        # No IPv6 link-local chatter (router solicitations, MLD) in the queue.
        for ns in "sbr":
            for scope in ("all", "default"):
                self.cmd(ns, "sysctl", "-qw", f"net.ipv6.conf.{scope}.disable_ipv6=1", check=False)
        for ifc, ns in (("s", "s"), ("bs", "b"), ("br", "b"), ("r", "r")):
            self.cmd(None, "ip", "link", "set", self.ifs[ifc], "netns", self.ns[ns])
            self.cmd(None, "ip", "-n", self.ns[ns], "addr", "add",
                     self.addr[ifc] + "/30", "dev", self.ifs[ifc])
            self.cmd(None, "ip", "-n", self.ns[ns], "link", "set", self.ifs[ifc], "up")
        for ns in "sbr":
            self.cmd(None, "ip", "-n", self.ns[ns], "link", "set", "lo", "up")
        self.cmd(None, "ip", "-n", self.ns["s"], "route", "add", "default", "via", self.addr["bs"])
        self.cmd(None, "ip", "-n", self.ns["r"], "route", "add", "default", "via", self.addr["br"])
        self.cmd("b", "sysctl", "-qw", "net.ipv4.ip_forward=1")
        # Permanent neighbours: no ARP packets in the queue (nor in tc's counts).
        for a, b in (("s", "bs"), ("bs", "s"), ("br", "r"), ("r", "br")):
            ns_a = self.ns["b" if a.startswith("b") else a]
            ns_b = self.ns["b" if b.startswith("b") else b]
            mac = json.loads(self.cmd(None, "ip", "-n", ns_b, "-j", "link", "show", "dev",
                                      self.ifs[b]))[0]["address"]
            self.cmd(None, "ip", "-n", ns_a, "neigh", "replace", self.addr[b], "lladdr", mac,
                     "dev", self.ifs[a], "nud", "permanent")
        # One TCP segment per packet from the sender: tbf would split a
        # GSO super-packet itself and count its pieces without the size table.
        self.cmd(None, "ip", "-n", self.ns["s"], "link", "set", "dev", self.ifs["s"],
                 "gso_max_segs", "1")

    def tbf(self, verb, rate_bps, limit_bytes):
        argv = ["tc", "qdisc", verb, "dev", self.ifs["br"], "root"]
        if self.stab:
            argv += ["stab", "overhead", str(self.stab)]
        argv += ["tbf", "rate", f"{int(rate_bps)}bit", "burst", str(BURST),
                 "peakrate", f"{max(int(rate_bps * PEAK_FACTOR), int(rate_bps) + 1)}bit",
                 "mtu", str(self.peak_mtu), "limit", str(int(limit_bytes))]
        try:
            self.cmd("b", *argv)
        except RuntimeError as e:
            if verb == "add":
                skip(f"tbf is not available ({e})")
            raise

    def tc_stats(self):
        out = self.cmd("b", "tc", "-s", "-j", "qdisc", "show", "dev", self.ifs["br"])
        return [q for q in json.loads(out) if q.get("kind") == "tbf"][0]

    def spawn(self, ns, argv, **kw):
        """A child process in namespace ns, in its own session (a ^C on the
        terminal reaches kbench, which stops it)."""
        p = subprocess.Popen(["ip", "netns", "exec", self.ns[ns], *argv],
                             start_new_session=True, **kw)
        self.procs.append(p)
        return p

    def socket(self, ns, kind):
        """A socket created in namespace ns (it stays there whichever
        namespace its user runs in)."""
        libc = ctypes.CDLL(None, use_errno=True)
        target = os.open(f"/run/netns/{self.ns[ns]}", os.O_RDONLY)
        home = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
        try:
            if libc.setns(target, CLONE_NEWNET) != 0:
                raise OSError(ctypes.get_errno(), "setns")
            try:
                return socket.socket(socket.AF_INET, kind)
            finally:
                if libc.setns(home, CLONE_NEWNET) != 0:
                    raise OSError(ctypes.get_errno(), "setns back")
        finally:
            os.close(target)
            os.close(home)

    def stop_procs(self):
        for p in self.procs:
            if p.poll() is None:
                p.terminate()
        for p in self.procs:
            try:
                p.wait(timeout=3)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        self.procs = []

    def down(self):
        self.stop_procs()
        if not self.made:
            return
        for n in self.ns.values():
            kill_netns_pids(n)
            subprocess.run(["ip", "netns", "del", n], capture_output=True)
        for i in self.ifs.values():     # left in the host if a move failed
            subprocess.run(["ip", "link", "del", i], capture_output=True)


def kill_netns_pids(ns):
    out = subprocess.run(["ip", "netns", "pids", ns], capture_output=True, text=True).stdout
    for pid in out.split():
        if int(pid) != os.getpid():
            try:
                os.kill(int(pid), signal.SIGKILL)
            except ProcessLookupError:
                pass


def reap_stale():
    """Namespaces of kbench runs that were killed (SIGKILL cannot be
    cleaned up after): their pid is gone."""
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    for line in out.splitlines():
        m = re.match(r"kb(\d+)[sbr]\b", line)
        if m and not os.path.exists(f"/proc/{m.group(1)}"):
            name = line.split()[0]
            print(f"kbench: removing {name}, left by a run that no longer exists",
                  file=sys.stderr)
            kill_netns_pids(name)
            subprocess.run(["ip", "netns", "del", name], capture_output=True)


class UdpTap:
    """One UDP stream of one flow: its entry when the sender hands it to
    its socket (the sink pad of the sender's udpsink, now), its departure
    from the kernel queue when the receiver's udpsrc reads it (its PTS:
    udpsrc stamps the running time it got the packet), and its arrival
    after the linksim that adds the propagation delay (its PTS: linksim
    stamps the arrival). Known by its RTP header (SSRC, sequence number,
    timestamp) or, for RTCP, by its bytes."""

    def __init__(self, runner, log_link, flow, kind, rtp):
        self.runner = runner
        self.log_link = log_link
        self.flow = flow
        self.kind = kind
        self.rtp = rtp
        self.overhead = runner.overhead
        self.lock = threading.Lock()
        self.recs = []                             # [entry, size, departure, arrival, key, kind, capture]
        self.by_key = collections.defaultdict(collections.deque)
        self.closed = False

    def key(self, buf):
        n = 12 if self.rtp else buf.get_size()
        return buf.extract_dup(0, min(n, buf.get_size()))

    def on_entry(self, pad, info):
        buf = info.get_buffer()
        t = self.runner.now()
        k = self.key(buf)
        with self.lock:
            if self.closed:
                return Gst.PadProbeReturn.DROP
            rec = [t, buf.get_size() + self.overhead, None, None, k,
                   rp.packet_kind(self.flow, self.kind, k) if self.rtp else self.kind,
                   rp.capture_time(pad, buf) if self.rtp else None]
            self.recs.append(rec)
            self.by_key[k].append(rec)
        return Gst.PadProbeReturn.OK

    @staticmethod
    def stamp(buf, fallback):
        return buf.pts if buf.pts != Gst.CLOCK_TIME_NONE else fallback()

    def on_departure(self, pad, info):
        buf = info.get_buffer()
        t = self.stamp(buf, self.runner.now)
        k = self.key(buf)
        with self.lock:
            for rec in self.by_key.get(k, ()):
                if rec[2] is None:
                    rec[2] = max(t, rec[0])
                    break
        return Gst.PadProbeReturn.OK

    def on_arrival(self, pad, info):
        buf = info.get_buffer()
        t = self.stamp(buf, self.runner.now)
        k = self.key(buf)
        with self.lock:
            q = self.by_key.get(k)
            while q:
                rec = q.popleft()
                if rec[2] is not None:
                    rec[3] = max(t, rec[2])
                    break
        return Gst.PadProbeReturn.OK

    def close(self):
        with self.lock:
            self.closed = True

    def finish(self, slot):
        """Log lines and counts: a packet that reached the receiver's socket
        and left linksim was received; one that reached the socket only was
        lost after the queue (linksim's loss); one that never reached it
        was dropped (by tbf: kbench checks the count against tc's).
        slot(size, t): the time a link of the capacity takes to serialize
        the packet, added to its departure and arrival (see slot_ns)."""
        with self.lock:
            self.closed = True
            lines, n = [], collections.Counter()
            for entry, size, dep, arr, _k, kind, cap in self.recs:
                if dep is not None and self.log_link == "fwd":
                    d = slot(size, dep)
                    dep += d
                    arr = arr + d if arr is not None else None
                if arr is not None:
                    fate = f"recv {dep} {arr}"
                elif dep is not None:
                    fate = f"lost {dep}"
                else:
                    fate = "drop"
                n[fate.split()[0]] += 1
                lines.append((entry, f"{self.log_link} {self.flow.index} {kind} "
                                     f"{size} {entry} {fate}{rp.capture_field(kind, cap)}"))
        return lines, n


class TcpFlow:
    """Kernel TCP from the sender's namespace to the receiver's on its own
    port: one long iperf3 transfer (`-C cubic|reno`) from start to stop, or
    short transfers of uniformly drawn sizes (`size-min`..`size-max`), each
    a fresh connection, with exponential idle times (`think-mean`). iperf3
    cannot do the short ones: its server closes the data connection when
    the client has *written* -n bytes, while most of them are still in the
    socket buffer (measured: 19 of 46 KB arrived), so they are plain
    sockets here. Stopping aborts the connection (`ss -K`, or a reset), so
    nothing left in a socket buffer goes on after the flow's stop."""

    def __init__(self, runner, flow, port):
        self.r = runner
        self.flow = flow
        self.port = port
        self.short = flow.size_max > 0
        self.cc = "reno" if flow.cc == "newreno" else flow.cc
        self.rng = random.Random(runner.seed * 1000003 + flow.index)
        self.client = None
        self.listener = None
        self.socks = set()
        self.lock = threading.Lock()
        self.stopped = False
        self.transfers = 0

    def prepare(self):
        """The receiving side, before the run starts."""
        net = self.r.net
        if not self.short:
            net.spawn("r", ["iperf3", "-s", "-B", net.addr["r"], "-p", str(self.port)],
                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            return
        self.listener = net.socket("r", socket.SOCK_STREAM)
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind((net.addr["r"], self.port))
        self.listener.listen(64)
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self):
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self.drain_conn, args=(conn,), daemon=True).start()

    @staticmethod
    def drain_conn(conn):
        try:
            while conn.recv(65536):
                pass
        except OSError:
            pass
        conn.close()

    def start(self):
        if not self.short:
            net = self.r.net
            self.client = net.spawn("s", ["iperf3", "-c", net.addr["r"], "-p", str(self.port),
                                          "-t", str(LONG_RUN_S), "-C", self.cc],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        elif self.flow.initially_on:
            self.transfer()
        else:
            self.r.after(self.rng.expovariate(1.0 / self.flow.think_mean_s), self.transfer)

    def transfer(self):
        if self.stopped:
            return
        size = self.rng.randint(self.flow.size_min, self.flow.size_max)
        sock = self.r.net.socket("s", socket.SOCK_STREAM)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, self.cc.encode())
        with self.lock:
            self.socks.add(sock)
        self.transfers += 1
        threading.Thread(target=self.send, args=(sock, size), daemon=True).start()

    def send(self, sock, size):
        try:
            sock.connect((self.r.net.addr["r"], self.port))
            sock.sendall(bytes(size))
            sock.shutdown(socket.SHUT_WR)
            while sock.recv(4096):      # the receiver closes once it has it all
                pass
        except OSError:
            pass
        with self.lock:
            self.socks.discard(sock)
        sock.close()
        think = self.rng.expovariate(1.0 / self.flow.think_mean_s)

        def next_one():             # on the main loop, which owns the timers
            self.r.after(think, self.transfer)
            return False
        rp.GLib.idle_add(next_one)

    def stop(self):
        self.stopped = True
        net = self.r.net
        if self.client is not None:
            net.cmd("s", "ss", "-K", "-t", "dst", net.addr["r"], "dport", "=", f":{self.port}",
                    check=False)
            self.client.terminate()
        with self.lock:
            socks, self.socks = list(self.socks), set()
        for sock in socks:              # a reset, not a graceful close
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def close(self):
        self.stop()
        if self.listener is not None:
            self.listener.close()


class Capture:
    """tcpdump on one router interface (both directions), headers only,
    nanosecond host timestamps (the time the router received or sent)."""

    def __init__(self, net, ifc, path):
        self.path = path
        self.err = path + ".err"
        with open(self.err, "w") as err:
            self.proc = net.spawn("b", ["tcpdump", "-Z", "root", "-i", net.ifs[ifc], "-n",
                                        "-s", "128", "-B", "8192", "--immediate-mode", "--time-stamp-precision",
                                        "nano", "-w", path, "ip"],
                                  stdout=subprocess.DEVNULL, stderr=err)

    def ready(self):
        with open(self.err) as fh:
            return "listening on" in fh.read()

    def stop(self):
        """Stops it once it has written what it was given; returns the
        packets the kernel passed its filter that it did not write."""
        if self.proc.poll() is None:
            time.sleep(0.3)
            self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        with open(self.err) as fh:
            text = fh.read()
        got = re.search(r"(\d+) packets captured", text)
        seen = re.search(r"(\d+) packets received by filter", text)
        return int(seen.group(1)) - int(got.group(1)) if got and seen else None

    def packets(self):
        """(realtime ns, src, dst, proto, ip_len, ip_id, sport, dport, seq,
        ack, flags, payload_len, udp_head) per IPv4 packet."""
        out = []
        with open(self.path, "rb") as fh:
            data = fh.read()
        if len(data) < 24:
            return out
        magic = struct.unpack("<I", data[:4])[0]
        end = "<" if magic in (0xa1b2c3d4, 0xa1b23c4d) else ">"
        nano = struct.unpack(end + "I", data[:4])[0] == 0xa1b23c4d
        off = 24
        while off + 16 <= len(data):
            sec, frac, incl, _orig = struct.unpack(end + "IIII", data[off:off + 16])
            pkt = data[off + 16:off + 16 + incl]
            off += 16 + incl
            t = sec * 1000000000 + (frac if nano else frac * 1000)
            if len(pkt) < 34 or pkt[12:14] != b"\x08\x00":
                continue
            ip = pkt[14:]
            ihl = (ip[0] & 15) * 4
            ip_len, ip_id = struct.unpack("!HH", ip[2:6])
            proto = ip[9]
            src, dst = socket.inet_ntoa(ip[12:16]), socket.inet_ntoa(ip[16:20])
            l4 = ip[ihl:]
            if proto == 6 and len(l4) >= 14:
                sport, dport, seq, ack = struct.unpack("!HHII", l4[:12])
                doff = (l4[12] >> 4) * 4
                out.append((t, src, dst, 6, ip_len, ip_id, sport, dport, seq, ack, l4[13],
                            ip_len - ihl - doff, None))
            elif proto == 17 and len(l4) >= 8:
                sport, dport = struct.unpack("!HH", l4[:4])
                out.append((t, src, dst, 17, ip_len, ip_id, sport, dport, 0, 0, 0,
                            ip_len - ihl - 8, bytes(l4[8:20])))
        return out


def match_fifo(entries, departures, key):
    """Pairs each entry with its departure, per connection in order (the
    queue is FIFO): entries that never left have None."""
    pending = collections.defaultdict(collections.deque)
    out = []
    for p in entries:
        rec = [p, None]
        out.append(rec)
        pending[key(p)].append(rec)
    for d in departures:
        q = pending.get(key(d))
        if q:
            q.popleft()[1] = d
    return out


def quantiles(xs):
    if not xs:
        return None
    xs = sorted(xs)

    def q(p):
        return round(xs[min(len(xs) - 1, int(p * len(xs)))] / 1e6, 3)
    return {"n": len(xs), "p50_ms": q(0.5), "p99_ms": q(0.99), "max_ms": round(xs[-1] / 1e6, 3)}


class Runner(rp.Timeline):
    def __init__(self, scen, net, controller, seed, urcp_names, content, flows, tcp_flows):
        super().__init__("kbench")
        self.scen = scen
        self.net = net
        self.controller = controller
        self.seed = seed
        self.urcp_names = urcp_names
        self.content = content
        self.flows = flows                 # media and CBR
        self.overhead = int(scen.link.get("overhead", IPV4_UDP))
        self.taps = []
        self.tcp = [TcpFlow(self, f, IPERF3_PORT0 + i) for i, f in enumerate(tcp_flows)]
        self.captures = []
        self.tbf_changes = []
        self.steps = []                    # capacity_steps(), from the run's start
        self.drained_ok = False
        # After the queue: the flows' delays, the scenario's noise and loss.
        after = {k: v for k, v in scen.link.items()
                 if k.startswith(("noise-", "loss-", "ge-")) or k == "overhead"}
        self.rx = make("linksim", name="rx", capacity=FAST_LINK, queue_limit_ms=0)
        rp.set_link_props(self.rx, after, seed)
        # The receivers' RTCP back to the senders: a [reverse] section's link
        # (its capacity, queue, loss episodes, noise), as in rtsim and rcsim;
        # without one an uncongested path with [link]'s overhead.
        self.back = make("linksim", name="back", capacity=FAST_LINK, queue_limit_ms=0)
        if scen.has_reverse:
            rp.set_link_props(self.back, scen.reverse, seed + 1)
        else:
            Gst.util_set_object_arg(self.back, "overhead", str(self.overhead))
        self.add(self.rx, self.back)

    # -- the bottleneck ------------------------------------------------------

    def limit_bytes(self, rate_bps):
        """tbf's limit for a time-based queue limit at rate_bps; a byte
        limit as it is; NO_LIMIT for queue-limit-ms=0."""
        link = self.scen.link
        if int(float(link.get("queue-limit-bytes", 0))) > 0:
            return int(float(link["queue-limit-bytes"]))
        ms = float(link.get("queue-limit-ms", 300))
        if ms <= 0:
            return NO_LIMIT
        return max(int(rate_bps / 8 * ms / 1000), 1600)

    def slot_ns(self, size, t_ns):
        """A packet's serialization time at the capacity in force at t_ns.
        tbf releases a packet at the start of its slot on the link (when
        its tokens are there) and the veth delivers it at once; a
        serializing link, rcsim's and docs/metrics.md's, delivers it at the
        end. Written into the log's departure and arrival, so that queueing
        delay means the same here as in rcsim (it includes the packet's own
        serialization time). 0 in an outage."""
        return rp.slot_ns(self.steps, size, t_ns, OUTAGE_BPS)

    def capacity_steps(self, duration_s):
        """[(t_s, rate_bps, limit_bytes)]: tbf's rate and queue limit from
        t_s on, for a run of duration_s. A trace-file becomes steps of
        TRACE_BIN_S (trace_steps); else the link's capacity, then its
        schedule's steps, the queue limit following the rate, in an outage
        (0 bit/s) the last rate above 0 before it, else the first after it
        (rc-link.c, limit_rate())."""
        link = self.scen.link
        if "trace-file" in link:
            return self.trace_steps(link["trace-file"], duration_s)
        steps = rp.rate_steps(link)
        out = []
        for k, (t, r) in enumerate(steps):
            lr = r
            if r <= 0:
                before = [x for _, x in steps[:k] if x > 0]
                after = [x for _, x in steps[k + 1:] if x > 0]
                lr = before[-1] if before else after[0] if after else OUTAGE_BPS
            out.append((t, r, self.limit_bytes(lr)))
        return out

    def trace_steps(self, path, duration_s):
        """A Mahimahi trace as tbf steps: over each TRACE_BIN_S from 0, the
        rate of its delivery opportunities (1500 bytes each) in that bin,
        the rate rcsim reports for a trace at the bin's start
        (rc_link_capacity_at); a time-based queue limit L is the bytes of
        the opportunities in [t, t + L), in a gap longer than L those of
        the L that ends with the last one before t (rc-link.c,
        trace_limit_bytes). The trace loops: its last entry is its period.
        tbf's own rate is constant within a bin, where the trace's
        opportunities come in bursts: what a bin's packets see inside it
        is not the trace's."""
        try:
            with open(path) as f:
                ms = [int(x) for x in f.read().split()]
        except (OSError, ValueError) as e:
            die(f"{path}: not a Mahimahi trace ({e})")
        if not ms or ms[-1] <= 0 or any(b < a for a, b in zip(ms, ms[1:])):
            die(f"{path}: a trace needs non-decreasing times (ms) and a last one above 0")
        link = self.scen.link
        limit_ms = float(link.get("queue-limit-ms", 300))
        horizon_ms = int((duration_s + TRACE_BIN_S) * 1000 + max(limit_ms, 0)) + 1
        period = ms[-1]
        opps = [k * period + m for k in range(horizon_ms // period + 1) for m in ms]

        def count(a, b):            # opportunities at times in [a, b) ms
            return bisect.bisect_left(opps, b) - bisect.bisect_left(opps, a)

        def limit_at(t):
            if int(float(link.get("queue-limit-bytes", 0))) > 0 or limit_ms <= 0:
                return self.limit_bytes(0)
            n = count(t, t + limit_ms)
            if n == 0:
                k = bisect.bisect_left(opps, t)
                o = opps[k - 1] if k > 0 else opps[0]
                n = count(max(o + 1 - limit_ms, 0), o + 1) if k > 0 else count(o, o + limit_ms)
            return max(n * TRACE_OPPORTUNITY_BYTES, 1600)

        out = []
        bin_ms = TRACE_BIN_S * 1000
        t = 0.0
        while t < duration_s * 1000:
            rate = count(t, t + bin_ms) * TRACE_OPPORTUNITY_BYTES * 8 / TRACE_BIN_S
            step = (t / 1000, rate, limit_at(t))
            if not out or out[-1][1:] != step[1:]:
                out.append(step)
            t += bin_ms
        return out

    def set_capacity(self, rate_bps, limit_bytes, verb="change"):
        # An outage (0 bit/s): tbf needs a rate above 0, and 8 bit/s passes
        # nothing in a run (one 1500-byte packet in 25 min) beyond what its
        # bucket holds (BURST).
        self.net.tbf(verb, max(rate_bps, OUTAGE_BPS), limit_bytes)
        self.tbf_changes.append({"t_s": round(self.now() / Gst.SECOND, 3),
                                 "rate_bps": int(rate_bps), "limit_bytes": int(limit_bytes)})

    # -- flows ---------------------------------------------------------------

    def udp_out(self, ns, host, port):
        """A udpsink sending from a socket of namespace ns."""
        s = self.net.socket(ns, socket.SOCK_DGRAM)
        s.bind((self.net.addr[ns], 0))
        gs = Gio.Socket.new_from_fd(s.detach())
        return make("udpsink", socket=gs, host=host, port=port, sync=False, **rp.NO_ASYNC)

    def udp_in(self, ns, caps=None):
        """A udpsrc on a socket of namespace ns; returns it and its port."""
        s = self.net.socket(ns, socket.SOCK_DGRAM)
        s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 4 << 20)
        s.bind((self.net.addr[ns], 0))
        port = s.getsockname()[1]
        gs = Gio.Socket.new_from_fd(s.detach())
        src = make("udpsrc", socket=gs)
        if caps is not None:
            src.set_property("caps", caps)
        return src, port

    def stream(self, flow, log_link, kind, rtp, src_pad, ns_from, ns_to, link, delay_ns,
               sink_pad, caps=None):
        """src_pad -> udpsink (ns_from) ~~kernel~~> udpsrc (ns_to) -> link
        (a linksim pad with delay_ns) -> sink_pad, timed by a UdpTap."""
        inp, port = self.udp_in(ns_to, caps)
        out = self.udp_out(ns_from, self.net.addr[ns_to], port)
        self.add(out, inp)
        src_pad.link(out.get_static_pad("sink"))
        lsink = link.request_pad_simple("sink_%u")
        lsrc = link.get_static_pad("src_" + lsink.get_name()[5:])
        lsink.set_property("delay", delay_ns)
        inp.get_static_pad("src").link(lsink)
        lsrc.link(sink_pad)
        tap = UdpTap(self, log_link, flow, kind, rtp)
        out.get_static_pad("sink").add_probe(Gst.PadProbeType.BUFFER, tap.on_entry)
        inp.get_static_pad("src").add_probe(Gst.PadProbeType.BUFFER, tap.on_departure)
        lsrc.add_probe(Gst.PadProbeType.BUFFER, tap.on_arrival)
        self.taps.append(tap)
        return [out, inp]

    def start_media(self, flow):
        ctrl = self.controller or flow.controller
        snd = rp.MediaSender(flow, ctrl, self.urcp_names, 0x5000 + flow.index, self.content)
        report, adapt, r3cp = rp.receiver_setup(flow, ctrl, self.scen.assisted)
        rcv = rp.MediaReceiver(report, adapt, flow.playout_latency_ms, r3cp)
        self.add(*snd.elems, *rcv.elems)
        snd.link()
        elems = snd.elems + rcv.elems
        # Media and the sender's SRs cross the bottleneck; linksim after it
        # stamps arrivals (PTS and DTS), which the receiving rtpbin takes as
        # its TWCC arrival times.
        elems += self.stream(flow, "fwd", "media", True, snd.rtpbin.get_static_pad("send_rtp_src_0"),
                             "s", "r", self.rx, flow.delay_ns,
                             rcv.rtpbin.request_pad_simple("recv_rtp_sink_0"),
                             rp.recv_rtp_caps(snd.encoding))
        elems += self.stream(flow, "fwd", "ctrl", False,
                             snd.rtpbin.request_pad_simple("send_rtcp_src_0"),
                             "s", "r", self.rx, flow.delay_ns,
                             rcv.rtpbin.request_pad_simple("recv_rtcp_sink_0"))
        # The receiver's RTCP (TWCC feedback, RRs) back, unshaped.
        elems += self.stream(flow, "rev", "ctrl", False,
                             rcv.rtpbin.request_pad_simple("send_rtcp_src_0"),
                             "r", "s", self.back, flow.return_delay_ns,
                             snd.rtpbin.request_pad_simple("recv_rtcp_sink_0"))
        rp.start_elements(elems)
        self.log_media(flow, snd.enc)

    def start_cbr(self, flow):
        cbr = rp.CbrSource(flow, 0x7000 + flow.index)
        sink = make("fakesink", sync=False, **rp.NO_ASYNC)
        self.add(*cbr.elems, sink)
        cbr.link()
        elems = cbr.elems + self.stream(flow, "fwd", "cbr", True, cbr.last.get_static_pad("src"),
                                        "s", "r", self.rx, flow.delay_ns,
                                        sink.get_static_pad("sink"),
                                        Gst.Caps.from_string("application/x-rtp"))
        rp.start_elements(elems + [sink])

    # -- the run -------------------------------------------------------------

    @staticmethod
    def line_delay_ns(tcp):
        return tcp.flow.delay_ns + tcp.flow.return_delay_ns

    def tcp_delay_line(self):
        """The TCP flows' propagation delay. No netem (nor fq or etf, which
        honour a departure time) in this kernel: a rule in the router sends
        the TCP packets that come from the receiver's side (the ACKs) to a
        TUN device, where tundelay.py holds each for its flow's delay-ms +
        return-delay-ms, the whole round trip's, and gives it back to be
        forwarded to the sender. The data packets cross the queue as
        before, and their log times are as before (departure + delay-ms)."""
        pairs = [f"{t.port}:{self.line_delay_ns(t)}" for t in self.tcp if self.line_delay_ns(t)]
        if not pairs:
            return
        net, tun = self.net, self.net.ifs["t"]
        p = net.spawn("b", [sys.executable, TUNDELAY, tun, *pairs], stdout=subprocess.PIPE,
                      text=True)
        if p.stdout.readline().strip() != "ready":
            # no TUN device here (/dev/net/tun): kernel support is missing
            skip("the TCP delay line (tundelay.py, a TUN device) did not start")
        for conf in ("all", "default", tun):   # it forwards what comes back on tun
            net.cmd("b", "sysctl", "-qw", f"net.ipv4.conf.{conf}.rp_filter=0")
        net.cmd("b", "ip", "link", "set", tun, "up")
        net.cmd("b", "ip", "route", "add", "default", "dev", tun, "table", TCP_DELAY_TABLE)
        net.cmd("b", "ip", "rule", "add", "iif", net.ifs["br"], "ipproto", "tcp",
                "lookup", TCP_DELAY_TABLE)

    def run_scenario(self, duration_s, capture):
        steps = self.steps = self.capacity_steps(duration_s)
        self.set_capacity(steps[0][1], steps[0][2], "add")
        for t, r, limit in steps[1:]:
            if t < duration_s:
                self.at(t, lambda r=r, limit=limit: self.set_capacity(r, limit))
        self.tcp_delay_line()
        for t in self.tcp:
            t.prepare()
        if capture:
            self.captures = [Capture(self.net, ifc, os.path.join(self.tmp, f"{ifc}.pcap"))
                             for ifc in ("bs", "br")]
            deadline = time.monotonic() + 10
            while not all(c.ready() for c in self.captures):
                if time.monotonic() > deadline:
                    die("tcpdump did not start")
                time.sleep(0.05)
        for f in self.flows:
            start = self.start_media if f.kind == "media" else self.start_cbr
            rp.schedule_flow(self, f, lambda f=f, s=start: s(f), lambda f=f: rp.stop_flow(f),
                             duration_s)
        for t in self.tcp:
            rp.schedule_flow(self, t.flow, t.start, t.stop, duration_s)
        self.at(duration_s, self.drain)
        self.real_off = real_to_mono_offset()
        self.run()
        self.real_off_end = real_to_mono_offset()
        # before NULL, which resets linksim's counters
        self.rx_losses = self.rx.get_property("stats").get_value("dropped-loss")
        self.base = self.pipeline.get_base_time()
        self.stop()
        if self.errors:
            die("; ".join(self.errors))

    def drain(self):
        """The end: nothing more enters (probes drop, TCP is aborted); what
        is in the queue and the linksims may still come out for DRAIN_S."""
        for tap in self.taps:
            tap.close()
        for t in self.tcp:
            t.stop()

        def drained():
            for link in (self.rx, self.back):
                s = link.get_property("stats")
                if s.get_value("packets-in") > sum(s.get_value(k) for k in (
                        "packets-out", "dropped-queue", "dropped-loss", "flushed")):
                    return False
            return self.net.tc_stats()["backlog"] == 0

        def done():
            self.drained_ok = drained()
            return self.drained_ok
        self.quit_when(done, rp.DRAIN_S)

    # -- the log -------------------------------------------------------------

    def to_running(self, t_real):
        return t_real - self.real_off - self.base

    def tcp_lines(self, duration_ns, caps):
        """TCP packets from the router's two captures: entry when the router
        received it, departure when it sent it on (after tbf for the data
        direction), matched per connection in order by (seq, ack, IP id,
        length, flags); entries that never left were dropped. Also each
        flow's measured hold in the delay line (quantiles()), from its ACKs'
        entry and departure at the router."""
        bs, br = caps
        s_addr, r_addr = self.net.addr["s"], self.net.addr["r"]
        ports = {t.port: t for t in self.tcp}
        lines, drops, after = [], collections.Counter(), collections.Counter()

        def flow_of(p):
            port = p[7] if p[1] == s_addr else p[6]
            return ports.get(port)

        def conn(p):
            return (p[6], p[7]) if p[1] == s_addr else (p[7], p[6])

        def key(p):
            return (conn(p), p[8], p[9], p[5], p[4], p[10])

        def sel(cap, src):
            return [p for p in cap if p[3] == 6 and p[1] == src and flow_of(p) is not None]

        fwd = match_fifo(sel(bs, s_addr), sel(br, s_addr), key)
        rev = match_fifo(sel(br, r_addr), sel(bs, r_addr), key)
        # iperf3's control connection: not data. Its data connection is the
        # one of its port that carried the most payload.
        payload = collections.Counter()
        for p, _ in fwd:
            payload[conn(p)] += p[11]
        data_conn = {}
        for c, n in payload.items():
            port = c[1]
            if not ports[port].short and (port not in data_conn or n > payload[data_conn[port]]):
                data_conn[port] = c
        delivered = collections.defaultdict(set)
        held = collections.defaultdict(list)
        extra = self.overhead - IPV4_UDP
        for log_link, recs in (("fwd", fwd), ("rev", rev)):
            for p, d in recs:
                entry = self.to_running(p[0])
                t = flow_of(p)
                if entry < 0 or entry >= duration_ns:
                    # the aborted connections' resets, after the end
                    after[log_link] += d is not None
                    continue
                # The arrival is written as the departure plus the flow's
                # scenario delay, which rcsim subtracts, so that its queueing
                # delay is the one measured; an ACK's departure is written
                # without its hold in the delay line (tcp_delay_line), which
                # stands for the propagation delay.
                delay = t.flow.delay_ns if log_link == "fwd" else t.flow.return_delay_ns
                c = conn(p)
                is_data = log_link == "fwd" and p[11] > 0 and (
                    t.short or data_conn.get(t.port) == c)
                kind = "tcp" if is_data else "ctrl"
                size = p[4] + extra
                if d is None:
                    fate = "drop"
                    drops[log_link] += 1
                else:
                    dep = max(self.to_running(d[0]), entry)
                    if log_link == "fwd":
                        dep += self.slot_ns(size, dep)
                    else:
                        held[t.flow.name].append(dep - entry)
                        dep = max(dep - self.line_delay_ns(t), entry)
                    seg = (c, p[8], p[11])
                    fate = "recv"
                    if is_data:
                        if seg in delivered[t.port]:
                            fate = "dup"
                        delivered[t.port].add(seg)
                    fate = f"{fate} {dep} {dep + delay}"
                lines.append((entry, f"{log_link} {t.flow.index} {kind} {size} {entry} {fate}"))
        hold = {name: quantiles(v) for name, v in held.items()}
        return lines, drops, after, hold

    def timing_check(self, caps):
        """How far the pad-probe times are from the router's capture, for
        the RTP packets: the sender's socket to the router (the entry's
        error) and tbf's exit to the receiver's udpsrc (the departure's)."""
        bs, br = caps
        s_addr = self.net.addr["s"]
        entry_cap = {(p[12]): p[0] for p in bs if p[3] == 17 and p[1] == s_addr}
        dep_cap = {(p[12]): p[0] for p in br if p[3] == 17 and p[1] == s_addr}
        send, recv = [], []
        for tap in self.taps:
            if not tap.rtp:
                continue
            for entry, _size, dep, _arr, k, _kind, _cap in tap.recs:
                if k in entry_cap:
                    send.append(self.to_running(entry_cap[k]) - entry)
                if dep is not None and k in dep_cap:
                    recv.append(dep - self.to_running(dep_cap[k]))
        return {"socket_to_router": quantiles(send), "queue_exit_to_udpsrc": quantiles(recv)}

    def write_log(self, path, duration_s):
        duration_ns = int(duration_s * Gst.SECOND)
        lines, udp = [], collections.Counter()
        over = 0
        for tap in self.taps:
            ls, n = tap.finish(self.slot_ns)
            lines += ls
            if tap.log_link == "fwd":
                udp += n
                over += sum(1 for rec in tap.recs if rec[1] > self.net.peak_mtu)
        # tbf drops what its peak bucket cannot hold: peak_mtu() must know
        # every packet the flows send
        realtime = {"over_peak_mtu": over}
        if over:
            print(f"kbench: {over} packets larger than tbf's peak bucket "
                  f"({self.net.peak_mtu} B) were dropped by it", file=sys.stderr)
        tcp_drops, tcp_after = collections.Counter(), collections.Counter()
        if self.captures:
            lost = [c.stop() for c in self.captures]
            caps = [c.packets() for c in self.captures]
            if self.tcp:
                ls, tcp_drops, tcp_after, hold = self.tcp_lines(duration_ns, caps)
                lines += ls
                realtime["tcp_delay_line"] = hold
            realtime["timing_check"] = self.timing_check(caps)
            realtime["tcpdump_dropped"] = lost
        tc = self.net.tc_stats()
        log_drops = udp["drop"] + tcp_drops["fwd"]
        departed = [ln for _, ln in lines if ln.startswith("fwd") and " drop" not in ln]
        realtime["tc_check"] = {"tc_drops": tc["drops"], "log_drops": log_drops,
                                "log_packets": len(departed),
                                "log_bytes": sum(int(ln.split()[3]) for ln in departed),
                                "udp_drops": udp["drop"], "tcp_drops": tcp_drops["fwd"],
                                "tc_packets": tc["packets"], "tc_bytes": tc["bytes"],
                                "tcp_after_end": tcp_after["fwd"],
                                "drained": self.drained_ok}
        realtime["linksim_losses"] = {"linksim": self.rx_losses, "log": udp["lost"]}
        if tc["drops"] != log_drops:
            print(f"kbench: tbf dropped {tc['drops']} packets, the log has {log_drops} drops "
                  "(a packet lost elsewhere: a socket buffer?)", file=sys.stderr)
        drift = abs(self.real_off_end - self.real_off)
        if self.captures and drift > 1000000:
            print(f"kbench: the realtime clock moved {drift / 1e6:.1f} ms against the monotonic "
                  "one during the run: TCP times are off by up to that", file=sys.stderr)
        realtime["clock_drift_ms"] = round(drift / 1e6, 3)
        rp.write_packet_log(path, f"kbench {self.scen.path}, seed {self.seed}",
                            self.skipped, lines + self.state_lines)
        return realtime


def peak_mtu(scen, media, tcp, urcp_names, controller):
    """The largest packet of the scenario's forward flows as tbf counts it
    (the scenario's `overhead` on top of the UDP payload, via the size
    table; TCP: its IP packet, on which `overhead` counts 28 bytes)."""
    overhead = int(scen.link.get("overhead", IPV4_UDP))
    sizes = [PEAK_MTU_MIN]
    for f in media:
        if f.kind == "cbr":
            # rtpL16pay's RTP header (rtpipes.CbrSource)
            sizes.append(f.packet_size + 12 + TWCC_EXT + overhead)
            continue
        size = int(float(f.keys.get("mtu", 1200))) + rp.RTP_HEADER_BYTES + TWCC_EXT
        ctrl = controller or f.controller
        if ctrl in urcp_names and f.keys.get("fec", "probe").strip().lower() != "none":
            size += ULPFEC_EXTRA          # fecenc is in the pipeline (rtpipes)
        sizes.append(size + overhead)
    if tcp:
        sizes.append(TCP_IP_MTU + overhead - IPV4_UDP)
    return max(sizes)


def not_expressed(scen, flows):
    """What in the scenario the kernel bench does not do, as it is: one
    line per [flow:NAME] section (its `count` flows alike)."""
    out = []
    if "trace-file" in scen.link:
        out.append(f"[link] trace-file: tbf follows the trace's rate in steps of "
                   f"{TRACE_BIN_S * 1000:g} ms, not its opportunities one by one")
    if scen.link.get("delivery", "end-of-slot").strip().lower() != "start-of-slot":
        out.append("[link] delivery: tbf hands each packet on at the start of its slot "
                   "(delivery=start-of-slot); a link that serializes is not emulated")
    if scen.has_reverse and any(f.kind == "tcp" for f in flows):
        out.append("[reverse]: linksim shapes the media flows' RTCP, not the TCP flows' ACKs")
    noisy = any(k.startswith(("noise-", "loss-", "ge-")) for k in scen.link)
    model = ("encoder-lag-ms", "frame-noise", "key-factor")
    seen = set()
    for f in flows:
        if f.group in seen:
            continue
        seen.add(f.group)
        g = f"[{f.group}]"
        if f.direction == "reverse":
            out.append(f"{g}: direction=reverse is not run")
            continue
        for k in ("clock-offset-ms", "clock-skew-ppm"):
            if float(f.keys.get(k, 0)) != 0:
                out.append(f"{g} {k}: both ends read one host clock")
        if f.kind == "media":
            if "app-limit" in f.keys:
                out.append(f"{g} app-limit: rcsim caps its model's rate; here the content "
                           "limits the real encoder")
            if f.keys.get("encoder", "").strip() == "synthetic":
                out.append(f"{g} encoder=synthetic: rcsim's synthetic model; here a real vp8enc"
                           + "".join(f", {k} not applied" for k in model if k in f.keys))
            fb = f.keys.get("feedback", "twcc").strip()
            if fb != "twcc":
                out.append(f"{g} feedback={fb}: the stock rtpbin receiver sends TWCC "
                           "feedback; receiver reports alone are not run")
            for k in ("feedback-interval-ms", "rtcp-interval-ms"):
                if k in f.keys:
                    out.append(f"{g} {k}: the stock rtpbin receiver's own timing")
        if f.kind == "tcp":
            if noisy:
                out.append(f"{g}: [link] noise and loss are not applied to TCP (linksim "
                           "applies them to UDP only)")
    return out


def main():
    ap = rp.argument_parser(__doc__, "linksim's and the short TCP transfers' random draws")
    ap.add_argument("--keep", default=None, metavar="DIR", help=argparse.SUPPRESS)
    args = ap.parse_args()

    if os.geteuid() != 0:
        skip("needs root (network namespaces, veth, tc)")
    for tool in ("ip", "tc", "ss"):
        if shutil.which(tool) is None:
            skip(f"'{tool}' (iproute2) is not installed")
    rcsim, scen = rp.load(args)
    flows = [f for f in scen.flows if f.direction != "reverse"]
    media = [f for f in flows if f.kind in ("media", "cbr")]
    tcp = [f for f in flows if f.kind == "tcp"]
    urcp_names = rp.urcp_controllers()
    rp.check_controllers(scen, args.controller, urcp_names, media)
    if tcp and shutil.which("tcpdump") is None:
        skip("tcpdump is not installed (it times the TCP packets)")
    if any(f.size_max == 0 for f in tcp) and shutil.which("iperf3") is None:
        skip("iperf3 is not installed (long TCP flows)")
    duration = args.duration or scen.duration_s
    missing = not_expressed(scen, scen.flows)
    for m in missing:
        print(f"kbench: not expressed: {m}", file=sys.stderr)

    def on_signal(signum, _frame):
        raise KeyboardInterrupt(signum)
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    reap_stale()
    net = Net(os.getpid(), int(scen.link.get("overhead", IPV4_UDP)),
              peak_mtu(scen, media, tcp, urcp_names, args.controller))
    tmp = tempfile.mkdtemp(prefix="kbench-")
    r = None
    try:
        net.up()
        r = Runner(scen, net, args.controller, args.seed, urcp_names, args.content, media, tcp)
        r.tmp = tmp
        r.skipped = [f for f in scen.flows if f.direction == "reverse"]
        wall0 = time.monotonic()
        r.run_scenario(duration, capture=shutil.which("tcpdump") is not None)
        wall = round(time.monotonic() - wall0, 1)
        log = args.log or os.path.join(tmp, "packets.log")
        realtime = r.write_log(log, duration)
        res = rp.rcsim_metrics(rcsim, scen, log, duration, args)
    except KeyboardInterrupt as e:
        signum = e.args[0] if e.args and isinstance(e.args[0], int) else signal.SIGINT
        print(f"kbench: interrupted by signal {signum}: cleaned up", file=sys.stderr)
        sys.exit(128 + signum)
    finally:
        if r is not None:
            r.stop()
            for t in r.tcp:
                t.close()
            for c in r.captures:
                if c.proc.poll() is None:
                    c.proc.kill()
        net.down()
        if args.keep:
            shutil.copytree(tmp, args.keep, dirs_exist_ok=True)
        shutil.rmtree(tmp, ignore_errors=True)
    realtime = dict({"mode": "kbench", "wall_s": wall, "content": args.content or "scenario",
                     "bottleneck": {"qdisc": "tbf", "burst_bytes": BURST,
                                    "size_table_overhead": net.stab,
                                    "peak_mtu": net.peak_mtu,
                                    "changes": r.tbf_changes},
                     "tcp_timing": "tcpdump on the router: entry when it received a packet, "
                                   "departure when it sent it on after tbf; arrival written as "
                                   "departure + the flow's delay-ms (the delay line adds the "
                                   "round trip's delay to the ACKs)",
                     "skipped_flows": [f.name for f in r.skipped],
                     "not_expressed": missing}, **realtime)
    if args.json:
        res["realtime"] = realtime
        print(json.dumps(res))
    else:
        print(res, end="")
        print(f"kernel bench: {wall} s wall, tc drops {realtime['tc_check']['tc_drops']} "
              f"(log {realtime['tc_check']['log_drops']})"
              + "".join(f"\nnot expressed: {m}" for m in missing))


if __name__ == "__main__":
    main()
