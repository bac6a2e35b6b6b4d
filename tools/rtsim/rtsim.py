#!/usr/bin/python3
"""rtsim: the real-time counterpart of rcsim.

Reads the same scenario file and runs it with real GStreamer pipelines on
the wall clock: per media flow videotestsrc ! vp8enc ! rtpvp8pay (TWCC
extension) ! CONTROLLER ! rtpbin, sent over a real UDP socket into one shared
`linksim` bottleneck, then over UDP to a stock receiving rtpbin whose RTCP
(with TWCC feedback) comes back through a second `linksim` (the return path,
each flow with its own delay). Constant-rate UDP cross traffic goes through
the same bottleneck. It does not compute any metric itself: it logs every
packet at the links' pads (entry and exit running time, size on the wire)
in rcsim's packet log format, runs `rcsim SCENARIO --from-log LOG`, which
computes every metric of docs/metrics.md with the code it uses for its own
simulations, and prints rcsim's JSON (or table) with a `realtime` block.

    tools/rtsim/rtsim.py SCENARIO [--controller NAME] [--duration S]
                                  [--seed N] [--json] [--csv DIR]
                                  [--rcsim PATH] [--log FILE]

NAME is any of urcpsender's controllers (its `controller` enum, built from
the controller registry), `gcc` (`rtpgccbwe` from gst-plugins-rs; the tool
exits with 77, skip, if its plugin is not on GST_PLUGIN_PATH) or `none`;
default: each media flow's `controller` key. TCP flows are not run in real
time (they need a kernel path; see docs/results.md); a scenario with TCP
flows runs without them, and says so.
"""

import argparse
import collections
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

import gi

gi.require_version("Gst", "1.0")
from gi.repository import GLib, Gst  # noqa: E402

TWCC_URI = "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"
NO_ASYNC = {"async": False}  # sinks added while playing must not wait for preroll
# After the run, packets still in the links may come out this long (rcsim's
# DRAIN, tools/rcsim/sim.c), so that their fate is known.
DRAIN_S = 5.0


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
    def __init__(self, index, name, kind):
        self.index = index         # in the scenario's flow order (rcsim's id)
        self.name = name
        self.kind = kind
        self.controller = "urcp"
        self.keys = {}             # the flow's section, for urcpsender
        self.start_s = 0.0
        self.stop_s = None
        self.delay_ns = 0
        self.return_delay_ns = 0
        self.rate_bps = 0
        self.packet_size = 1200
        self.direction = "forward"
        self.pauses = []           # (from_s, to_s)
        self.sender = None
        self.rc = None
        self.valve = None


class Scenario:
    """The parts of a scenario file that the real-time run uses; the keys
    and their defaults are those of docs/scenarios.md (tools/rcsim/
    scenario.c), flows in file order with `count` expanded, so that flow
    indices are rcsim's. The link sections' keys are linksim's property
    names, so they are handed to linksim as they are."""

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
        # Relative trace files are next to the scenario, as rcsim reads them.
        for props in (self.link, self.reverse):
            if "trace-file" in props:
                props["trace-file"] = os.path.join(os.path.dirname(path), props["trace-file"])
        link_delay_ms = float(self.link.get("delay", 0)) / Gst.MSECOND
        self.flows = []
        for g in kf.get_groups()[0]:
            if not g.startswith("flow:"):
                continue
            count = int(key(kf, g, "count", 1.0, float))
            for i in range(count):
                name = g[5:] if count == 1 else f"{g[5:]}-{i + 1}"
                self.flows.append(self.flow(kf, g, len(self.flows), name, link_delay_ms))
        self.run = [f for f in self.flows if f.kind in ("media", "cbr")]
        self.skipped = [f for f in self.flows if f.kind not in ("media", "cbr")]

    @staticmethod
    def flow(kf, g, index, name, link_delay_ms):
        f = Flow(index, name, key(kf, g, "kind", "media").lower())
        f.controller = key(kf, g, "controller", "urcp").strip()
        f.start_s = key(kf, g, "start", 0.0, float)
        f.stop_s = key(kf, g, "stop", None, float)
        delay_ms = key(kf, g, "delay-ms", link_delay_ms, float)
        f.delay_ns = int(round(delay_ms * Gst.MSECOND))
        f.return_delay_ns = int(round(key(kf, g, "return-delay-ms", delay_ms, float) * Gst.MSECOND))
        f.rate_bps = key(kf, g, "rate", 0, int)
        f.packet_size = key(kf, g, "packet-size", 1200, int)
        f.direction = key(kf, g, "direction", "forward").lower()
        for p in (key(kf, g, "pause", "") or "").split(","):
            if p:
                a, b = p.split(":")
                f.pauses.append((float(a), float(b)))
        f.keys = {k: kf.get_string(g, k).strip() for k in kf.get_keys(g)[0]}
        return f


