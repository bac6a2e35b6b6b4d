#!/usr/bin/python3
"""rtsim: the real-time counterpart of rcsim.

Reads the same scenario file and runs it with real GStreamer pipelines on
the wall clock: per media flow videotestsrc (the flow's `content` and
`resolution`) ! its `encoder` (vp8enc by default) ! payloader (TWCC
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
                                  [--content scroll|snow|ball|scenes]

NAME is any of urcpsender's controllers (its `controller` enum, built from
the controller registry), `gcc` (`rtpgccbwe` from gst-plugins-rs; the tool
exits with 77, skip, if its plugin is not on GST_PLUGIN_PATH) or `none`;
default: each media flow's `controller` key. TCP flows are not run in real
time (they need a kernel path: tools/kbench/kbench.py); a scenario with TCP
flows runs without them, and says so.
"""

import collections
import json
import os
import sys
import tempfile
import threading
import time

import rtpipes as rp
from rtpipes import Gst, make

rp.PROG = "rtsim"
die = rp.die


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
        # delivery=start-of-slot: the arrival is logged at the slot's end
        scen = runner.scen
        section = scen.link if self.log_link == "fwd" else (
            scen.reverse if scen.has_reverse and link is runner.links.get("reverse") else {})
        self.slot = rp.start_of_slot(section)
        self.lock = threading.Lock()         # the two pads' threads
        self.pending = collections.deque()   # (bytes, entry ns, size, kind, capture)
        self.records = []                    # (entry ns, kind, log line fields)
        self.gone = []                       # (entry ns, size, kind, capture): never came out
        self.closed = False                  # the run is over: no entries
        self.frozen = False                  # the log is written: no exits
        self.captures = {}                   # media: RTP header -> capture time
        sink.add_probe(Gst.PadProbeType.BUFFER, self.on_entry)
        src.add_probe(Gst.PadProbeType.BUFFER, self.on_exit)

    def on_send(self, pad, info):
        """Before the sender's socket (media): the frame's capture time,
        which udpsrc's own stamp replaces on the way into linksim."""
        buf = info.get_buffer()
        cap = rp.capture_time(pad, buf)
        if cap is not None:
            with self.lock:
                self.captures[buf.extract_dup(0, min(12, buf.get_size()))] = cap
        return Gst.PadProbeReturn.OK

    def on_entry(self, pad, info):
        buf = info.get_buffer()
        t = self.runner.now()
        data = buf.extract_dup(0, buf.get_size())
        with self.lock:
            if self.closed:
                return Gst.PadProbeReturn.DROP
            self.pending.append((data, t, len(data) + self.overhead,
                                 rp.packet_kind(self.flow, self.kind, data),
                                 self.captures.pop(data[:12], None)))
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
                _, t, size, kind, cap = self.pending.popleft()
                self.gone.append((t, size, kind, cap))
            _, t, size, kind, cap = self.pending.popleft()
            if self.slot:
                arrival += self.slot(size, arrival)
            # The departure is not seen at the pads: '-' (arrival minus
            # the propagation delay stands in).
            self.records.append((t, kind, f"{size} {t} recv - {max(arrival, t)}"
                                          f"{rp.capture_field(kind, cap)}"))
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
        rest = [(t, size, kind, cap) for _, t, size, kind, cap in self.pending]
        n_pending = min(in_flight, len(rest))
        gone = self.gone + rest[:len(rest) - n_pending]
        # linksim counts tail drops and losses after the queue, but the pads
        # do not show which packet was which: exact when only one happened,
        # otherwise all are written as tail drops.
        fate = "lost -" if dq == 0 and dl > 0 else "drop"
        self.records += [(t, kind, f"{size} {t} {fate}{rp.capture_field(kind, cap)}")
                         for t, size, kind, cap in gone]
        self.records += [(t, kind, f"{size} {t} pending{rp.capture_field(kind, cap)}")
                         for t, size, kind, cap in rest[len(rest) - n_pending:]]
        return len(gone), dq + dl

    def lines(self):
        return [(t, f"{self.log_link} {self.flow.index} {kind} {rest}")
                for t, kind, rest in self.records]


