"""urcpsender put where it only gets linked while the pipeline is PLAYING,
with real vp8enc, rtpbin or webrtcbin, real UDP (or ICE on loopback) and a
receiver sending transport-wide-cc feedback:

  aux-rtpbin   returned from rtpbin's request-aux-sender for a session made
               while PLAYING
  late-rtpbin  in front of rtpbin's send_rtp_sink_0, the branch and the
               session both made while PLAYING
  webrtcbin    returned from the sending webrtcbin's request-aux-sender (two
               webrtcbins in one process, examples/webrtc_loopback.py)

In each, urcpsender must find vp8enc and the RTP session by itself, get
feedback, and vp8enc's target-bitrate must follow urcpsender's.

  rr-running-time  late-rtpbin without TWCC (receiver reports only) and the
               sending rtpbin's ntp-time-source=running-time: the RTT must
               come from rtpsession (whose SRs carry running time), not from
               the wall clock.

    test_dynamic.py EXAMPLES_DIR [CASE...]
"""
import os
import socket
import sys

import gi

gi.require_version("Gst", "1.0")
from gi.repository import GLib, Gst  # noqa: E402

TWCC_URI = ("http://www.ietf.org/id/"
            "draft-holmer-rmcat-transport-wide-cc-extensions-01")
RTP_CAPS = ("application/x-rtp,media=video,encoding-name=VP8,payload=96,"
            "clock-rate=90000,extmap-1=(string)\"%s\"" % TWCC_URI)
SOURCE = ("videotestsrc is-live=true pattern=snow ! "
          "video/x-raw,width=320,height=240,framerate=30/1 ! "
          "vp8enc name=enc deadline=1 ! rtpvp8pay pt=96 mtu=1200 ! "
          "capsfilter caps=\"%s\"" % RTP_CAPS.replace('"', '\\"'))
LATE_AT = 0.5       # s after PLAYING when the sender is put in
RUN_FOR = 7.0       # s of run in all
TICK = 0.25


def fail(msg):
    print("FAIL:", msg, flush=True)
    sys.exit(1)


def free_udp_ports(n):
    socks = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
             for _ in range(n)]
    for s in socks:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


class RtpbinCase:
    """A receiving rtpbin playing from the start; the sending rtpbin has no
    session until LATE_AT, when the sender branch is added and linked."""

    def __init__(self, aux, twcc=True, ntp_time_source=None):
        self.aux = aux
        caps = RTP_CAPS if twcc else RTP_CAPS.split(",extmap")[0]
        rtp, rtcp_to_recv, rtcp_to_send = free_udp_ports(3)
        self.ports = (rtp, rtcp_to_recv, rtcp_to_send)
        self.pipeline = Gst.parse_launch(
            "rtpbin name=srtp rtpbin name=rrtp "
            "udpsrc port=%d caps=\"%s\" ! rrtp.recv_rtp_sink_0 "
            "udpsrc port=%d ! rrtp.recv_rtcp_sink_0 "
            "rrtp.send_rtcp_src_0 ! udpsink host=127.0.0.1 port=%d "
            "sync=false async=false" % (rtp, caps.replace('"', '\\"'),
                                        rtcp_to_recv, rtcp_to_send))
        self.rrtp = self.pipeline.get_by_name("rrtp")
        self.srtp = self.pipeline.get_by_name("srtp")
        if ntp_time_source:
            self.srtp.set_property("ntp-time-source", ntp_time_source)
        # Receiver reports every ~0.5 s instead of ~5 s, so a short run
        # has several.
        self.rrtp.emit("get-internal-session", 0).set_property(
            "rtcp-min-interval", 500 * Gst.MSECOND)
        self.source = SOURCE if twcc else SOURCE.replace(
            RTP_CAPS.replace('"', '\\"'), caps)
        self.rrtp.connect("pad-added", self._recv_pad)
        self.rc = None
        self.enc = None

    def _recv_pad(self, rtpbin, pad):
        if not pad.get_name().startswith("recv_rtp_src_"):
            return
        sink = Gst.ElementFactory.make("fakesink", None)
        sink.set_property("async", False)
        self.pipeline.add(sink)
        sink.sync_state_with_parent()
        pad.link(sink.get_static_pad("sink"))

    def _aux_sender(self, rtpbin, session):
        bin_ = Gst.Bin.new("aux%u" % session)
        self.rc = Gst.ElementFactory.make("urcpsender", "rc")
        bin_.add(self.rc)
        bin_.add_pad(Gst.GhostPad.new("sink_%u" % session,
                                      self.rc.get_static_pad("sink")))
        bin_.add_pad(Gst.GhostPad.new("src_%u" % session,
                                      self.rc.get_static_pad("src")))
        return bin_

    def add_sender(self):
        rtp, rtcp_to_recv, rtcp_to_send = self.ports
        desc = self.source + ("" if self.aux else " ! urcpsender name=rc")
        src = Gst.parse_bin_from_description(desc, True)
        self.enc = src.get_by_name("enc")
        if not self.aux:
            self.rc = src.get_by_name("rc")
        rtpsink = Gst.parse_bin_from_description(
            "udpsink host=127.0.0.1 port=%d sync=false async=false" % rtp,
            True)
        rtcpsink = Gst.parse_bin_from_description(
            "udpsink host=127.0.0.1 port=%d sync=false async=false"
            % rtcp_to_recv, True)
        rtcpsrc = Gst.ElementFactory.make("udpsrc", None)
        rtcpsrc.set_property("port", rtcp_to_send)
        for e in (src, rtpsink, rtcpsink, rtcpsrc):
            self.pipeline.add(e)
        if self.aux:
            self.srtp.connect("request-aux-sender", self._aux_sender)
        sink = self.srtp.request_pad_simple("send_rtp_sink_0")
        if src.get_static_pad("src").link(sink) != Gst.PadLinkReturn.OK:
            fail("cannot link the sender to send_rtp_sink_0")
        if not self.srtp.get_static_pad("send_rtp_src_0").link(
                rtpsink.get_static_pad("sink")) == Gst.PadLinkReturn.OK:
            fail("cannot link send_rtp_src_0")
        self.srtp.request_pad_simple("send_rtcp_src_0").link(
            rtcpsink.get_static_pad("sink"))
        rtcpsrc.get_static_pad("src").link(
            self.srtp.request_pad_simple("recv_rtcp_sink_0"))
        for e in (rtpsink, rtcpsink, rtcpsrc, src):
            e.sync_state_with_parent()
        return False


