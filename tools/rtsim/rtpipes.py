"""What the real-time runners share: tools/rtsim/rtsim.py (linksim as the
bottleneck) and tools/kbench/kbench.py (a kernel tbf queue between network
namespaces) read the same scenario files, build the same media and CBR
pipelines with the same controllers, and hand their packet logs to the same
`rcsim --from-log`. Only where the packets go and where they are timed
differs, and that stays in each runner.

    media sender:  videotestsrc ! capsfilter ! valve ! ENCODER ! PAYLOADER
                   ! capsfilter (TWCC extmap) [! fecenc] ! CONTROLLER
                   ! rtpbin.send_rtp_sink_0
    receiver:      rtpbin (stock: sends TWCC feedback) ! fakesink (one per
                   stream: media, and repair packets if any)
    CBR source:    audiotestsrc (silence, L16) ! capsfilter ! rtpL16pay

With urcpsender, fecenc (repair packets of payload type FEC_PT) sends repair
packets at the rate the controller asks for, else at the flow's `fec`
overhead (default `probe`: none; `none`: no fecenc), as rcsim models; the
runners log them as `fec` (packet_kind). CONTROLLER is urcpsender (any controller of its registry), rtpgccbwe from
gst-plugins-rs (`gcc`), or nothing (`none`: the encoder as it comes, at its
default bitrate; vp8enc's default is VBR). ENCODER is the flow's `encoder`
(vp8enc by default), on its `content` at its `resolution`.
"""

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

import gi

gi.require_version("Gst", "1.0")
from gi.repository import GLib, Gst  # noqa: E402

PROG = "rtpipes"   # the runner's name in messages; set by the runner
TWCC_URI = "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"
NO_ASYNC = {"async": False}  # sinks added while playing must not wait for preroll
# After the run, packets still in the links may come out this long (rcsim's
# DRAIN, tools/rcsim/sim.c), so that their fate is known.
DRAIN_S = 5.0
# Bytes an RTP packet adds to the `mtu` payload bytes of a scenario: the RTP
# header and the TWCC header extension (docs/scenarios.md, `mtu`).
RTP_HEADER_BYTES = 12 + 8
# Payload type of fecenc's repair packets (its default); the media's is 96.
FEC_PT = 100


def capture_time(pad, buf):
    """The running time of the buffer's PTS in the pad's segment. For a
    media RTP packet this is its frame's capture time: payloaders stamp
    every packet of a frame with the frame's PTS, and neither urcpsender nor
    rtpbin restamps it. None when unknown."""
    if buf.pts == Gst.CLOCK_TIME_NONE:
        return None
    ev = pad.get_sticky_event(Gst.EventType.SEGMENT, 0)
    if ev is None:
        return None
    t = ev.parse_segment().to_running_time(Gst.Format.TIME, buf.pts)
    if t == Gst.CLOCK_TIME_NONE or t > (1 << 62):
        return None
    return t


def rate_steps(link):
    """[(t_s, rate_bps)] of a [link] (or [reverse]) section without a
    trace: its capacity from 0, then its schedule's steps (a step at 0
    replaces the capacity); a rate of 0 is an outage."""
    steps = [(0.0, float(link.get("capacity", 1000000)))]
    for item in (link.get("schedule") or "").split(","):
        if item.strip():
            t, r = item.split(":")
            if float(t) == 0:
                steps = steps[1:]     # the schedule's own start
            steps.append((float(t), float(r)))
    return steps


def slot_ns(steps, size, t_ns, idle_at_or_below=0):
    """The ns that size bytes take at the rate in force at t_ns, of steps
    whose first two fields are (t_s, rate_bps); 0 where that rate is at or
    below idle_at_or_below (an outage)."""
    rate = 0.0
    for step in steps:
        if step[0] * Gst.SECOND <= t_ns:
            rate = step[1]
    return int(size * 8 * Gst.SECOND / rate) if rate > idle_at_or_below else 0


def start_of_slot(link):
    """A [link] (or [reverse]) section with delivery=start-of-slot: linksim
    hands each packet on at the start of its time on the link, as tbf does,
    while docs/metrics.md counts a packet's own serialization as queueing
    delay. Returns slot(size, t_ns), the ns that size bytes take at the
    capacity in force at t_ns, for the runners to add to the arrival they
    log (rcsim adds the same); None for the default end-of-slot."""
    if link.get("delivery", "").strip().lower() != "start-of-slot":
        return None
    steps = rate_steps(link)
    return lambda size, t_ns: slot_ns(steps, size, t_ns)


