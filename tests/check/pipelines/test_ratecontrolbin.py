"""ratecontrolbin and ratecontrolrecv over real UDP with linksim between
them, as the README's one-liners run them (with pipelines/linksim-relay.sh
in the middle): a 1 Mbit/s bottleneck with 20 ms each way.

  - the receiver decodes video; the sender's urcpsender drives vp8enc from
    the receiver's transport-wide feedback and settles near the capacity,
    not at its 3 Mbit/s maximum; fecenc sends repair packets; with URCP
    and with FRACTaL, whose FEC probes go to fecenc and raise the rate;
  - an encoder ratecontrolbin cannot use fails the state change with an
    error that names it;
  - EOS sent while playing (what `gst-launch-1.0 -e` does on Ctrl-C) comes
    out as the pipeline's EOS message, 20 times in a row: rtpbin 1.22 can
    lose the RTCP side's EOS, and the bin guards against it.
"""
import random
import socket
import struct
import sys

import gi

gi.require_version("Gst", "1.0")
from gi.repository import GLib, Gst  # noqa: E402

CAPACITY = 1000000
RUN_FOR = 15.0


def fail(msg):
    print("FAIL:", msg, flush=True)
    sys.exit(1)


def free_bases():
    """Two port bases whose +0, +1 and +5 are all free."""
    def free(base):
        socks = []
        try:
            for off in (0, 1, 5):
                s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                socks.append(s)
                s.bind(("127.0.0.1", base + off))
            return True
        except OSError:
            return False
        finally:
            for s in socks:
                s.close()
    found = []
    while len(found) < 2:
        base = random.randrange(20000, 60000, 10)
        if free(base) and base not in found:
            found.append(base)
    return found


def xr_post_repair_blocks(data):
    """The RFC 7509 blocks (XR BT 33) of one compound RTCP packet, as
    (reporter, media SSRC, begin, end, unrepaired, repaired), each checked
    against RFC 3611 sec. 2-3 and RFC 7509 sec. 3 (lengths in 32-bit words
    minus one, the block length 3)."""
    out, off = [], 0
    while off + 4 <= len(data):
        v, pt = data[off] >> 6, data[off + 1]
        plen = 4 + 4 * struct.unpack_from("!H", data, off + 2)[0]
        if v != 2 or off + plen > len(data):
            fail("bad RTCP packet at byte %d: %s" % (off, data.hex()))
        if pt == 207:
            reporter = struct.unpack_from("!I", data, off + 4)[0]
            b = off + 8
            while b < off + plen:
                bt, blen = data[b], struct.unpack_from("!H", data, b + 2)[0]
                if bt == 33:
                    if blen != 3:
                        fail("RFC 7509 block length %d, not 3" % blen)
                    ssrc, begin, end, unrep, rep = struct.unpack_from(
                        "!IHHHH", data, b + 4)
                    n = (end - begin) & 0xffff
                    if n == 0 or unrep + rep > n:
                        fail("RFC 7509 block %d..%d claims %d unrepaired and "
                             "%d repaired" % (begin, end, unrep, rep))
                    out.append((reporter, ssrc, begin, end, unrep, rep))
                b += 4 + 4 * blen
        off += plen
    return out