class WebrtcCase:
    def __init__(self, examples):
        sys.path.insert(0, examples)
        import webrtc_loopback
        self.lb = webrtc_loopback.Loopback()
        self.pipeline = self.lb.pipeline
        self.enc = self.lb.enc

    @property
    def rc(self):
        return self.lb.rc

    def add_sender(self):
        return False    # webrtcbin asks for its aux sender when it needs it


def run(case):
    errors, warnings, samples = [], [], []
    published = []     # (monotonic s, value) at each notify::target-bitrate
    hooked = {"rc": None}
    loop = GLib.MainLoop()
    bus = case.pipeline.get_bus()
    bus.add_signal_watch()

    def on_message(_, msg):
        if msg.type == Gst.MessageType.ERROR:
            err, dbg = msg.parse_error()
            errors.append("%s (%s)" % (err.message, dbg))
            loop.quit()
        elif msg.type == Gst.MessageType.WARNING:
            err, _ = msg.parse_warning()
            warnings.append(err.message)

    bus.connect("message", on_message)
    state = {"t": 0.0}

    def on_target(rc, _pspec):
        published.append((GLib.get_monotonic_time() / 1e6,
                          rc.get_property("target-bitrate")))

    def tick():
        if case.rc is not None and hooked["rc"] is not case.rc:
            hooked["rc"] = case.rc
            case.rc.connect("notify::target-bitrate", on_target)
            # What it sets at start, before we listened.
            published.append((GLib.get_monotonic_time() / 1e6,
                              case.rc.get_property("start-bitrate")))
        state["t"] += TICK
        if case.rc is not None and case.enc is not None:
            samples.append((GLib.get_monotonic_time() / 1e6,
                            case.rc.get_property("target-bitrate"),
                            case.enc.get_property("target-bitrate")))
        if state["t"] >= RUN_FOR:
            loop.quit()
            return False
        return True

    if case.pipeline.set_state(Gst.State.PLAYING) == \
            Gst.StateChangeReturn.FAILURE:
        fail("pipeline does not start")
    GLib.timeout_add(int(LATE_AT * 1000), case.add_sender)
    GLib.timeout_add(int(TICK * 1000), tick)
    loop.run()
    stats = case.rc.get_property("stats") if case.rc else None
    case.pipeline.set_state(Gst.State.NULL)
    bus.remove_signal_watch()
    return errors, warnings, samples, stats, published