class Runner(rp.Timeline):
    """Builds and runs one scenario on the wall clock."""

    def __init__(self, scen, controller, seed, urcp_names, content):
        super().__init__("rtsim")
        self.scen = scen
        self.content = content             # None: each flow's own
        self.controller = controller       # None: each flow's own
        self.urcp_names = urcp_names
        self.seed = seed
        self.links = {}
        self.taps = []
        fwd = make("linksim", name="fwd")
        rp.set_link_props(fwd, scen.link, seed)
        self.pipeline.add(fwd)
        self.links["forward"] = fwd
        if scen.reverse:
            rev = make("linksim", name="rev")
            rp.set_link_props(rev, scen.reverse, seed + 1)
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

    def link_pads(self, link, flow, delay_ns):
        sink = link.request_pad_simple("sink_%u")
        src = link.get_static_pad("src_" + sink.get_name()[5:])
        sink.set_property("delay", delay_ns)
        return sink, src

    def tap(self, flow, link, kind, sink, src):
        tap = Tap(self, link, flow, kind, sink, src)
        self.taps.append(tap)
        return tap

    def data_link(self, flow):
        if flow.direction == "reverse" and self.scen.reverse:
            return self.links["reverse"]
        return self.links["forward"]

    def feedback_link(self, flow):
        if flow.direction == "reverse" and self.scen.reverse:
            return self.links["forward"]
        return self.links["reverse"]

    def udp_pair(self, caps=None):
        """A udpsink and the udpsrc it sends to (on localhost), added."""
        out = make("udpsink", host="127.0.0.1", sync=False, **rp.NO_ASYNC)
        inp = make("udpsrc", port=0, caps=caps) if caps else make("udpsrc", port=0)
        self.add(out, inp)
        # Bind the receiving socket first (port 0 binds in READY).
        inp.set_state(Gst.State.READY)
        out.set_property("port", inp.get_property("port"))
        return out, inp

    def start_media(self, flow, idx):
        """Sender and receiver of one media flow, added while playing."""
        snd = rp.MediaSender(flow, self.controller_of(flow), self.urcp_names,
                             self.next_ssrc + idx, self.content)
        recv_caps = rp.recv_rtp_caps(snd.encoding)
        report, adapt, r3cp = rp.receiver_setup(flow, self.controller_of(flow), self.scen.assisted)
        rcv = rp.MediaReceiver(report, adapt, flow.playout_latency_ms, r3cp)
        self.add(*snd.elems, *rcv.elems)
        elems = snd.elems + rcv.elems
        snd.link()
        out, udp_in = self.udp_pair(recv_caps)
        elems += [out, udp_in]
        snd.rtpbin.link_pads("send_rtp_src_0", out, "sink")

        link = self.data_link(flow)
        data_sink, data_src = self.link_pads(link, flow, flow.delay_ns)
        udp_in.get_static_pad("src").link(data_sink)
        # linksim relays between two sockets, as it would between hosts: the
        # receiving rtpbin takes its arrival times (TWCC remote-ts) from
        # udpsrc's capture timestamps after the bottleneck.
        relay_out, relay_in = self.udp_pair(recv_caps)
        elems += [relay_out, relay_in]
        data_src.link(relay_out.get_static_pad("sink"))
        relay_in.get_static_pad("src").link(rcv.rtpbin.request_pad_simple("recv_rtp_sink_0"))
        tap = self.tap(flow, link, "media", data_sink, data_src)
        out.get_static_pad("sink").add_probe(Gst.PadProbeType.BUFFER, tap.on_send)

        # The receiver's RTCP (TWCC feedback, RRs) over the return path;
        # the sender's SRs over the data path, as in rcsim.
        fb_link = self.feedback_link(flow)
        fb_sink, fb_src = self.link_pads(fb_link, flow, flow.return_delay_ns)
        self.tap(flow, fb_link, "ctrl", fb_sink, fb_src)
        rcv.rtpbin.request_pad_simple("send_rtcp_src_0").link(fb_sink)
        fb_src.link(snd.rtpbin.request_pad_simple("recv_rtcp_sink_0"))
        # Over UDP too: a direct link would close a loop in the element graph.
        sr_out, sr_in = self.udp_pair()
        elems += [sr_out, sr_in]
        snd.rtpbin.request_pad_simple("send_rtcp_src_0").link(sr_out.get_static_pad("sink"))
        sr_sink, sr_src = self.link_pads(link, flow, flow.delay_ns)
        self.tap(flow, link, "ctrl", sr_sink, sr_src)
        sr_in.get_static_pad("src").link(sr_sink)
        sr_src.link(rcv.rtpbin.request_pad_simple("recv_rtcp_sink_0"))

        rp.start_elements(elems)
        self.log_media(flow, snd.enc)

    def start_cbr(self, flow, idx):
        cbr = rp.CbrSource(flow, 0x7000 + idx)
        sink = make("fakesink", sync=False, **rp.NO_ASYNC)
        self.add(*cbr.elems, sink)
        cbr.link()
        out, udp_in = self.udp_pair(Gst.Caps.from_string("application/x-rtp"))
        cbr.last.link(out)
        link = self.data_link(flow)
        data_sink, data_src = self.link_pads(link, flow, flow.delay_ns)
        udp_in.get_static_pad("src").link(data_sink)
        data_src.link(sink.get_static_pad("sink"))
        self.tap(flow, link, "cbr", data_sink, data_src)
        rp.start_elements(cbr.elems + [out, udp_in, sink])

    def run_scenario(self, duration_s):
        for f in self.scen.run:
            start = self.start_media if f.kind == "media" else self.start_cbr
            rp.schedule_flow(self, f, lambda f=f, s=start: s(f, f.index),
                             lambda f=f: rp.stop_flow(f), duration_s)
        self.at(duration_s, self.drain)
        self.run()
        self.check = self.finish_taps()
        self.stop()
        if self.errors:
            die("; ".join(self.errors))

    def drain(self):
        """The end of the run: nothing enters the links any more, and what
        is in them may still come out for DRAIN_S, as in rcsim (its fate
        counts), before the loop stops."""
        for tap in self.taps:
            tap.close()
        self.quit_when(self.drained, rp.DRAIN_S)

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
        """The packet log (docs/metrics.md, "Packet log")."""
        rp.write_packet_log(path, f"rtsim {self.scen.path}, seed {self.seed}", self.scen.skipped,
                            [line for tap in self.taps for line in tap.lines()] +
                            self.state_lines)


def main():
    ap = rp.argument_parser(__doc__, "linksim's seed (its noise and loss)")
    args = ap.parse_args()

    rcsim, scen = rp.load(args)
    urcp_names = rp.urcp_controllers()
    rp.check_controllers(scen, args.controller, urcp_names, scen.run)
    duration = args.duration or scen.duration_s
    if scen.skipped:
        print("rtsim: not run in real time (TCP needs a kernel path: tools/kbench): " +
              ", ".join(f.name for f in scen.skipped), file=sys.stderr)

    r = Runner(scen, args.controller, args.seed, urcp_names, args.content)
    wall0 = time.monotonic()
    try:
        r.run_scenario(duration)
    except KeyboardInterrupt:
        r.stop()
        die("interrupted", 130)
    wall = round(time.monotonic() - wall0, 1)
    log = args.log
    if not log:
        fd, log = tempfile.mkstemp(prefix="rtsim-", suffix=".log")
        os.close(fd)
    try:
        r.write_log(log)
        res = rp.rcsim_metrics(rcsim, scen, log, duration, args)
    finally:
        if not args.log:
            os.unlink(log)
    realtime = {"mode": "rtsim", "content": args.content or "scenario",
                "skipped_flows": [f.name for f in scen.skipped],
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