# Scenario keys that are urcpsender properties of the same name, besides
# the controllers' own "<controller>-<parameter>" keys.
SENDER_KEYS = ("min-bitrate", "start-bitrate", "max-bitrate")


def sender_props(flow, ctrl):
    """The flow's keys that are urcpsender properties of the same name (and
    unit): its controller's parameters and its bitrate limits
    (docs/scenarios.md)."""
    return {k: v for k, v in flow.keys.items() if k in SENDER_KEYS or k.startswith(ctrl + "-")}


def urcp_controllers():
    """The nicks of urcpsender's `controller` enum, which the element builds
    from the controller registry (gst/rc-controller.c); [] without it."""
    e = Gst.ElementFactory.make("urcpsender", None)
    if e is None:
        return []
    values = e.find_property("controller").enum_class.__enum_values__
    return [values[v].value_nick for v in sorted(values)]


def find_rcsim(path):
    """--rcsim, else the build's rcsim next to the plugin on
    GST_PLUGIN_PATH (BUILD/gst -> BUILD/tools/rcsim/rcsim), else PATH's."""
    if path:
        return path
    dirs = []
    for var in ("GST_PLUGIN_PATH_1_0", "GST_PLUGIN_PATH"):
        dirs += [d for d in os.environ.get(var, "").split(os.pathsep) if d]
    for d in dirs:
        cand = os.path.normpath(os.path.join(d, os.pardir, "tools", "rcsim", "rcsim"))
        if os.access(cand, os.X_OK):
            return cand
    return shutil.which("rcsim")


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


class Tap:
    """One flow's packets through one pair of linksim pads: entry and exit
    running times and sizes on the wire, for the packet log. A packet is
    known by its bytes (RTCP has no sequence number); linksim never
    reorders a flow's packets, so one that has not come out when a later
    one does was dropped or lost there."""

    def __init__(self, runner, link, flow, kind, sink, src):
        self.runner = runner
        self.log_link = "fwd" if link is runner.links["forward"] else "rev"
        self.flow = flow
        self.kind = kind                     # media, cbr or ctrl
        self.pad = int(sink.get_name()[len("sink_"):])
        self.overhead = link.get_property("overhead")
        self.lock = threading.Lock()         # the two pads' threads
        self.pending = collections.deque()   # (bytes, entry ns, size)
        self.records = []                    # (entry ns, log line fields)
        self.gone = []                       # (entry ns, size): never came out
        self.closed = False                  # the run is over: no entries
        self.frozen = False                  # the log is written: no exits
        sink.add_probe(Gst.PadProbeType.BUFFER, self.on_entry)
        src.add_probe(Gst.PadProbeType.BUFFER, self.on_exit)

    def on_entry(self, pad, info):
        buf = info.get_buffer()
        t = self.runner.now()
        data = buf.extract_dup(0, buf.get_size())
        with self.lock:
            if self.closed:
                return Gst.PadProbeReturn.DROP
            self.pending.append((data, t, len(data) + self.overhead))
        return Gst.PadProbeReturn.OK

    def close(self):
        with self.lock:
            self.closed = True

    def on_exit(self, pad, info):
        buf = info.get_buffer()
        # linksim stamps the arrival running time (its `timestamp`).
        arrival = buf.pts if buf.pts != Gst.CLOCK_TIME_NONE else self.runner.now()
        data = buf.extract_dup(0, buf.get_size())
        with self.lock:
            if self.frozen:
                return Gst.PadProbeReturn.OK
            for i, entry in enumerate(self.pending):
                if entry[0] == data:
                    break
            else:
                return Gst.PadProbeReturn.OK
            for _ in range(i):
                _, t, size = self.pending.popleft()
                self.gone.append((t, size))
            _, t, size = self.pending.popleft()
            # The departure is not seen at the pads: '-' (arrival minus
            # the propagation delay stands in).
            self.records.append((t, f"{size} {t} recv - {max(arrival, t)}"))
        return Gst.PadProbeReturn.OK

    def finish(self, stats):
        """Stops recording; with linksim's counters for this pad, the
        packets still in the link (none once it has drained) are `pending`
        and the others that never came out are drops. Returns (did not come
        out, linksim's drops)."""
        with self.lock:
            self.closed = self.frozen = True
        fs = stats.get((self.log_link, self.pad))
        get = (lambda k: fs.get_value(k)) if fs else (lambda k: 0)
        dq, dl = get("dropped-queue"), get("dropped-loss")
        in_flight = max(get("packets-in") - get("packets-out") - dq - dl - get("flushed"), 0)
        rest = [(t, size) for _, t, size in self.pending]
        n_pending = min(in_flight, len(rest))
        gone = self.gone + rest[:len(rest) - n_pending]
        # linksim counts tail drops and losses after the queue, but the pads
        # do not show which packet was which: exact when only one happened,
        # otherwise all are written as tail drops.
        fate = "lost -" if dq == 0 and dl > 0 else "drop"
        self.records += [(t, f"{size} {t} {fate}") for t, size in gone]
        self.records += [(t, f"{size} {t} pending") for t, size in rest[len(rest) - n_pending:]]
        return len(gone), dq + dl

    def lines(self):
        return [(t, f"{self.log_link} {self.flow.index} {self.kind} {rest}")
                for t, rest in self.records]


