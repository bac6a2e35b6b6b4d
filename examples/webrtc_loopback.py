#!/usr/bin/python3
"""Two webrtcbins in one process, a VP8 sender and a receiver, with
urcpsender in the sender's aux-sender slot driving vp8enc from the
transport-wide-cc feedback the receiver's webrtcbin sends.

    GST_PLUGIN_PATH=build/gst examples/webrtc_loopback.py [--seconds 20]

What it shows an application developer:
  * `request-aux-sender` on the sending webrtcbin returns urcpsender; it
    finds vp8enc upstream by itself and follows the feedback.
  * TWCC is negotiated only when both sides ask for it: the payloader's caps
    carry the transport-wide-cc extmap (so the offer has it), and the
    answerer adds its receive transceiver with caps carrying the same extmap
    before it takes the offer (so the answer keeps it).
  * notify::target-bitrate tells the application each new target.

Needs gstreamer1.0-nice (ICE) and gir1.2-gst-plugins-bad-1.0 (GstWebRTC for
Python); scripts/setup.sh installs both. The signalling is two function
calls here; a real application sends the SDP and candidates over its own
channel."""

import argparse
import sys

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstSdp", "1.0")
gi.require_version("GstWebRTC", "1.0")
from gi.repository import GLib, Gst, GstSdp, GstWebRTC  # noqa: E402

TWCC_URI = ("http://www.ietf.org/id/"
            "draft-holmer-rmcat-transport-wide-cc-extensions-01")
RTP_CAPS = ("application/x-rtp,media=video,encoding-name=VP8,payload=96,"
            "clock-rate=90000,extmap-1=(string)\"%s\"" % TWCC_URI)

SENDER = (
    "videotestsrc is-live=true pattern=snow ! "
    "video/x-raw,width=320,height=240,framerate=30/1 ! "
    "vp8enc name=enc deadline=1 ! rtpvp8pay pt=96 mtu=1200 ! "
    "capsfilter caps=\"%s\" ! webrtcbin name=send bundle-policy=max-bundle "
    "webrtcbin name=recv bundle-policy=max-bundle" % RTP_CAPS.replace(
        '"', '\\"'))


class Loopback:
    """The pipeline and its signalling. `samples` collects one
    (seconds, urcpsender target, vp8enc target-bitrate, stats) per tick."""

    def __init__(self, controller="urcp", on_target=None):
        self.pipeline = Gst.parse_launch(SENDER)
        self.send = self.pipeline.get_by_name("send")
        self.recv = self.pipeline.get_by_name("recv")
        self.enc = self.pipeline.get_by_name("enc")
        self.rc = None
        self.controller = controller
        self.on_target = on_target
        self.samples = []
        self.errors = []
        self.warnings = []
        self.send.connect("request-aux-sender", self._aux_sender)
        self.send.connect("on-negotiation-needed", self._negotiate)
        self.send.connect("on-ice-candidate", self._candidate, self.recv)
        self.recv.connect("on-ice-candidate", self._candidate, self.send)
        self.recv.connect("pad-added", self._recv_pad)
        # The answerer's transceiver, with the TWCC extmap in its caps.
        self.recv.emit("add-transceiver",
                       GstWebRTC.WebRTCRTPTransceiverDirection.RECVONLY,
                       Gst.Caps.from_string(RTP_CAPS))

    # -- the sender's aux sender: urcpsender -----------------------------
    def _aux_sender(self, webrtc, transport):
        self.rc = Gst.ElementFactory.make("urcpsender", "rc")
        if self.rc is None:
            raise RuntimeError("urcpsender not found: set GST_PLUGIN_PATH")
        self.rc.set_property("controller", self.controller)
        if self.on_target:
            self.rc.connect("notify::target-bitrate", self.on_target)
        return self.rc

    # -- signalling ------------------------------------------------------
    def _negotiate(self, webrtc):
        promise = Gst.Promise.new_with_change_func(self._offer_made, None)
        self.send.emit("create-offer", None, promise)

    def _offer_made(self, promise, _):
        reply = promise.get_reply()
        offer = reply.get_value("offer") if reply else None
        if offer is None:
            self.errors.append("no offer: %s" % reply)
            return
        self.send.emit("set-local-description", offer, None)
        self.recv.emit("set-remote-description", offer, None)
        promise = Gst.Promise.new_with_change_func(self._answer_made, None)
        self.recv.emit("create-answer", None, promise)

    def _answer_made(self, promise, _):
        reply = promise.get_reply()
        answer = reply.get_value("answer") if reply else None
        if answer is None:
            self.errors.append("no answer: %s" % reply)
            return
        self.recv.emit("set-local-description", answer, None)
        self.send.emit("set-remote-description", answer, None)
        self.answer_sdp = answer.sdp.as_text()

    def _candidate(self, webrtc, mline, candidate, other):
        other.emit("add-ice-candidate", mline, candidate)

    def _recv_pad(self, webrtc, pad):
        if pad.get_direction() != Gst.PadDirection.SRC:
            return
        sink = Gst.ElementFactory.make("fakesink", None)
        sink.set_property("async", False)
        self.pipeline.add(sink)
        sink.sync_state_with_parent()
        pad.link(sink.get_static_pad("sink"))

    # -- running ---------------------------------------------------------
    def sample(self, t):
        if self.rc is None:
            self.samples.append((t, None, self.enc.get_property(
                "target-bitrate"), None))
            return
        self.samples.append((t, self.rc.get_property("target-bitrate"),
                             self.enc.get_property("target-bitrate"),
                             self.rc.get_property("stats")))

    def run(self, seconds, tick=0.5, verbose=False):
        loop = GLib.MainLoop()
        bus = self.pipeline.get_bus()
        bus.add_signal_watch()

        def on_message(_, msg):
            if msg.type == Gst.MessageType.ERROR:
                err, dbg = msg.parse_error()
                self.errors.append("%s (%s)" % (err.message, dbg))
                loop.quit()
            elif msg.type == Gst.MessageType.WARNING:
                err, _dbg = msg.parse_warning()
                self.warnings.append(err.message)

        bus.connect("message", on_message)
        state = {"t": 0.0}

        def on_tick():
            state["t"] += tick
            self.sample(state["t"])
            if verbose:
                t, target, enc, _ = self.samples[-1]
                print("%5.1f s  urcpsender %s  vp8enc %d bit/s" % (
                    t, "-" if target is None else "%d bit/s" % target, enc),
                    flush=True)
            if state["t"] >= seconds:
                loop.quit()
                return False
            return True

        self.pipeline.set_state(Gst.State.PLAYING)
        GLib.timeout_add(int(tick * 1000), on_tick)
        loop.run()
        self.pipeline.set_state(Gst.State.NULL)
        bus.remove_signal_watch()
        return self.samples


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--controller", default="urcp")
    args = ap.parse_args()
    Gst.init(None)
    lb = Loopback(args.controller)
    lb.run(args.seconds, tick=1.0, verbose=True)
    for e in lb.errors:
        print("error:", e, file=sys.stderr)
    for w in lb.warnings:
        print("warning:", w, file=sys.stderr)
    return 1 if lb.errors else 0


if __name__ == "__main__":
    sys.exit(main())