def capture_field(kind, capture):
    """The packet log's optional last field for a media packet: its frame's
    capture time (docs/metrics.md, `frames`)."""
    return f" @{capture}" if kind == "media" and capture is not None else ""


def packet_kind(flow, kind, data):
    """A packet's kind in the log: `fec` for a repair packet of a media
    flow (its RTP payload type is FEC_PT), else the stream's `kind`."""
    if (kind == "media" and getattr(flow, "fec_pt", None) is not None and
            len(data) > 1 and (data[1] & 0x7f) == flow.fec_pt):
        return "fec"
    return kind


def die(msg, code=1):
    print(f"{PROG}: {msg}", file=sys.stderr)
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
        self.group = None          # its [flow:NAME] section
        self.nth = 0               # its place among the section's `count` flows
        self.controller = "urcp"
        self.keys = {}             # the flow's section as written
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
        # TCP (docs/scenarios.md, kind=tcp)
        self.cc = "cubic"
        self.size_min = 0
        self.size_max = 0
        self.think_mean_s = 10.0
        self.initially_on = True

    def stop_at(self, duration_s):
        return min(self.stop_s, duration_s) if self.stop_s is not None else duration_s


class Scenario:
    """The parts of a scenario file that the real-time runs use; the keys
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
        self.has_reverse = kf.has_group("reverse")
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
            on = int(key(kf, g, "initially-on", float(count), float))
            for i in range(count):
                name = g[5:] if count == 1 else f"{g[5:]}-{i + 1}"
                f = self.flow(kf, g, len(self.flows), name, link_delay_ms)
                f.nth, f.initially_on = i, i < on
                self.flows.append(f)
        self.run = [f for f in self.flows if f.kind in ("media", "cbr")]
        self.skipped = [f for f in self.flows if f.kind not in ("media", "cbr")]

    @staticmethod
    def flow(kf, g, index, name, link_delay_ms):
        f = Flow(index, name, key(kf, g, "kind", "media").lower())
        f.group = g
        f.controller = key(kf, g, "controller", "urcp").strip()
        f.start_s = key(kf, g, "start", 0.0, float)
        f.stop_s = key(kf, g, "stop", None, float)
        delay_ms = key(kf, g, "delay-ms", link_delay_ms, float)
        f.delay_ns = int(round(delay_ms * Gst.MSECOND))
        f.return_delay_ns = int(round(key(kf, g, "return-delay-ms", delay_ms, float) * Gst.MSECOND))
        f.rate_bps = int(key(kf, g, "rate", 0.0, float))
        f.packet_size = int(key(kf, g, "packet-size", 1200.0, float))
        f.direction = key(kf, g, "direction", "forward").lower()
        for p in (key(kf, g, "pause", "") or "").split(","):
            if p:
                a, b = p.split(":")
                f.pauses.append((float(a), float(b)))
        f.cc = key(kf, g, "cc", "cubic").strip().lower()
        f.size_min = int(key(kf, g, "size-min", 0.0, float))
        f.size_max = int(key(kf, g, "size-max", float(f.size_min), float))
        f.think_mean_s = key(kf, g, "think-mean", 10.0, float)
        # the receiver (docs/scenarios.md): rcreceiver behind its rtpbin
        f.receiver_reports = key(kf, g, "receiver-reports", "auto").strip().lower()
        f.adapt_rtcp = key(kf, g, "adapt-rtcp-interval", "auto").strip().lower()
        f.playout_latency_ms = int(key(kf, g, "playout-latency-ms", 200.0, float))
        f.keys = {k: kf.get_string(g, k).strip() for k in kf.get_keys(g)[0]}
        return f


# Scenario keys that are urcpsender properties of the same name, besides
# the controllers' own "<controller>-<parameter>" keys.
SENDER_KEYS = ("min-bitrate", "start-bitrate", "max-bitrate", "temporal-layers")
# urcpsender's defaults for them (docs/scenarios.md), which rtpgccbwe gets too.
BITRATE_DEFAULTS = {"min-bitrate": 50000, "start-bitrate": 300000, "max-bitrate": 20000000}


# Scenario keys in ms that are urcpsender properties in ns.
MS_KEYS_AS_NS = {"pacer-max-queue-ms": "max-queue-time",
                 "feedback-gather-ms": "feedback-gather-time"}


def sender_props(flow, ctrl):
    """The flow's keys that are urcpsender properties of the same name (and
    unit): its controller's parameters and its bitrate limits
    (docs/scenarios.md), plus the pacer and feedback-gather keys under
    urcpsender's names."""
    props = {k: v for k, v in flow.keys.items() if k in SENDER_KEYS or k.startswith(ctrl + "-")}
    for key in ("pacing", "pacing-factor"):
        if key in flow.keys:
            props[key] = flow.keys[key]
    for key, prop in MS_KEYS_AS_NS.items():
        if key in flow.keys:
            props[prop] = str(int(float(flow.keys[key]) * Gst.MSECOND))
    return props