class Runner:
    """Builds and runs one scenario on the wall clock."""

    def __init__(self, scen, controller, seed, urcp_names):
        self.scen = scen
        self.controller = controller       # None: each flow's own
        self.urcp_names = urcp_names
        self.seed = seed
        self.pipeline = Gst.Pipeline.new("rtsim")
        self.links = {}
        self.taps = []
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

    def controller_of(self, flow):
        return self.controller or flow.controller

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

    def tap(self, flow, link, kind, sink, src):
        tap = Tap(self, link, flow, kind, sink, src)
        self.taps.append(tap)

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
        ctrl = self.controller_of(flow)
        if ctrl in self.urcp_names:
            rc = make("urcpsender")
            Gst.util_set_object_arg(rc, "controller", ctrl)
            for k, v in sender_props(flow, ctrl).items():
                Gst.util_set_object_arg(rc, k, v)
            elems.append(rc)
        self.add(*elems)
        flow.rc, flow.enc, flow.valve = rc, enc, valve

        Gst.Element.link_many(src, vcaps, valve, enc, pay, ext)
        if rc is not None:
            ext.link(rc)
            rc.link_pads("src", rtpbin_s, "send_rtp_sink_0")
        elif ctrl == "gcc":
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
        self.tap(flow, link, "media", data_sink, data_src)

        def on_pad(rtpbin, pad):
            if pad.get_name().startswith("recv_rtp_src_"):
                pad.link(sink.get_static_pad("sink"))
        rtpbin_r.connect("pad-added", on_pad)

        # The receiver's RTCP (TWCC feedback, RRs) over the return path;
        # the sender's SRs over the data path, as in rcsim.
        fb_link = self.feedback_link(flow)
        fb_sink, fb_src = self.link_pads(fb_link, flow, flow.return_delay_ns)
        self.tap(flow, fb_link, "ctrl", fb_sink, fb_src)
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
        sr_sink, sr_src = self.link_pads(link, flow, flow.delay_ns)
        self.tap(flow, link, "ctrl", sr_sink, sr_src)
        sr_in.get_static_pad("src").link(sr_sink)
        sr_src.link(rtpbin_r.request_pad_simple("recv_rtcp_sink_0"))

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
        self.tap(flow, link, "cbr", data_sink, data_src)
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
        for f in self.scen.run:
            start = self.start_media if f.kind == "media" else self.start_cbr
            events.append((f.start_s, lambda f=f, s=start: s(f, f.index)))
            stop = f.stop_s if f.stop_s is not None else duration_s
            if stop < duration_s:
                events.append((stop, lambda f=f: self.stop_flow(f)))
            for a, b in f.pauses:
                events.append((a, lambda f=f: f.valve and f.valve.set_property("drop", True)))
                events.append((b, lambda f=f: f.valve and f.valve.set_property("drop", False)))
        events.append((duration_s, lambda: self.drain(loop)))
        for at, fn in sorted(events, key=lambda e: e[0]):
            def fire(fn=fn):
                fn()
                return False
            GLib.timeout_add(max(int((at - (time.monotonic() - t0)) * 1000), 0), fire)
        loop.run()
        self.check = self.finish_taps()
        self.pipeline.set_state(Gst.State.NULL)
        if self.errors:
            die("; ".join(self.errors))

    def drain(self, loop):
        """The end of the run: nothing enters the links any more, and what
        is in them may still come out for DRAIN_S, as in rcsim (its fate
        counts), before the loop stops."""
        for tap in self.taps:
            tap.close()
        deadline = time.monotonic() + DRAIN_S

        def poll():
            if self.drained() or time.monotonic() > deadline:
                loop.quit()
                return False
            return True
        GLib.timeout_add(20, poll)

    def drained(self):
        for link in self.links.values():
            arr = link.get_property("stats").get_value("flows")
            for i in range(len(arr)):
                n = [arr[i].get_value(k) for k in ("packets-in", "packets-out", "dropped-queue",
                                                   "dropped-loss", "flushed")]
                if n[0] > sum(n[1:]):
                    return False
        return True

    def finish_taps(self):
        """Settles every packet that did not come out of linksim; returns the
        per-flow count check against linksim's stats."""
        stats = {}
        for name, link in self.links.items():
            arr = link.get_property("stats").get_value("flows")
            log_link = "fwd" if name == "forward" else "rev"
            for i in range(len(arr)):
                stats[(log_link, arr[i].get_value("id"))] = arr[i]
        check = []
        for tap in self.taps:
            gone, drops = tap.finish(stats)
            check.append({"link": tap.log_link, "flow": tap.flow.index, "kind": tap.kind,
                          "not_out": gone, "linksim_drops": drops})
            if gone != drops:
                print(f"rtsim: {tap.log_link} {tap.flow.name} ({tap.kind}): {gone} packets did "
                      f"not come out of linksim, whose stats count {drops} drops",
                      file=sys.stderr)
        return check

    def write_log(self, path):
        """The packet log (docs/metrics.md, "Packet log"), by entry time."""
        lines = sorted(line for tap in self.taps for line in tap.lines())
        with open(path, "w") as fh:
            fh.write(f"rcsim-log 1\n# rtsim {self.scen.path}, seed {self.seed}\n")
            for f in self.scen.skipped:
                fh.write(f"skip {f.index}\n")
            for _, line in lines:
                fh.write(line + "\n")