def check(name, case):
    errors, warnings, samples, stats, published = run(case)
    if errors:
        fail("%s: %s" % (name, errors))
    if case.rc is None:
        fail("%s: urcpsender was never put in" % name)
    print("%s: stats %s" % (name, stats.to_string()), flush=True)
    if stats.get_string("encoder") != "enc":
        fail("%s: urcpsender did not find vp8enc (encoder=%r)"
             % (name, stats.get_string("encoder")))
    if not stats.get_string("rtp-session"):
        fail("%s: urcpsender did not find the RTP session" % name)
    ok, twcc = stats.get_uint64("twcc-events")
    if not ok or twcc == 0:
        fail("%s: no transport-wide-cc feedback reached urcpsender" % name)
    if any("encoder" in w for w in warnings):
        fail("%s: warned about the encoder: %s" % (name, warnings))
    # Each time vp8enc's target is read once urcpsender runs, it is one that
    # urcpsender published (notify::target-bitrate) in the second before,
    # to the 1 kbit/s vp8enc keeps. (Compared read for read the two can
    # differ: urcpsender's session decides before the encoder is set.)
    # urcpsender's own target-bitrate, read just before the encoder in the
    # same tick, counts as published too: the notify handler runs on the
    # streaming thread and, waiting for Python's lock, can stamp its value
    # after the tick that already saw the encoder hold it (CI, 11889000 at
    # 4.26 s with urcpsender reading 11889098 and no notify stamped yet).
    start = samples[0][0] if samples else 0
    driven = [(t, r, e) for t, r, e in samples if t - start > 1.0]
    if len(driven) < 10:
        fail("%s: only %d samples" % (name, len(driven)))
    def recent(t):
        """What urcpsender published in the second before t, and the last
        value it published before that (still the encoder's if none
        since)."""
        before = [v for pt, v in published if pt <= t]
        return [v for pt, v in published if t - 1.0 <= pt <= t + 0.05] + \
            before[-1:]

    off = [(round(t - start, 2), r, e) for t, r, e in driven
           if not any(abs(v - e) < 1000 for v in recent(t) + [r])]
    if off:
        fail("%s: vp8enc holds targets urcpsender did not publish: %s"
             % (name, off))
    # ... and the controller moved it away from the start more than once.
    if len({e for _, _, e in driven}) < 3:
        fail("%s: the target never moved: %s" % (name, driven))
    print("%s: OK, vp8enc followed %d targets from %d to %d bit/s"
          % (name, len({e for _, _, e in driven}), driven[0][2],
             driven[-1][2]), flush=True)


def check_rr_rtt(name, case):
    errors, warnings, samples, stats, _ = run(case)
    if errors:
        fail("%s: %s" % (name, errors))
    print("%s: stats %s" % (name, stats.to_string()), flush=True)
    ok, rr = stats.get_uint64("rr-reports")
    if not ok or rr < 3:
        fail("%s: %d receiver reports reached urcpsender" % (name, rr))
    ok, rtt = stats.get_uint64("rtt")
    rtt = rtt / Gst.MSECOND if ok and rtt != Gst.CLOCK_TIME_NONE else -1
    # Loopback: well under 50 ms. Wall-clock arithmetic on running-time LSRs
    # gives no RTT at all or nonsense.
    if not 0 <= rtt < 50:
        fail("%s: RTT %.3f ms is not rtpsession's" % (name, rtt))
    print("%s: OK, RTT %.3f ms from %d receiver reports" % (name, rtt, rr),
          flush=True)


def main():
    examples = sys.argv[1]
    cases = sys.argv[2:] or ["aux-rtpbin", "late-rtpbin", "webrtcbin",
                             "rr-running-time"]
    Gst.init(None)
    if Gst.ElementFactory.find("urcpsender") is None:
        fail("urcpsender not found; GST_PLUGIN_PATH?")
    for name in cases:
        if name == "webrtcbin":
            if Gst.ElementFactory.find("nicesrc") is None:
                fail("webrtcbin needs gstreamer1.0-nice (scripts/setup.sh "
                     "installs it)")
            check(name, WebrtcCase(examples))
        elif name == "rr-running-time":
            check_rr_rtt(name, RtpbinCase(False, twcc=False,
                                          ntp_time_source="running-time"))
        else:
            check(name, RtpbinCase(aux=(name == "aux-rtpbin")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