def bitrate(flow, name):
    return int(float(flow.keys.get(name, BITRATE_DEFAULTS[name])))


def urcp_controllers():
    """The nicks of urcpsender's `controller` enum, which the element builds
    from the controller registry (gst/rc-controller.c); [] without it."""
    e = Gst.ElementFactory.make("urcpsender", None)
    if e is None:
        return []
    values = e.find_property("controller").enum_class.__enum_values__
    return [values[v].value_nick for v in sorted(values)]


def check_controllers(scen, controller, urcp_names, flows):
    """Exits unless every media flow's controller exists and its keys are
    urcpsender properties; exits 77 (skip) when `gcc` is asked for and
    rtpgccbwe is not on GST_PLUGIN_PATH."""
    known = urcp_names + ["gcc", "none"]
    used = {controller} if controller else {f.controller for f in flows if f.kind == "media"}
    for c in sorted(used):
        if c not in known:
            die(f"unknown controller '{c}' ({', '.join(known)})")
    for f in flows:
        ctrl = controller or f.controller
        if f.kind == "media" and ctrl in urcp_names:
            probe = make("urcpsender")
            for k in sender_props(f, ctrl):
                if probe.find_property(k) is None:
                    die(f"[flow:{f.name}] {k}: urcpsender has no such property")
    if "gcc" in used and Gst.ElementFactory.find("rtpgccbwe") is None:
        die("rtpgccbwe (gst-plugins-rs) is not on GST_PLUGIN_PATH: skipped "
            "(scripts/build_gcc.sh builds it and prints the directory to add)", 77)


def load(args):
    """GStreamer, linksim, rcsim and the scenario, each checked before a
    runner spends real time on it: (rcsim's path, the Scenario)."""
    Gst.init(None)
    if Gst.ElementFactory.find("linksim") is None:
        die("linksim not found: set GST_PLUGIN_PATH to the build's gst/ directory")
    rcsim = require_rcsim(args.rcsim)
    check_scenario(rcsim, args.scenario)
    scen = Scenario(args.scenario)
    scen.assisted = receiver_assisted(rcsim)
    check_media(scen, args.content)
    return rcsim, scen


def check_media(scen, content):
    """Before the run: every media flow's source can be built (its encoder
    and payloader installed, its keys understood). Inside the run a failure
    would come from a timer callback, after the runner set things up."""
    for f in scen.flows:
        if f.kind != "media":
            continue
        enc = media_source(f, content)[0]
        for factory in (enc, ENCODERS[enc][0]):
            if Gst.ElementFactory.find(factory) is None:
                die(f"[{f.group}] element '{factory}' is not installed")


def stop_flow(flow):
    """A flow's end: EOS from its source (media, CBR)."""
    if flow.sender is not None:
        flow.sender.send_event(Gst.Event.new_eos())


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


def require_rcsim(path):
    rcsim = find_rcsim(path)
    if not rcsim or not os.access(rcsim, os.X_OK):
        die(f"rcsim not found{': ' + rcsim if rcsim else ''}: pass --rcsim PATH "
            "(the build's tools/rcsim/rcsim)")
    return rcsim


def receiver_assisted(rcsim):
    """The controllers that read rcreceiver's reports, and those of them
    that follow its rate requests (their registry entries say so; rcsim
    lists them): two sets."""
    def listed(flag):
        p = subprocess.run([rcsim, "--list-controllers", flag],
                           capture_output=True, text=True, check=True)
        return set(p.stdout.split())
    return listed("--receiver-assisted"), listed("--receiver-requests")


