#!/usr/bin/python3
"""Soak: long runs that show whether memory or queues grow without bound.

    benchmarks/soak.py sim  [--hours H]    rcsim, every shipped scenario
    benchmarks/soak.py real [--minutes M]  a real pipeline (needs GST_PLUGIN_PATH=build/gst)

sim: every scenario in tests/scenarios runs for H hours of simulated time
(default 1; `rcsim --duration` keeps the flows that ran to the end running)
and for a tenth of that; the table gives rcsim's peak RSS for both, the
largest pacing queue of any media flow (packets and ms, from the 200 ms CSV)
and the circuit breaker's trips.

real: vp8enc (640x480, 30 fps, scrolling pattern) -> urcpsender -> rtpbin
with TWCC -> UDP -> linksim (2 Mbit/s, 300 ms queue, 30 ms delay, normal
delay noise 5 ms, 1 % random loss) -> rtpbin receiver; its RTCP goes back
through a second linksim that loses everything for 3 s at 60 s, 5 s at
200 s and 30 s at 400 s (the circuit breaker trips in that one), and again
every 600 s after. linksim keeps each flow in order, so there is no
reordering (see docs/linksim.md). Every 10 s it samples the process's RSS,
urcpsender's target, state, pacing queue and breaker counts, linksim's
queue, and prints them; at the end a summary: RSS at the end of the first
and of the last minute, the largest queues. Run nothing else meanwhile.
"""

import argparse
import csv
import glob
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RCSIM = os.path.join(ROOT, "build", "tools", "rcsim", "rcsim")
TWCC = "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"


