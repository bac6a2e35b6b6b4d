#!/usr/bin/python3
"""rtsim: the real-time counterpart of rcsim.

Reads the same scenario file and runs it with real GStreamer pipelines on
the wall clock: per media flow videotestsrc ! vp8enc ! rtpvp8pay (TWCC
extension) ! CONTROLLER ! rtpbin, sent over a real UDP socket into one shared
`linksim` bottleneck, then over UDP to a stock receiving rtpbin whose RTCP
(with TWCC feedback) comes back through a second `linksim` (the return path,
each flow with its own delay). Constant-rate UDP cross traffic goes through
the same bottleneck. It prints the same JSON as `rcsim --json`, with every
metric computed as docs/metrics.md defines it, from per-packet entry/exit
times taken at the bottleneck's pads.

    tools/rtsim/rtsim.py SCENARIO [--controller urcp|um|gcc] [--duration S]
                                  [--seed N] [--json]

`--controller gcc` uses `rtpgccbwe` from gst-plugins-rs when its plugin is
on GST_PLUGIN_PATH; the tool says so and exits with 77 (skip) if it is not.
TCP flows are not run in real time (they need a kernel path; see
docs/results.md); a scenario with TCP flows runs without them, and says so.
"""

import argparse
import json
import math
import os
import sys
import time

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstRtp", "1.0")
from gi.repository import GLib, Gst, GstRtp  # noqa: E402

TWCC_URI = "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"
SECOND = Gst.SECOND
BIN_NS = 200 * Gst.MSECOND  # bins for fairness/convergence (docs/metrics.md)
NO_ASYNC = {"async": False}  # sinks added while playing must not wait for preroll


def die(msg, code=1):
    print(f"rtsim: {msg}", file=sys.stderr)
    sys.exit(code)


def key(kf, group, name, default=None, kind=str):
    try:
        if kind is float:
            return kf.get_double(group, name)
        if kind is int:
            return kf.get_int64(group, name)
        return kf.get_string(group, name)
    except GLib.Error:
        return default


class Flow:
    def __init__(self, name, kind):
        self.name = name
        self.kind = kind
        self.controller = "urcp"
        self.start_s = 0.0
        self.stop_s = None
        self.delay_ns = 0
        self.rate_bps = 0
        self.packet_size = 1200
        self.direction = "forward"
        self.pauses = []           # (from_s, to_s)
        # measurements at the bottleneck's pads
        self.entry = {}            # RTP seq -> entry running time (ns)
        self.sent_bytes = 0
        self.recv_bytes = 0
        self.recv_packets = 0
        self.qdelays = []          # ms, per delivered packet
        self.bins_recv = {}        # bin index -> bytes delivered
        self.index = None          # linksim pad index
        self.sender = None
        self.rc = None


class Scenario:
    """The parts of a scenario file that the real-time run uses; the keys
    are those of docs/scenarios.md. The link sections' keys are linksim's
    property names, so they are handed to linksim as they are."""

    @staticmethod
    def section(kf, group):
        props = {}
        for k in kf.get_keys(group)[0]:
            props[k] = kf.get_string(group, k)
        return props

    def __init__(self, path):
        kf = GLib.KeyFile()
        try:
            kf.load_from_file(path, GLib.KeyFileFlags.NONE)
        except GLib.Error as e:
            die(f"{path}: {e.message}")
        self.path = path
        self.name = key(kf, "scenario", "name", os.path.splitext(os.path.basename(path))[0])
        self.duration_s = key(kf, "scenario", "duration", 60.0, float)
        self.link = self.section(kf, "link")
        self.reverse = self.section(kf, "reverse") if kf.has_group("reverse") else {}
        self.flows = []
        self.skipped = []
        for g in kf.get_groups()[0]:
            if not g.startswith("flow:"):
                continue
            f = Flow(g[5:], key(kf, g, "kind", "media"))
            f.controller = key(kf, g, "controller", "urcp")
            f.start_s = key(kf, g, "start", 0.0, float)
            f.stop_s = key(kf, g, "stop", None, float)
            f.delay_ns = int(key(kf, g, "delay-ms", 0.0, float) * Gst.MSECOND)
            f.rate_bps = key(kf, g, "rate", 0, int)
            f.packet_size = key(kf, g, "packet-size", 1200, int)
            f.direction = key(kf, g, "direction", "forward")
            for p in (key(kf, g, "pause", "") or "").split(","):
                if p:
                    a, b = p.split(":")
                    f.pauses.append((float(a), float(b)))
            if f.kind in ("media", "cbr"):
                self.flows.append(f)
            else:
                self.skipped.append(f)