def receiver_setup(flow, ctrl, assisted):
    """(rcreceiver on the receiving side, its adapt-interval, its r3cp) for
    `flow` run by `ctrl`: the scenario's receiver-reports and
    adapt-rtcp-interval, `auto` meaning: if the controller reads the
    reports (as rcsim does)."""
    reads, requests = assisted
    on = flow.receiver_reports == "true" or (flow.receiver_reports == "auto" and ctrl in reads)
    adapt = on and flow.adapt_rtcp != "false"
    return on, adapt, on and ctrl in requests


def check_scenario(rcsim, path):
    """rcsim's verdict on the file before minutes of real time are spent on
    it (the same parser computes the metrics at the end): a short run."""
    p = subprocess.run([rcsim, path, "--duration", "0.1"], capture_output=True, text=True)
    if p.returncode != 0:
        die(p.stderr.strip().removeprefix("rcsim: ") or f"rcsim rejected {path}")


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
            print(f"{PROG}: linksim has no property '{k}': ignored", file=sys.stderr)
            continue
        # gst_util_set_object_arg parses strings as gst-launch would,
        # including enums by nick and 64-bit integers.
        Gst.util_set_object_arg(link, k, str(v))
    link.set_property("seed", seed)


# The video source, as a scenario's media flow names it (docs/scenarios.md):
# `encoder`, `content` and `resolution`, with rcsim's defaults, and the
# contents of tools/encrec (the recordings rcsim's encoder models are fitted
# on, docs/encoders.md): `scroll` (a scrolling SMPTE pattern, what vp8enc at
# 640x480 fills up to about 3.9 Mbit/s), `snow` (noise: fills any target),
# `ball` (about 100 kbit/s whatever the target) and `scenes` (the three in
# turn, SCENE_S seconds each).
DEFAULT_ENCODER, DEFAULT_CONTENT, DEFAULT_RESOLUTION = "vp8enc", "scroll", "640x480"
CONTENTS = ("scroll", "snow", "ball", "scenes")
SCENES = ("snow", "scroll", "ball")
SCENE_S = 4
# encoder -> (payloader, encoding-name, bitrate property, its unit in bit/s);
# the property and unit as in gst/gstrcencoder.c's table (keep in step).
ENCODERS = {
    "vp8enc": ("rtpvp8pay", "VP8", "target-bitrate", 1),
    "vp9enc": ("rtpvp9pay", "VP9", "target-bitrate", 1),
    "x264enc": ("rtph264pay", "H264", "bitrate", 1000),
}


def media_source(flow, content=None):
    """(encoder, content, width, height) of a media flow; `content`
    overrides the flow's. encoder=synthetic (rcsim's model) runs vp8enc."""
    enc = flow.keys.get("encoder", DEFAULT_ENCODER).strip()
    if enc == "synthetic":
        enc = DEFAULT_ENCODER
    if enc not in ENCODERS:
        die(f"[{flow.group}] encoder={enc}: a real run knows {', '.join(sorted(ENCODERS))}")
    what = content or flow.keys.get("content", DEFAULT_CONTENT).strip()
    if what not in CONTENTS:
        die(f"[{flow.group}] content={what}: one of {', '.join(CONTENTS)}")
    m = re.fullmatch(r"(\d+)x(\d+)", flow.keys.get("resolution", DEFAULT_RESOLUTION).strip())
    if not m:
        die(f"[{flow.group}] resolution: WIDTHxHEIGHT")
    return enc, what, int(m.group(1)), int(m.group(2))


def set_content(src, kind):
    if kind == "scroll":
        src.set_property("horizontal-speed", 4)
        Gst.util_set_object_arg(src, "pattern", "smpte")
    else:
        src.set_property("horizontal-speed", 0)
        Gst.util_set_object_arg(src, "pattern", kind)