def rcsim_run(scen, seconds, csv_dir):
    """Runs rcsim; returns its peak RSS in MiB, as rcsim --bench reports it
    (a child's rusage would count this Python process's RSS at the fork)."""
    p = subprocess.run([RCSIM, scen, "--duration", str(seconds), "--csv", csv_dir, "--bench"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    m = re.search(r"peak RSS ([0-9.]+) MiB", p.stderr)
    if p.returncode != 0 or not m:
        sys.exit(f"rcsim {scen}: failed\n{p.stderr}")
    return float(m.group(1))


def media_queues(csv_dir):
    """Largest pacing queue (packets, ms) and breaker trips over the media flows."""
    pk, ms, trips = 0, 0.0, 0
    for path in glob.glob(os.path.join(csv_dir, "flow-*.csv")):
        with open(path) as f:
            rows = list(csv.DictReader(f))
        if not rows or "pacing-queue-packets" not in rows[0]:
            continue
        for r in rows:
            if r["pacing-queue-packets"]:
                pk = max(pk, int(float(r["pacing-queue-packets"])))
                ms = max(ms, float(r["pacing-queue-time"]) / 1e6)
        if rows[-1].get("circuit-breaker-trips"):
            trips += int(float(rows[-1]["circuit-breaker-trips"]))
    return pk, ms, trips


def soak_sim(hours):
    long_s = int(hours * 3600)
    short_s = long_s // 10
    print(f"rcsim soak: {long_s} s simulated per scenario (and {short_s} s for comparison)\n")
    print(f"| scenario | RSS {short_s} s (MiB) | RSS {long_s} s (MiB) | largest pacing queue (packets / ms) | breaker trips |")
    print("|---|---|---|---|---|")
    for scen in sorted(glob.glob(os.path.join(ROOT, "tests", "scenarios", "*.ini"))):
        name = os.path.basename(scen)[:-4]
        with tempfile.TemporaryDirectory() as d1, tempfile.TemporaryDirectory() as d2:
            rss_short = rcsim_run(scen, short_s, d1)
            rss_long = rcsim_run(scen, long_s, d2)
            pk, ms, trips = media_queues(d2)
        print(f"| {name} | {rss_short:.1f} | {rss_long:.1f} | {pk} / {ms:.0f} | {trips} |", flush=True)


def soak_real(minutes, episodes=None):
    import gi
    gi.require_version("Gst", "1.0")
    from gi.repository import Gst, GLib
    Gst.init(None)
    if not Gst.ElementFactory.find("urcpsender"):
        sys.exit("urcpsender not found: run with GST_PLUGIN_PATH=build/gst")

    ext = f'extmap-1=(string)"{TWCC}"'
    caps = f"application/x-rtp,media=video,clock-rate=90000,encoding-name=VP8,payload=96,{ext}"
    duration = int(minutes * 60)
    if episodes is None:
        eps = []
        for base in range(0, duration, 600):
            eps += [(base + 60, base + 63), (base + 200, base + 205), (base + 400, base + 430)]
        episodes = ",".join(f"{a}:{b}" for a, b in eps if a < duration)
    desc = (
        # sender
        "rtpbin name=snd "
        "videotestsrc is-live=true pattern=smpte horizontal-speed=4 ! "
        "video/x-raw,width=640,height=480,framerate=30/1 ! "
        "vp8enc name=enc deadline=1 ! rtpvp8pay pt=96 ! "
        f"application/x-rtp,{ext} ! urcpsender name=rc ! snd.send_rtp_sink_0 "
        "snd.send_rtp_src_0 ! udpsink name=rtp_out host=127.0.0.1 sync=false "
        "snd.send_rtcp_src_0 ! udpsink name=rtcp_out host=127.0.0.1 sync=false async=false "
        "udpsrc name=rtcp_in port=0 ! snd.recv_rtcp_sink_0 "
        # the path and the receiver
        f"udpsrc name=rtp_in port=0 caps=\"{caps}\" ! "
        "linksim name=fwd capacity=2000000 queue-limit-ms=300 delay=30000000 "
        "noise-distribution=normal noise-mean=5000000 noise-stddev=2000000 "
        "loss-model=bernoulli loss-rate=0.01 timestamp=true ! rcv.recv_rtp_sink_0 "
        "rtpbin name=rcv rcv. ! rtpvp8depay ! fakesink sync=false async=false "
        "udpsrc name=rtcp_rin port=0 ! rcv.recv_rtcp_sink_0 "
        "rcv.send_rtcp_src_0 ! linksim name=back "
        + (f"loss-episodes={episodes} " if episodes else "") + "! "
        "udpsink name=rtcp_back host=127.0.0.1 sync=false async=false"
    )
    pipe = Gst.parse_launch(desc)
    pipe.set_state(Gst.State.READY)

    def port(name):
        return pipe.get_by_name(name).get_property("port")

    # udpsrc with port 0 binds at READY and then reads back its port.
    for src, sink in (("rtp_in", "rtp_out"), ("rtcp_rin", "rtcp_out"), ("rtcp_in", "rtcp_back")):
        pipe.get_by_name(sink).set_property("port", port(src))

    rc, fwd = pipe.get_by_name("rc"), pipe.get_by_name("fwd")
    loop = GLib.MainLoop()
    samples, messages, errors = [], [], []
    t0 = [None]

    def rss_mib():
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024.0
        return 0.0

    def on_message(bus, msg):
        if msg.type == Gst.MessageType.ERROR:
            errors.append(msg.parse_error()[0].message)
            loop.quit()
        elif msg.type == Gst.MessageType.ELEMENT and msg.get_structure().get_name() == "urcpsender-circuit-breaker":
            st = msg.get_structure()
            messages.append((GLib.get_monotonic_time() / 1e6 - t0[0], st.get_value("tripped")))

    def sample():
        t = GLib.get_monotonic_time() / 1e6 - t0[0]
        st = rc.get_property("stats")
        ls = fwd.get_property("stats")
        row = {
            "t": t, "rss": rss_mib(), "target": st.get_value("target-bitrate") / 1000,
            "state": st.get_value("state"), "queue_pk": st.get_value("pacing-queue-packets"),
            "queue_ms": st.get_value("pacing-queue-time") / 1e6, "trips": st.get_value("circuit-breaker-trips"),
            "dropped": st.get_value("circuit-breaker-dropped"),
            "link_q": ls.get_value("queue-bytes"),
        }
        samples.append(row)
        print(f"{t:6.0f} s  RSS {row['rss']:6.1f} MiB  target {row['target']:6.0f} kbit/s  "
              f"{row['state']:<16} pacing queue {row['queue_pk']:4d} pkts {row['queue_ms']:6.1f} ms  "
              f"link queue {row['link_q']:6d} B  trips {row['trips']}  dropped {row['dropped']}", flush=True)
        if t >= duration - 0.5:
            loop.quit()
            return False
        return True

    bus = pipe.get_bus()
    bus.add_signal_watch()
    bus.connect("message", on_message)
    pipe.set_state(Gst.State.PLAYING)
    t0[0] = GLib.get_monotonic_time() / 1e6
    GLib.timeout_add_seconds(10, sample)
    print(f"real soak: {duration} s, feedback outages at {episodes}\n")
    loop.run()
    pipe.set_state(Gst.State.NULL)
    if errors:
        sys.exit(f"error: {errors[0]}")
    first = [s for s in samples if s["t"] <= 60]
    last = [s for s in samples if s["t"] >= duration - 60]
    print("\nsummary")
    print(f"  RSS: {first[-1]['rss']:.1f} MiB after 1 min, {last[-1]['rss']:.1f} MiB at the end "
          f"(max {max(s['rss'] for s in samples):.1f})")
    print(f"  pacing queue: max {max(s['queue_pk'] for s in samples)} packets, "
          f"{max(s['queue_ms'] for s in samples):.1f} ms (10 s samples)")
    print(f"  linksim queue: max {max(s['link_q'] for s in samples)} bytes")
    print(f"  circuit breaker: {samples[-1]['trips']} trips, {samples[-1]['dropped']} packets not admitted; "
          f"messages at " + ", ".join(f"{t:.0f} s ({'tripped' if tr else 'reset'})" for t, tr in messages))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=["sim", "real"])
    ap.add_argument("--hours", type=float, default=1.0)
    ap.add_argument("--minutes", type=float, default=10.0)
    ap.add_argument("--episodes", help="real: the feedback outages instead, FROM:TO,... in s")
    a = ap.parse_args()
    if a.what == "sim":
        soak_sim(a.hours)
    else:
        soak_real(a.minutes, a.episodes)


if __name__ == "__main__":
    main()