def run_bottleneck(controller, loss=0.0, noise_ms=0):
    inp, out = free_bases()
    recv = Gst.parse_launch(
        "ratecontrolrecv name=rx port=%d ! identity name=frames ! "
        "fakesink sync=false" % out)
    relay = Gst.parse_launch(
        "linksim name=fwd capacity=%d delay=20000000 queue-limit-ms=300 "
        "loss-model=%s loss-rate=%f %s "
        "udpsrc port=%d ! fwd.sink_0 fwd.src_0 ! "
        "udpsink host=127.0.0.1 port=%d sync=false async=false "
        "udpsrc port=%d ! fwd.sink_1 fwd.src_1 ! "
        "udpsink host=127.0.0.1 port=%d sync=false async=false "
        "linksim name=back delay=20000000 "
        "udpsrc name=feedback port=%d ! back.sink_0 back.src_0 ! "
        "udpsink host=127.0.0.1 port=%d sync=false async=false"
        % (CAPACITY, "bernoulli" if loss > 0 else "none", loss,
           "noise-distribution=exponential noise-mean=%d noise-max=%d "
           "noise-interval=10000000" % (noise_ms * 1000000,
                                        10 * noise_ms * 1000000)
           if noise_ms else "",
           inp, out, inp + 1, out + 1, out + 5, inp + 5))
    blocks = []

    def on_feedback(_pad, info):
        buf = info.get_buffer()
        blocks.extend(xr_post_repair_blocks(buf.extract_dup(0, buf.get_size())))
        return Gst.PadProbeReturn.OK
    relay.get_by_name("feedback").get_static_pad("src").add_probe(
        Gst.PadProbeType.BUFFER, on_feedback)
    send = Gst.parse_launch(
        "videotestsrc is-live=true pattern=snow ! "
        "video/x-raw,width=320,height=240,framerate=30/1 ! "
        "ratecontrolbin name=tx port=%d max-bitrate=3000000 controller=%s"
        % (inp, controller))
    tx = send.get_by_name("tx")
    frames = {"n": 0}
    recv.get_by_name("frames").connect(
        "handoff", lambda *a: frames.__setitem__("n", frames["n"] + 1))
    errors, samples = [], []
    loop = GLib.MainLoop()

    def on_message(_, msg):
        if msg.type == Gst.MessageType.ERROR:
            err, dbg = msg.parse_error()
            errors.append("%s: %s (%s)" % (msg.src.get_name(), err.message,
                                           dbg))
            loop.quit()

    for p in (recv, relay, send):
        bus = p.get_bus()
        bus.add_signal_watch()
        bus.connect("message", on_message)
    t = {"s": 0.0}

    def tick():
        t["s"] += 0.5
        samples.append((t["s"], tx.get_property("target-bitrate")))
        if t["s"] >= RUN_FOR:
            loop.quit()
            return False
        return True

    for p in (recv, relay, send):
        if p.set_state(Gst.State.PLAYING) == Gst.StateChangeReturn.FAILURE:
            fail("a pipeline did not start")
    GLib.timeout_add(500, tick)
    loop.run()
    stats = tx.get_property("stats")
    fec = tx.get_property("fec-stats")
    rx_fec = recv.get_by_name("rx").get_property("fec-stats")
    for p in (send, relay, recv):
        p.set_state(Gst.State.NULL)
        p.get_bus().remove_signal_watch()
    # read after the stop: nothing is sent any more
    pr_sent = recv.get_by_name("rx").get_property("post-repair-sent")
    if errors:
        fail("errors: %s" % errors)
    print("stats:", stats.to_string(), flush=True)
    print("fec:", fec.to_string(), flush=True)
    ok, twcc = stats.get_uint64("twcc-events")
    if not ok or twcc < 50:
        fail("only %d transport-wide feedback events" % twcc)
    if stats.get_string("encoder") != "encoder":
        fail("urcpsender does not drive the bin's encoder: %r"
             % stats.get_string("encoder"))
    if frames["n"] < 50:
        fail("the receiver decoded only %d frames in %.0f s"
             % (frames["n"], RUN_FOR))
    ok, repair = fec.get_uint64("fec-packets")
    if not ok or repair == 0:
        fail("fecenc sent no repair packets")
    if controller == "fractal":
        # FRACTaL probes with FEC: urcpsender's probe requests reached
        # fecenc (its probe-bitrate), and the probes raised the rate.
        ok, probes = stats.get_uint64("probes")
        ok2, increases = stats.get_uint64("increases")
        if not ok or probes == 0 or not ok2 or increases == 0:
            fail("no FEC probe passed: probes %s, increases %s"
                 % (probes, increases))
    if controller == "vtum":
        # vtum learned its congestion threshold from the delay noise of the
        # start-rate phase (seed 001 sec. V-A): above the 10 ms floor when
        # the link adds noise, and its rate law judged packets against it.
        ok, thr = stats.get_uint64("delay-threshold")
        ok2, n = stats.get_uint("noise-samples")
        ok3, below = stats.get_uint64("packets-below-threshold")
        if not (ok and ok2 and ok3) or n < 20 or below == 0:
            fail("vtum learned nothing: %s" % stats.to_string())
        if noise_ms and thr < 2 * noise_ms * Gst.MSECOND:
            fail("vtum's threshold %.1f ms under %d ms mean delay noise"
                 % (thr / Gst.MSECOND, noise_ms))
        print("vtum: threshold %.1f ms from %d packets (link noise mean %d "
              "ms)" % (thr / Gst.MSECOND, n, noise_ms), flush=True)
    # RFC 7509 from ratecontrolrecv (on by default): valid blocks about the
    # media stream, the ones sent are the ones seen on the wire, and where
    # the link loses packets some of them are reported.
    if not blocks or len(blocks) > pr_sent:
        fail("%d RFC 7509 blocks on the wire, %d sent" % (len(blocks), pr_sent))
    if len({b[1] for b in blocks}) != 1:
        fail("RFC 7509 blocks about several streams: %s" % blocks[:5])
    lost = sum(b[4] + b[5] for b in blocks)
    if loss > 0:
        # urcpsender read them (FRACTaL's loss after repair)
        ok, reports = stats.get_uint64("post-repair-reports")
        if controller == "fractal" and (not ok or reports == 0):
            fail("FRACTaL read no RFC 7509 report")
        if lost == 0:
            fail("%d RFC 7509 blocks, no loss in them at %.0f %% link loss"
                 % (len(blocks), 100 * loss))
        print("RFC 7509: %d blocks, %d packets lost and not repaired, %d "
              "repaired" % (len(blocks), sum(b[4] for b in blocks),
                            sum(b[5] for b in blocks)), flush=True)
        # ratecontrolrecv's fec-stats: fecdec's frame counts (FFRE) on
        # rtpvp8pay's frames.
        if rx_fec is None:
            fail("ratecontrolrecv has no fec-stats with FEC on")
        print("receiver fec-stats:", rx_fec.to_string(), flush=True)
        _, hit = rx_fec.get_uint64("frames-hit")
        _, whole = rx_fec.get_uint64("frames-recovered")
        _, ffre = rx_fec.get_double("ffre")
        _, rebuilt = rx_fec.get_uint64("recovered")
        if hit == 0 or whole > hit or abs(ffre - whole / hit) > 1e-9:
            fail("frames hit %d, made whole %d, ffre %s" % (hit, whole, ffre))
        if rebuilt >= 3 and whole == 0:
            fail("%d packets rebuilt but no frame made whole" % rebuilt)
    late = [b for s, b in samples if s >= RUN_FOR - 5]
    mean = sum(late) / len(late)
    # The bottleneck, not max-bitrate, sets the rate: media plus 10 % FEC
    # and headers fit 1 Mbit/s only below it.
    if not 0.3 * CAPACITY < mean < 1.3 * CAPACITY:
        fail("target %.0f bit/s over the last 5 s on a %d bit/s link"
             % (mean, CAPACITY))
    print("OK: %s: %d frames decoded, target %.0f bit/s on a %d bit/s link, "
          "%d repair packets" % (controller, frames["n"], mean, CAPACITY,
                                 repair), flush=True)