def make(factory, **props):
    e = Gst.ElementFactory.make(factory, None)
    if e is None:
        die(f"element '{factory}' is not installed")
    for k, v in props.items():
        e.set_property(k.replace("_", "-"), v)
    return e


def set_link_props(link, props, seed):
    # The keys are linksim's properties (gst/rc-link-keys.c has the one
    # table of them) except for one scenario rule: a loss-rate without a
    # loss-model means bernoulli (tools/rcsim/scenario.c).
    if "loss-model" not in props and float(props.get("loss-rate", 0)) > 0:
        props = dict(props, **{"loss-model": "bernoulli"})
    for k, v in props.items():
        if link.find_property(k) is None:
            print(f"rtsim: linksim has no property '{k}': ignored", file=sys.stderr)
            continue
        # gst_util_set_object_arg parses strings as gst-launch would,
        # including enums by nick and 64-bit integers.
        Gst.util_set_object_arg(link, k, str(v))
    link.set_property("seed", seed)


class Runner:
    """Builds and runs one scenario on the wall clock."""

    def __init__(self, scen, controller, seed):
        self.scen = scen
        self.controller = controller
        self.seed = seed
        self.pipeline = Gst.Pipeline.new("rtsim")
        self.links = {}
        self.errors = []
        fwd = make("linksim", name="fwd")
        set_link_props(fwd, scen.link, seed)
        self.pipeline.add(fwd)
        self.links["forward"] = fwd
        if scen.reverse:
            rev = make("linksim", name="rev")
            set_link_props(rev, scen.reverse, seed + 1)
            self.pipeline.add(rev)
            self.links["reverse"] = rev
        else:
            # Feedback gets its own uncongested return path with each
            # flow's delay and [link]'s overhead, as in rcsim.
            back = make("linksim", name="back", capacity=1000000000, queue_limit_ms=0)
            if "overhead" in scen.link:
                Gst.util_set_object_arg(back, "overhead", scen.link["overhead"])
            self.pipeline.add(back)
            self.links["reverse"] = back
        self.next_ssrc = 0x5000

    # Running time on the pipeline clock: the timebase linksim runs on.
    def now(self):
        clock = self.pipeline.get_clock()
        if clock is None:
            return 0
        return clock.get_time() - self.pipeline.get_base_time()

    def add(self, *elems):
        for e in elems:
            self.pipeline.add(e)
        return elems

    def link_pads(self, link, flow, delay_ns):
        sink = link.request_pad_simple("sink_%u")
        src = link.get_static_pad("src_" + sink.get_name()[5:])
        sink.set_property("delay", delay_ns)
        return sink, src

    def measure(self, flow, link, sink, src):
        """Entry and exit times of every packet at the bottleneck's pads.
        Sizes include the link's per-packet overhead (docs/metrics.md);
        exits are binned at arrival minus the propagation delay, which is
        the departure time give or take the delay noise."""
        overhead = link.get_property("overhead")
        flow.index = int(sink.get_name()[len("sink_"):])

        def on_entry(pad, info):
            buf = info.get_buffer()
            size = buf.get_size() + overhead
            t = self.now()
            ok, rtp = GstRtp.RTPBuffer.map(buf, Gst.MapFlags.READ)
            if ok:
                seq = rtp.get_seq()
                rtp.unmap()
                flow.entry[seq] = t
            flow.sent_bytes += size
            return Gst.PadProbeReturn.OK

        def on_exit(pad, info):
            buf = info.get_buffer()
            size = buf.get_size() + overhead
            t = self.now()
            ok, rtp = GstRtp.RTPBuffer.map(buf, Gst.MapFlags.READ)
            if ok:
                seq = rtp.get_seq()
                rtp.unmap()
                t_in = flow.entry.pop(seq, None)
                if t_in is not None:
                    flow.qdelays.append(max(t - t_in - flow.delay_ns, 0) / Gst.MSECOND)
            b = max(t - flow.delay_ns, 0) // BIN_NS
            flow.recv_packets += 1
            flow.recv_bytes += size
            flow.bins_recv[b] = flow.bins_recv.get(b, 0) + size
            return Gst.PadProbeReturn.OK

        sink.add_probe(Gst.PadProbeType.BUFFER, on_entry)
        src.add_probe(Gst.PadProbeType.BUFFER, on_exit)

    def data_link(self, flow):
        if flow.direction == "reverse" and self.scen.reverse:
            return self.links["reverse"]
        return self.links["forward"]

    def feedback_link(self, flow):
        if flow.direction == "reverse" and self.scen.reverse:
            return self.links["forward"]
        return self.links["reverse"]

    def start_media(self, flow, idx):
        """Sender and receiver of one media flow, added while playing."""
        p = self.pipeline
        twcc_caps = Gst.Caps.from_string(
            f'application/x-rtp,extmap-1=(string)"{TWCC_URI}"')
        recv_caps = Gst.Caps.from_string(
            "application/x-rtp,media=video,clock-rate=90000,encoding-name=VP8,"
            f'payload=96,extmap-1=(string)"{TWCC_URI}"')
        ssrc = self.next_ssrc + idx

        # Noise so the encoder can fill any target (never app-limited).
        src = make("videotestsrc", is_live=True, pattern="snow")
        vcaps = make("capsfilter", caps=Gst.Caps.from_string(
            "video/x-raw,width=320,height=240,framerate=30/1"))
        valve = make("valve")
        enc = make("vp8enc", deadline=1)
        pay = make("rtpvp8pay", pt=96, ssrc=ssrc)
        ext = make("capsfilter", caps=twcc_caps)
        rtpbin_s = make("rtpbin")
        out = make("udpsink", host="127.0.0.1", sync=False, **NO_ASYNC)
        udp_in = make("udpsrc", port=0, caps=recv_caps)
        rtpbin_r = make("rtpbin")
        sink = make("fakesink", sync=False, **NO_ASYNC)
        elems = [src, vcaps, valve, enc, pay, ext, rtpbin_s, out, udp_in, rtpbin_r, sink]
        rc = None
        if self.controller in ("urcp", "um"):
            rc = make("urcpsender", controller=self.controller)
            elems.append(rc)
        self.add(*elems)
        flow.rc, flow.enc, flow.valve = rc, enc, valve

        Gst.Element.link_many(src, vcaps, valve, enc, pay, ext)
        if rc is not None:
            ext.link(rc)
            rc.link_pads("src", rtpbin_s, "send_rtp_sink_0")
        elif self.controller == "gcc":
            self.attach_gcc(flow, rtpbin_s, enc)
            ext.link_pads("src", rtpbin_s, "send_rtp_sink_0")
        else:
            ext.link_pads("src", rtpbin_s, "send_rtp_sink_0")
        rtpbin_s.link_pads("send_rtp_src_0", out, "sink")

        # Bind the receiving socket first (port 0 binds in READY).
        udp_in.set_state(Gst.State.READY)
        out.set_property("port", udp_in.get_property("port"))

        link = self.data_link(flow)
        data_sink, data_src = self.link_pads(link, flow, flow.delay_ns)
        udp_in.get_static_pad("src").link(data_sink)
        # linksim relays between two sockets, as it would between hosts: the
        # receiving rtpbin takes its arrival times (TWCC remote-ts) from
        # udpsrc's capture timestamps after the bottleneck.
        relay_out = make("udpsink", host="127.0.0.1", sync=False, **NO_ASYNC)
        relay_in = make("udpsrc", port=0, caps=recv_caps)
        self.add(relay_out, relay_in)
        elems += [relay_out, relay_in]
        relay_in.set_state(Gst.State.READY)
        relay_out.set_property("port", relay_in.get_property("port"))
        data_src.link(relay_out.get_static_pad("sink"))
        relay_in.get_static_pad("src").link(rtpbin_r.request_pad_simple("recv_rtp_sink_0"))
        self.measure(flow, link, data_sink, data_src)

        def on_pad(rtpbin, pad):
            if pad.get_name().startswith("recv_rtp_src_"):
                pad.link(sink.get_static_pad("sink"))
        rtpbin_r.connect("pad-added", on_pad)

        # The receiver's RTCP (TWCC feedback, RRs) over the return path;
        # the sender's SRs go straight across (they carry no congestion
        # signal and rcsim does not model them either).
        fb_sink, fb_src = self.link_pads(self.feedback_link(flow), flow, flow.delay_ns)
        rtpbin_r.request_pad_simple("send_rtcp_src_0").link(fb_sink)
        fb_src.link(rtpbin_s.request_pad_simple("recv_rtcp_sink_0"))
        # Over UDP too: a direct link would close a loop in the element graph.
        sr_out = make("udpsink", host="127.0.0.1", sync=False, **NO_ASYNC)
        sr_in = make("udpsrc", port=0)
        self.add(sr_out, sr_in)
        elems += [sr_out, sr_in]
        sr_in.set_state(Gst.State.READY)
        sr_out.set_property("port", sr_in.get_property("port"))
        rtpbin_s.request_pad_simple("send_rtcp_src_0").link(sr_out.get_static_pad("sink"))
        sr_in.get_static_pad("src").link(rtpbin_r.request_pad_simple("recv_rtcp_sink_0"))

        for e in elems:
            e.sync_state_with_parent()
        flow.sender = src

    def start_cbr(self, flow, idx):
        """Constant-rate UDP cross traffic as RTP (so each packet has a
        sequence number to time it by): L16 silence at the sample rate that
        gives the scenario's rate with packet-size payloads."""
        payload = flow.packet_size
        rate = max(int(flow.rate_bps / 16), 1)
        spb = max(payload // 2, 1)
        src = make("audiotestsrc", is_live=True, wave="silence", samplesperbuffer=spb)
        caps = make("capsfilter", caps=Gst.Caps.from_string(
            f"audio/x-raw,format=S16BE,layout=interleaved,rate={rate},channels=1"))
        pay = make("rtpL16pay", mtu=payload + 12 + 100, ssrc=0x7000 + idx)
        out = make("udpsink", host="127.0.0.1", sync=False, **NO_ASYNC)
        udp_in = make("udpsrc", port=0, caps=Gst.Caps.from_string("application/x-rtp"))
        sink = make("fakesink", sync=False, **NO_ASYNC)
        elems = [src, caps, pay, out, udp_in, sink]
        self.add(*elems)
        Gst.Element.link_many(src, caps, pay, out)
        udp_in.set_state(Gst.State.READY)
        out.set_property("port", udp_in.get_property("port"))
        link = self.data_link(flow)
        data_sink, data_src = self.link_pads(link, flow, flow.delay_ns)
        udp_in.get_static_pad("src").link(data_sink)
        data_src.link(sink.get_static_pad("sink"))
        self.measure(flow, link, data_sink, data_src)
        for e in elems:
            e.sync_state_with_parent()
        flow.sender = src

    def attach_gcc(self, flow, rtpbin_s, enc):
        """rtpgccbwe (gst-plugins-rs) as rtpbin aux sender; its
        estimated-bitrate drives the encoder as webrtcsink does."""
        def aux(rtpbin, session):
            b = Gst.Bin.new(None)
            gcc = make("rtpgccbwe")
            b.add(gcc)
            b.add_pad(Gst.GhostPad.new(f"sink_{session}", gcc.get_static_pad("sink")))
            b.add_pad(Gst.GhostPad.new(f"src_{session}", gcc.get_static_pad("src")))

            def on_rate(g, _p):
                enc.set_property("target-bitrate", g.get_property("estimated-bitrate"))
            gcc.connect("notify::estimated-bitrate", on_rate)
            flow.rc = gcc
            return b
        rtpbin_s.connect("request-aux-sender", aux)

    def stop_flow(self, flow):
        if flow.sender is not None:
            flow.sender.send_event(Gst.Event.new_eos())

    def run(self, duration_s):
        loop = GLib.MainLoop()
        bus = self.pipeline.get_bus()
        bus.add_signal_watch()

        def on_msg(_bus, msg):
            if msg.type == Gst.MessageType.ERROR:
                err, dbg = msg.parse_error()
                self.errors.append(f"{msg.src.get_name()}: {err.message}")
                loop.quit()
            elif msg.type == Gst.MessageType.WARNING:
                err, _ = msg.parse_warning()
                print(f"rtsim: warning from {msg.src.get_name()}: {err.message}",
                      file=sys.stderr)
        bus.connect("message", on_msg)

        if self.pipeline.set_state(Gst.State.PLAYING) == Gst.StateChangeReturn.FAILURE:
            die("the pipeline did not start (linksim rejects the scenario's link?)")
        t0 = time.monotonic()
        # Events as wall-clock offsets from now; the pipeline clock is the
        # system clock, so they agree with linksim's running time.
        events = []
        for i, f in enumerate(self.scen.flows):
            start = self.start_media if f.kind == "media" else self.start_cbr
            events.append((f.start_s, lambda f=f, i=i, s=start: s(f, i)))
            stop = f.stop_s if f.stop_s is not None else duration_s
            if stop < duration_s:
                events.append((stop, lambda f=f: self.stop_flow(f)))
            for a, b in f.pauses:
                events.append((a, lambda f=f: f.valve and f.valve.set_property("drop", True)))
                events.append((b, lambda f=f: f.valve and f.valve.set_property("drop", False)))
        events.append((duration_s, loop.quit))
        for at, fn in sorted(events, key=lambda e: e[0]):
            def fire(fn=fn):
                fn()
                return False
            GLib.timeout_add(max(int((at - (time.monotonic() - t0)) * 1000), 0), fire)
        loop.run()
        self.stats = {name: l.get_property("stats") for name, l in self.links.items()}
        self.pipeline.set_state(Gst.State.NULL)
        if self.errors:
            die("; ".join(self.errors))


def capacity_fn(link_props):
    """bit/s at time t (s), as linksim's model has it (trace: mean rate)."""
    base = float(link_props.get("capacity", 1000000))
    if "trace-file" in link_props:
        with open(link_props["trace-file"]) as fh:
            ms = [int(x) for x in fh.read().split()]
        mean = len(ms) * 1500 * 8 / (ms[-1] / 1000.0)
        return lambda t: mean
    steps = []
    for item in filter(None, link_props.get("schedule", "").split(",")):
        a, b = item.split(":")
        steps.append((float(a), float(b)))

    def cap(t):
        c = base
        for at, bps in steps:
            if t >= at:
                c = bps
        return c
    return cap


def percentiles(samples):
    if not samples:
        return {"mean": None, "p50": None, "p95": None, "max": None}
    s = sorted(samples)

    def rank(p):  # nearest rank, as docs/metrics.md
        return s[max(math.ceil(p / 100.0 * len(s)) - 1, 0)]
    return {"mean": round(sum(s) / len(s), 1), "p50": round(rank(50), 1),
            "p95": round(rank(95), 1), "max": round(s[-1], 1)}


def fair_shares(cap_bps, demands):
    """Max-min (water-filling) shares of cap among {flow: demand}."""
    shares, left, todo = {}, cap_bps, dict(demands)
    while todo:
        equal = left / len(todo)
        small = {f: d for f, d in todo.items() if d < equal}
        if not small:
            for f in todo:
                shares[f] = equal
            break
        for f, d in small.items():
            shares[f] = d
            left -= d
            del todo[f]
    return shares


def metrics(runner, scen, duration_s, max_bitrate):
    flows = scen.flows
    nbins = int(duration_s * SECOND // BIN_NS)
    bin_s = BIN_NS / SECOND
    cap = capacity_fn(scen.link)

    def active(f, b):
        t = b * bin_s
        stop = f.stop_s if f.stop_s is not None else duration_s
        if not (f.start_s <= t < stop):
            return False
        return not any(a <= t < z for a, z in f.pauses)

    fwd = [f for f in flows if not (f.direction == "reverse" and scen.reverse)]
    # Per-bin fair share on the forward link.
    share = {f: [0.0] * nbins for f in fwd}
    for b in range(nbins):
        dem = {f: (f.rate_bps if f.kind == "cbr" else max_bitrate)
               for f in fwd if active(f, b)}
        c = sum(cap((b + k / 10.0) * bin_s) for k in range(10)) / 10.0
        for f, s in fair_shares(c, dem).items():
            share[f][b] = s

    out_flows = []
    fstats = {}
    for name, st in runner.stats.items():
        arr = st.get_value("flows")
        for i in range(len(arr)):
            fs = arr[i]
            fstats[(name, fs.get_value("id"))] = fs
    for i, f in enumerate(flows):
        stop = min(f.stop_s if f.stop_s is not None else duration_s, duration_s)
        act = max(stop - f.start_s, 1e-9)
        link = "reverse" if (f.direction == "reverse" and scen.reverse) else "forward"
        fs = fstats.get((link, f.index))
        dq = fs.get_value("dropped-queue") if fs else 0
        dl = fs.get_value("dropped-loss") if fs else 0
        delivered = fs.get_value("packets-out") if fs else f.recv_packets
        known = delivered + dq + dl
        loss = (dq + dl) / known if known else 0.0
        conv = None
        if f.kind == "media" and f in share:
            first = int(f.start_s / bin_s)
            run = 0
            for b in range(first, nbins):
                if not active(f, b):
                    continue
                lo = max(first, b - 4)
                avg = sum(f.bins_recv.get(k, 0) for k in range(lo, b + 1)) * 8 / \
                    ((b + 1 - lo) * bin_s)
                if share[f][b] > 0 and avg >= 0.8 * share[f][b]:
                    run += 1
                    if run == 25:
                        start_bin = b - 24
                        conv = round((start_bin + 1) * bin_s - f.start_s, 3)
                        break
                else:
                    run = 0
        out_flows.append({
            "id": i, "name": f.name, "kind": f.kind,
            "controller": runner.controller if f.kind == "media" else "none",
            "direction": f.direction,
            "start_s": round(f.start_s, 3), "stop_s": round(stop, 3),
            "goodput_kbps": round(f.recv_bytes * 8 / act / 1000, 1),
            "send_kbps": round(f.sent_bytes * 8 / act / 1000, 1),
            "fec_kbps": 0.0,
            "qdelay_ms": percentiles(f.qdelays),
            "loss_pre": round(loss, 6), "loss_post": round(loss, 6),
            "convergence_s": conv,
        })

    starts = [f.start_s for f in fwd]
    stops = [min(f.stop_s if f.stop_s is not None else duration_s, duration_s) for f in fwd]
    t0, t1 = (min(starts), max(stops)) if fwd else (0, duration_s)
    b0, b1 = int(t0 / bin_s), int(t1 / bin_s)
    sent = sum(f.bins_recv.get(b, 0) for f in fwd for b in range(b0, b1)) * 8
    capint = sum(cap((b + 0.5) * bin_s) * bin_s for b in range(b0, b1))
    allq = [q for f in fwd for q in f.qdelays]

    media = [f for f in fwd if f.kind == "media"]
    jain = mm = None
    if len(media) >= 2:
        both = [b for b in range(nbins) if all(active(f, b) for f in media)]
        if both:
            x = [sum(f.bins_recv.get(b, 0) for b in both) for f in media]
            if sum(xx * xx for xx in x) > 0:
                jain = round(sum(x) ** 2 / (len(x) * sum(xx * xx for xx in x)), 4)
                mm = round(min(x) / max(x), 4) if max(x) > 0 else None
    return {
        "scenario": scen.name, "seed": runner.seed, "duration_s": round(duration_s, 3),
        "link": {"utilization": round(sent / capint, 4) if capint else None,
                 "qdelay_ms": percentiles(allq)},
        "fairness": {"jain": jain, "min_max_ratio": mm},
        "flows": out_flows,
        "realtime": {"mode": "rtsim", "skipped_flows": [f.name for f in scen.skipped]},
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("scenario")
    ap.add_argument("--controller", default=None, help="urcp (default), um, gcc")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--duration", type=float, default=None)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--max-bitrate", type=int, default=20000000,
                    help="media demand for the fair share (urcpsender's default max)")
    args = ap.parse_args()

    Gst.init(None)
    scen = Scenario(args.scenario)
    controller = args.controller or (scen.flows[0].controller if scen.flows else "urcp")
    if controller == "gcc" and Gst.ElementFactory.find("rtpgccbwe") is None:
        print("rtsim: rtpgccbwe (gst-plugins-rs) is not installed: skipped", file=sys.stderr)
        sys.exit(77)
    if controller not in ("urcp", "um", "gcc", "none"):
        die(f"unknown controller '{controller}' (urcp, um, gcc, none)")
    if Gst.ElementFactory.find("linksim") is None:
        die("linksim not found: set GST_PLUGIN_PATH to the build's gst/ directory")
    duration = args.duration or scen.duration_s
    if scen.skipped:
        print("rtsim: not run in real time (TCP needs a kernel path): " +
              ", ".join(f.name for f in scen.skipped), file=sys.stderr)

    r = Runner(scen, controller, args.seed)
    wall0 = time.monotonic()
    r.run(duration)
    res = metrics(r, scen, duration, args.max_bitrate)
    res["realtime"]["wall_s"] = round(time.monotonic() - wall0, 1)
    if args.json:
        print(json.dumps(res))
    else:
        print(f"{res['scenario']} ({controller}, real time {duration:.0f} s): "
              f"utilization {res['link']['utilization']}, "
              f"qdelay mean {res['link']['qdelay_ms']['mean']} ms p95 "
              f"{res['link']['qdelay_ms']['p95']} ms, Jain {res['fairness']['jain']}")
        for f in res["flows"]:
            print(f"  {f['id']} {f['name']:12s} {f['kind']:5s} goodput {f['goodput_kbps']:8.1f} "
                  f"kbit/s  qdelay mean {f['qdelay_ms']['mean']} ms  loss {f['loss_pre']:.4f}  "
                  f"convergence {f['convergence_s']}")


if __name__ == "__main__":
    main()