def configure_encoder(enc, name):
    """The encoder as urcpsender configures it for real-time rate following
    (gst/gstrcencoder.c), for controllers that do not configure the encoder
    themselves (rtpgccbwe)."""
    if name in ("vp8enc", "vp9enc"):
        Gst.util_set_object_arg(enc, "end-usage", "cbr")
        enc.set_property("deadline", 1)
        enc.set_property("buffer-size", 150)
        enc.set_property("buffer-initial-size", 80)
        enc.set_property("buffer-optimal-size", 100)
        enc.set_property("dropframe-threshold", 30)
        # a fixed speed and no lag (gstrcencoder.c says why)
        enc.set_property("cpu-used", 6 if name == "vp9enc" else -6)
        enc.set_property("lag-in-frames", 0)
    elif name == "x264enc":
        Gst.util_set_object_arg(enc, "pass", "cbr")


class MediaSender:
    """One media flow's sender up to rtpbin's send_rtp_sink_0:
    videotestsrc (the flow's resolution at its `fps`, its content) ! valve
    (the flow's pauses) ! encoder (key frames at its own default distance,
    as in the recordings, or every `key-interval` s with encoder=synthetic)
    ! payloader (`mtu` payload bytes) ! TWCC extmap ! CONTROLLER. Add
    `elems` to the pipeline, then call link()."""

    def __init__(self, flow, ctrl, urcp_names, ssrc, content=None):
        fps = int(float(flow.keys.get("fps", 30)))
        mtu = int(float(flow.keys.get("mtu", 1200)))
        self.enc_name, self.content, width, height = media_source(flow, content)
        self.synthetic = flow.keys.get("encoder", "").strip() == "synthetic"
        pay, self.encoding, self.rate_prop, self.unit = ENCODERS[self.enc_name]
        self.flow, self.ctrl = flow, ctrl
        self.src = make("videotestsrc", is_live=True)
        set_content(self.src, SCENES[0] if self.content == "scenes" else self.content)
        self.vcaps = make("capsfilter", caps=Gst.Caps.from_string(
            f"video/x-raw,format=I420,width={width},height={height},framerate={fps}/1"))
        self.valve = make("valve")
        self.enc = make(self.enc_name)
        if self.enc_name in ("vp8enc", "vp9enc"):
            self.enc.set_property("deadline", 1)
        elif self.enc_name == "x264enc":
            # no look-ahead or B-frames, as in the recordings (tools/encrec)
            Gst.util_set_object_arg(self.enc, "tune", "zerolatency")
        if self.synthetic:
            # rcsim's synthetic model: a key frame every `key-interval` s (10)
            key_s = float(flow.keys.get("key-interval", 10))
            prop = "keyframe-max-dist" if self.enc_name != "x264enc" else "key-int-max"
            self.enc.set_property(prop, int(key_s * fps) if key_s > 0 else 2147483647)
        self.pay = make(pay, pt=96, ssrc=ssrc, mtu=mtu + RTP_HEADER_BYTES)
        if self.enc_name == "x264enc":
            self.pay.set_property("config-interval", -1)
        self.ext = make("capsfilter", caps=Gst.Caps.from_string(
            f'application/x-rtp,extmap-1=(string)"{TWCC_URI}"'))
        self.rtpbin = make("rtpbin")
        self.elems = [self.src, self.vcaps, self.valve, self.enc, self.pay, self.ext, self.rtpbin]
        self.rc = None
        self.fec = None
        flow.fec_pt = None
        fec = flow.keys.get("fec", "probe").strip().lower()
        if ctrl in urcp_names and fec != "none":
            # The flow's `fec` key, as rcsim reads it: fecenc's overhead
            # (0 for `probe`: repair packets only when the controller asks,
            # GstFecEncProbe).
            self.fec = make("fecenc", overhead=0.0 if fec == "probe" else float(fec),
                            pt=FEC_PT)
            flow.fec_pt = FEC_PT
            self.elems.append(self.fec)
        if ctrl in urcp_names:
            self.rc = make("urcpsender")
            Gst.util_set_object_arg(self.rc, "controller", ctrl)
            for k, v in sender_props(flow, ctrl).items():
                Gst.util_set_object_arg(self.rc, k, v)
        elif ctrl == "gcc":
            self.rc = self.gcc()
        if self.rc is not None:
            self.elems.append(self.rc)
        if self.content == "scenes":
            self.scene = 0
            GLib.timeout_add(SCENE_S * 1000, self.next_scene)
        flow.rc, flow.enc, flow.valve, flow.sender = self.rc, self.enc, self.valve, self.src

    def next_scene(self):
        self.scene = (self.scene + 1) % len(SCENES)
        set_content(self.src, SCENES[self.scene])
        return True

    def gcc(self):
        """rtpgccbwe (gst-plugins-rs) where urcpsender would sit, in front of
        send_rtp_sink (where an rtpbin aux sender sits too): its
        estimated-bitrate drives vp8enc, configured as urcpsender configures
        it, as webrtcsink does; its limits are the flow's bitrate keys."""
        gcc = make("rtpgccbwe")
        start = bitrate(self.flow, "start-bitrate")
        gcc.set_property("min-bitrate", bitrate(self.flow, "min-bitrate"))
        gcc.set_property("max-bitrate", bitrate(self.flow, "max-bitrate"))
        gcc.set_property("estimated-bitrate", start)
        configure_encoder(self.enc, self.enc_name)
        enc, prop, unit = self.enc, self.rate_prop, self.unit
        enc.set_property(prop, max(start // unit, 1))

        def on_rate(g, _p):
            enc.set_property(prop, max(g.get_property("estimated-bitrate") // unit, 1))
        gcc.connect("notify::estimated-bitrate", on_rate)
        return gcc

    def link(self):
        Gst.Element.link_many(self.src, self.vcaps, self.valve, self.enc, self.pay, self.ext)
        if self.rc is not None:
            if self.fec is not None:
                Gst.Element.link_many(self.ext, self.fec, self.rc)
            else:
                self.ext.link(self.rc)
            self.rc.link_pads("src", self.rtpbin, "send_rtp_sink_0")
        else:
            self.ext.link_pads("src", self.rtpbin, "send_rtp_sink_0")


def recv_rtp_caps(encoding="VP8"):
    return Gst.Caps.from_string(
        f"application/x-rtp,media=video,clock-rate=90000,encoding-name={encoding},"
        f'payload=96,extmap-1=(string)"{TWCC_URI}"')


class MediaReceiver:
    """A stock receiving rtpbin (the extmap in its caps makes it send TWCC
    feedback) whose decoded-nothing output goes to a fakesink, one per
    stream (the media's, and the repair packets' SSRC when fecenc sends
    any: an unlinked pad would stop the pipeline with not-linked). With
    `report`, the first stream passes rcreceiver (its reports for the
    receiver-assisted controllers; `adapt`: C-NADU's RTCP interval; `r3cp`:
    R3CP+'s rate requests) and the jitterbuffer's latency is `latency_ms`,
    the playout budget."""

    def __init__(self, report=False, adapt=False, latency_ms=200, r3cp=False):
        self.rtpbin = make("rtpbin", latency=latency_ms)
        self.sink = make("fakesink", sync=False, **NO_ASYNC)
        self.elems = [self.rtpbin, self.sink]
        self.report = None
        if report:
            self.report = make("rcreceiver", adapt_interval=adapt, r3cp=r3cp)
            self.elems.append(self.report)

        def on_pad(rtpbin, pad):
            if not pad.get_name().startswith("recv_rtp_src_"):
                return
            # linked here, where both are in the pipeline
            if self.report and not self.report.get_static_pad("src").is_linked():
                self.report.link(self.sink)
            sink = self.report or self.sink
            if sink.get_static_pad("sink").is_linked():
                sink = make("fakesink", sync=False, **NO_ASYNC)
                rtpbin.get_parent().add(sink)
                sink.sync_state_with_parent()
            pad.link(sink.get_static_pad("sink"))
        self.rtpbin.connect("pad-added", on_pad)


class CbrSource:
    """Constant-rate UDP cross traffic as RTP (so each packet has a sequence
    number to time it by): L16 silence at the sample rate that gives the
    flow's `rate` with `packet-size` payloads. `last` goes to the socket."""

    def __init__(self, flow, ssrc):
        payload = flow.packet_size
        rate = max(int(flow.rate_bps / 16), 1)
        spb = max(payload // 2, 1)
        self.src = make("audiotestsrc", is_live=True, wave="silence", samplesperbuffer=spb)
        caps = make("capsfilter", caps=Gst.Caps.from_string(
            f"audio/x-raw,format=S16BE,layout=interleaved,rate={rate},channels=1"))
        self.last = make("rtpL16pay", mtu=payload + 12 + 100, ssrc=ssrc)
        self.elems = [self.src, caps, self.last]
        flow.sender = self.src

    def link(self):
        Gst.Element.link_many(*self.elems)


# How often a real run samples a media flow's controller target (rcsim's
# bins are 200 ms; each takes the last sample at its start).
TARGET_SAMPLE_MS = 100


class Timeline:
    """One pipeline on the system clock and a main loop that runs actions at
    set times of the run (seconds of running time, the timebase of every
    time in the packet log). SIGINT and SIGTERM end the loop and are raised
    as KeyboardInterrupt once it has returned, so the runner's clean-up
    runs."""

    def __init__(self, name):
        self.pipeline = Gst.Pipeline.new(name)
        self.errors = []
        self.events = []
        self.loop = None
        self.signal = None
        self.state_lines = []       # (t ns, a `target` or `frame` line) for the log

    def log_target(self, flow):
        """From now to the end, the media flow's controller target every
        TARGET_SAMPLE_MS as `target` lines of the packet log, so that a real
        run's CSV has target_kbps like rcsim's: urcpsender's target-bitrate,
        rtpgccbwe's estimated-bitrate; nothing without a controller."""
        rc = flow.rc
        if rc is None:
            return
        prop = "target-bitrate" if rc.find_property("target-bitrate") else "estimated-bitrate"

        def sample():
            t = self.now()
            self.state_lines.append((t, f"target {flow.index} {t} {int(rc.get_property(prop))}"))
            return True
        sample()
        GLib.timeout_add(TARGET_SAMPLE_MS, sample)

    def log_media(self, flow, enc):
        """A started media flow's target (log_target) and frames (log_frames)."""
        self.log_target(flow)
        self.log_frames(flow, enc)

    def log_frames(self, flow, enc):
        """Every frame the flow's encoder puts out, as `frame` lines of the
        packet log (capture time, bytes, key), so that the encoder in the
        loop can be set against rcsim's model (benchmarks/encoder_error.py)."""
        seg = {}

        def on_frame(pad, info):
            if info.type & Gst.PadProbeType.EVENT_DOWNSTREAM:
                ev = info.get_event()
                if ev.type == Gst.EventType.SEGMENT:
                    seg["s"] = ev.parse_segment()
                return Gst.PadProbeReturn.OK
            buf = info.get_buffer()
            s = seg.get("s")
            if s is None or buf.pts == Gst.CLOCK_TIME_NONE:
                return Gst.PadProbeReturn.OK
            t = s.to_running_time(Gst.Format.TIME, buf.pts)
            if t == Gst.CLOCK_TIME_NONE or t > (1 << 62):
                return Gst.PadProbeReturn.OK        # outside the segment
            key = 0 if buf.has_flags(Gst.BufferFlags.DELTA_UNIT) else 1
            self.state_lines.append(
                (t, f"frame {flow.index} {t} {buf.get_size()} {key}"))
            return Gst.PadProbeReturn.OK
        enc.get_static_pad("src").add_probe(
            Gst.PadProbeType.BUFFER | Gst.PadProbeType.EVENT_DOWNSTREAM, on_frame)

    # Running time on the pipeline clock: what linksim, udpsrc and rtpbin
    # stamp buffers with.
    def now(self):
        clock = self.pipeline.get_clock()
        if clock is None:
            return 0
        return clock.get_time() - self.pipeline.get_base_time()

    def add(self, *elems):
        for e in elems:
            self.pipeline.add(e)
        return elems

    def at(self, t_s, fn):
        self.events.append((t_s, fn))

    def after(self, delay_s, fn):
        """fn once, delay_s from now (from a running loop)."""
        def fire():
            fn()
            return False
        GLib.timeout_add(max(int(delay_s * 1000), 0), fire)

    def run(self):
        self.loop = GLib.MainLoop()
        bus = self.pipeline.get_bus()
        bus.add_signal_watch()

        def on_msg(_bus, msg):
            if msg.type == Gst.MessageType.ERROR:
                err, _dbg = msg.parse_error()
                self.errors.append(f"{msg.src.get_name()}: {err.message}")
                self.loop.quit()
            elif msg.type == Gst.MessageType.WARNING:
                err, _ = msg.parse_warning()
                print(f"{PROG}: warning from {msg.src.get_name()}: {err.message}",
                      file=sys.stderr)
        bus.connect("message", on_msg)

        def on_signal(signum):
            self.signal = signum
            self.loop.quit()
            return True
        # GLib's handlers replace Python's while the loop runs; removing
        # them resets the signals to their defaults, so Python's go back.
        handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
        sources = [GLib.unix_signal_add(GLib.PRIORITY_HIGH, s, on_signal, s) for s in handlers]

        if self.pipeline.set_state(Gst.State.PLAYING) == Gst.StateChangeReturn.FAILURE:
            die("the pipeline did not start (linksim rejects the scenario's link?)")
        for at, fn in sorted(self.events, key=lambda e: e[0]):
            self.after(at - self.now() / Gst.SECOND, fn)
        try:
            self.loop.run()
        finally:
            for s in sources:
                GLib.source_remove(s)
            for s, h in handlers.items():
                signal.signal(s, h)
            bus.remove_signal_watch()
        if self.signal is not None:
            raise KeyboardInterrupt(self.signal)

    def quit_when(self, done, timeout_s, then=None):
        """Polls done() every 20 ms; ends the loop when it is true or after
        timeout_s."""
        deadline = time.monotonic() + timeout_s

        def poll():
            if done() or time.monotonic() > deadline:
                if then:
                    then()
                self.loop.quit()
                return False
            return True
        GLib.timeout_add(20, poll)

    def stop(self):
        self.pipeline.set_state(Gst.State.NULL)


def schedule_flow(timeline, flow, start, stop, duration_s):
    """start() at the flow's `start`, stop() at its `stop` (if before the
    end of the run), and its pauses on its valve (media flows)."""
    timeline.at(flow.start_s, start)
    if flow.stop_at(duration_s) < duration_s:
        timeline.at(flow.stop_s, stop)
    for a, b in flow.pauses:
        timeline.at(a, lambda: flow.valve and flow.valve.set_property("drop", True))
        timeline.at(b, lambda: flow.valve and flow.valve.set_property("drop", False))


def start_elements(elems):
    """Brings elements added to a playing pipeline to its state, the most
    downstream first (`elems` are in data-flow order). Started upstream
    first, a live source can push into a pad that is not active yet, get
    FLUSHING, and stop for good: a CBR flow of rtsim's test once sent
    nothing in 6 s that way."""
    for e in reversed(elems):
        e.sync_state_with_parent()


def write_packet_log(path, comment, skipped, lines):
    """The packet log (docs/metrics.md, "Packet log"): `lines` are (entry
    ns, line) pairs, written by entry time."""
    with open(path, "w") as fh:
        fh.write(f"rcsim-log 1\n# {comment}\n")
        for f in skipped:
            fh.write(f"skip {f.index}\n")
        for _, line in sorted(lines):
            fh.write(line + "\n")


def argument_parser(doc, seed_help):
    """The options rtsim and kbench share."""
    ap = argparse.ArgumentParser(description=doc,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("scenario")
    ap.add_argument("--controller", default=None,
                    help="every media flow's controller: urcpsender's (urcp, um, ...), gcc "
                         "or none (default: each flow's `controller`)")
    ap.add_argument("--seed", type=int, default=1, help=seed_help)
    ap.add_argument("--duration", type=float, default=None)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--csv", default=None, metavar="DIR",
                    help="rcsim's 200 ms time series of the run (docs/metrics.md)")
    ap.add_argument("--rcsim", default=None, metavar="PATH",
                    help="the rcsim that computes the metrics (default: the build's "
                         "tools/rcsim/rcsim next to the plugin on GST_PLUGIN_PATH, else PATH's)")
    ap.add_argument("--log", default=None, metavar="FILE",
                    help="keep the packet log here (default: a temporary file)")
    ap.add_argument("--content", choices=CONTENTS, default=None,
                    help="every media flow's content, instead of its scenario's `content` "
                         "(docs/encoders.md)")
    return ap


def rcsim_metrics(rcsim, scen, log, duration, args):
    """rcsim's metrics of the log: its JSON object, or its table."""
    cmd = [rcsim, scen.path, "--from-log", log, "--duration", repr(duration),
           "--seed", str(args.seed)]
    if args.controller:
        cmd += ["--controller", args.controller]
    if getattr(args, "csv", None):
        cmd += ["--csv", args.csv]
    if args.json:
        cmd.append("--json")
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        die(f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr.strip()}")
    return json.loads(p.stdout) if args.json else p.stdout