def bad_encoder():
    p = Gst.parse_launch("videotestsrc is-live=true ! "
                         "ratecontrolbin name=tx encoder=identity")
    ret = p.set_state(Gst.State.PLAYING)
    msg = p.get_bus().timed_pop_filtered(2 * Gst.SECOND,
                                         Gst.MessageType.ERROR)
    p.set_state(Gst.State.NULL)
    if ret != Gst.StateChangeReturn.FAILURE:
        fail("an unusable encoder did not fail the state change")
    if msg is None or "identity" not in msg.parse_error()[0].message:
        fail("no error naming the encoder: %s"
             % (msg.parse_error()[0].message if msg else None))
    print("OK: %s" % msg.parse_error()[0].message, flush=True)


def eos_runs(n=20):
    for i in range(n):
        base = free_bases()[0]
        p = Gst.parse_launch(
            "videotestsrc is-live=true ! video/x-raw,width=160,height=120,"
            "framerate=30/1 ! ratecontrolbin name=tx port=%d" % base)
        bus = p.get_bus()
        p.set_state(Gst.State.PLAYING)
        msg = bus.timed_pop_filtered(int((0.3 + (i * 137 % 400) / 1000) * Gst.SECOND),
                                     Gst.MessageType.ERROR)
        if msg:
            fail("run %d: %s" % (i, msg.parse_error()[0].message))
        p.send_event(Gst.Event.new_eos())
        msg = bus.timed_pop_filtered(10 * Gst.SECOND,
                                     Gst.MessageType.EOS | Gst.MessageType.ERROR)
        if msg is None:
            # Where the EOS stopped: the pads inside the bin that saw it.
            seen = ["%s.%s" % (e.get_name(), pad.get_name())
                    for e in p.get_by_name("tx").iterate_recurse()
                    for pad in e.iterate_pads() if pad.has_flag(Gst.PadFlags.EOS)]
            p.set_state(Gst.State.NULL)
            fail("run %d of %d: no EOS within 10 s of sending it; pads at EOS: %s"
                 % (i + 1, n, ", ".join(sorted(seen))))
        p.set_state(Gst.State.NULL)
        if msg.type == Gst.MessageType.ERROR:
            fail("run %d: %s" % (i, msg.parse_error()[0].message))
    print("OK: EOS came out %d times of %d" % (n, n), flush=True)