def rcsim_metrics(rcsim, scen, log, duration, args):
    """rcsim's metrics of the log: its JSON object, or its table."""
    cmd = [rcsim, scen.path, "--from-log", log, "--duration", repr(duration),
           "--seed", str(args.seed)]
    if args.controller:
        cmd += ["--controller", args.controller]
    if args.csv:
        cmd += ["--csv", args.csv]
    if args.json:
        cmd.append("--json")
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        die(f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr.strip()}")
    return json.loads(p.stdout) if args.json else p.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("scenario")
    ap.add_argument("--controller", default=None,
                    help="every media flow's controller: urcpsender's (urcp, um, ...), gcc "
                         "or none (default: each flow's `controller`)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--duration", type=float, default=None)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--csv", default=None, metavar="DIR",
                    help="rcsim's 200 ms time series of the run (docs/metrics.md)")
    ap.add_argument("--rcsim", default=None, metavar="PATH",
                    help="the rcsim that computes the metrics (default: the build's "
                         "tools/rcsim/rcsim next to the plugin on GST_PLUGIN_PATH, else PATH's)")
    ap.add_argument("--log", default=None, metavar="FILE",
                    help="keep the packet log here (default: a temporary file)")
    args = ap.parse_args()

    Gst.init(None)
    if Gst.ElementFactory.find("linksim") is None:
        die("linksim not found: set GST_PLUGIN_PATH to the build's gst/ directory")
    rcsim = find_rcsim(args.rcsim)
    if not rcsim or not os.access(rcsim, os.X_OK):
        die(f"rcsim not found{': ' + rcsim if rcsim else ''}: pass --rcsim PATH "
            "(the build's tools/rcsim/rcsim)")
    scen = Scenario(args.scenario)
    urcp_names = urcp_controllers()
    known = urcp_names + ["gcc", "none"]
    used = {args.controller} if args.controller else \
        {f.controller for f in scen.run if f.kind == "media"}
    for c in sorted(used):
        if c not in known:
            die(f"unknown controller '{c}' ({', '.join(known)})")
    for f in scen.run:
        ctrl = args.controller or f.controller
        if f.kind == "media" and ctrl in urcp_names:
            probe = make("urcpsender")
            for k in sender_props(f, ctrl):
                if probe.find_property(k) is None:
                    die(f"[flow:{f.name}] {k}: urcpsender has no such property")
    if "gcc" in used and Gst.ElementFactory.find("rtpgccbwe") is None:
        print("rtsim: rtpgccbwe (gst-plugins-rs) is not installed: skipped", file=sys.stderr)
        sys.exit(77)
    duration = args.duration or scen.duration_s
    if scen.skipped:
        print("rtsim: not run in real time (TCP needs a kernel path): " +
              ", ".join(f.name for f in scen.skipped), file=sys.stderr)

    r = Runner(scen, args.controller, args.seed, urcp_names)
    wall0 = time.monotonic()
    r.run(duration)
    wall = round(time.monotonic() - wall0, 1)
    log = args.log
    if not log:
        fd, log = tempfile.mkstemp(prefix="rtsim-", suffix=".log")
        os.close(fd)
    try:
        r.write_log(log)
        res = rcsim_metrics(rcsim, scen, log, duration, args)
    finally:
        if not args.log:
            os.unlink(log)
    realtime = {"mode": "rtsim", "skipped_flows": [f.name for f in scen.skipped],
                "wall_s": wall, "linksim_check": r.check}
    if args.json:
        res["realtime"] = realtime
        print(json.dumps(res))
    else:
        print(res, end="")
        print(f"real time: {wall} s wall" + (", not run: " + ", ".join(realtime["skipped_flows"])
                                              if scen.skipped else ""))


if __name__ == "__main__":
    main()