def eos_reuse(n=5):
    """The same pipeline played to EOS, stopped and played again: each
    time the EOS comes out."""
    base = free_bases()[0]
    p = Gst.parse_launch(
        "videotestsrc is-live=true ! video/x-raw,width=160,height=120,"
        "framerate=30/1 ! ratecontrolbin name=tx port=%d" % base)
    bus = p.get_bus()
    for i in range(n):
        p.set_state(Gst.State.PLAYING)
        bus.timed_pop_filtered(500 * Gst.MSECOND, Gst.MessageType.ERROR)
        p.send_event(Gst.Event.new_eos())
        msg = bus.timed_pop_filtered(10 * Gst.SECOND,
                                     Gst.MessageType.EOS | Gst.MessageType.ERROR)
        p.set_state(Gst.State.NULL)
        if msg is None or msg.type != Gst.MessageType.EOS:
            fail("play %d of the same pipeline: %s" % (
                i + 1, msg.parse_error()[0].message if msg else "no EOS"))
    print("OK: the same pipeline reached EOS %d times" % n, flush=True)


def main():
    Gst.init(None)
    for f in ("ratecontrolbin", "ratecontrolrecv", "linksim"):
        if Gst.ElementFactory.find(f) is None:
            fail("%s not found; GST_PLUGIN_PATH?" % f)
    bad_encoder()
    eos_runs()
    eos_reuse()
    for controller in sys.argv[1:] or ["urcp", "fractal"]:
        run_bottleneck(controller)
    # vtum on a link with delay noise (exponential, 15 ms mean): its
    # threshold comes from that noise
    run_bottleneck("vtum", noise_ms=15)
    # 2 % random loss after the queue: the receiver's RFC 7509 reports carry
    # it, and FRACTaL reads them
    run_bottleneck("fractal", loss=0.02)
    return 0


if __name__ == "__main__":
    sys.exit(main())
