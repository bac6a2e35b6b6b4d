#!/usr/bin/env python3
"""Tests of the rcsim simulator, run as a program the way users run it.

    test_rcsim.py RCSIM SCENARIO_DIR PLOT_SCRIPT TEST

One TEST per meson test (suite `tools`), so they run in parallel and fail
separately:

  determinism      same seed -> byte-identical JSON and CSV; another seed
                   -> different results on a link with noise and loss, and
                   on random short-TCP arrivals
  json-schema      --json is one object with every documented field, of the
                   documented type and range (docs/metrics.md)
  scenarios        every shipped scenario runs to the end, table and JSON
  cli              --list-controllers, --controller override, --duration,
                   --seed, and errors for bad arguments and bad files
  scenario-by-name a bare name (clean-1mbps, clean-1mbps.ini) runs the
                   scenario of RCSIM_SCENARIO_DIR (an installed rcsim's
                   default: its datadir), byte for byte as its path does;
                   a file of that name in the current directory comes
                   first; an unknown name exits 1 naming it
  csv-plot         --csv writes the documented files with a row per 200 ms
                   and the controller's stats columns; the plot script
                   turns them into a PNG (skipped without matplotlib)
  tcp-fills-link   a long TCP flow alone fills the bottleneck and builds a
                   standing queue in its 300 ms drop-tail buffer
  urcp-clean-utilization   URCP alone on a clean 1 Mbit/s, 50 ms link:
                   >= 90 % utilization (the foundation issue's acceptance)
  urcp-wimax-utilization   the same on the WiMAX-like noisy profile, mean of 10 seeds
  utilization-counts-lost  packets lost after the queue (Bernoulli,
                   Gilbert-Elliott) count as link use: a CBR flow at the
                   link's rate with 20 % loss still has utilization ~1
  trace-capacity   on a Mahimahi trace link the capacity in capacity.csv
                   and the fair share are each bin's delivery opportunities
                   (not the trace's mean), and the link never carries more
  outage           outage.ini: no capacity and no departures from 30 to
                   32 s (the queue drops what exceeds its limit, the rest
                   leaves 2 s late), no feedback at the sender from 60 to
                   63 s ([reverse] loss-episodes) while media flows
  feedback-blackout  RFC 8083's circuit breaker in feedback-blackout.ini
                   (transport-wide feedback) and feedback-blackout-rtcp.ini
                   (receiver reports only), 30 s without feedback from
                   30 s (50 s with reports only), media still flowing: trips once, 15 s (three 5 s
                   RTCP intervals) after the first packet nothing
                   confirmed, never before, target at min-bitrate then; back
                   at 90 % of the target before the blackout within 5 s of
                   the first feedback after it, seeds 1-3
  convergence-from-log  the convergence entries (changes, causes, times to
                   re-converge, nulls) of a hand-made packet log, as
                   computed here by hand
  loss-accounting  loss_pre equals the queue drops and link losses the CSV
                   counts; without FEC loss_post == loss_pre and fec_kbps
                   == 0 exactly (json-schema checks that for every run)
  from-log         --from-log on a hand-made packet log (a drop, a link loss,
                   a skipped flow): utilization, goodput, send rate,
                   queueing delay mean/p95 and loss_pre as computed here by
                   hand; a malformed log exits 1 naming its line

Only the Python standard library is needed.
"""

import contextlib
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile

SKIP = 77


class Failure(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise Failure(msg)


class Ctx:
    def __init__(self, rcsim, scen_dir, plot):
        self.rcsim = os.path.abspath(rcsim)  # some tests run it in another directory
        self.scen_dir = scen_dir
        self.plot = plot

    def scen(self, name):
        return os.path.join(self.scen_dir, name)

    def run(self, *args, expect=0, **kw):
        p = subprocess.run([self.rcsim, *args], capture_output=True, text=True, **kw)
        check(p.returncode == expect,
              f"rcsim {' '.join(args)}: exit {p.returncode}, want {expect}\n{p.stderr}")
        return p

    def json(self, *args):
        out = self.run(*args, "--json").stdout
        try:
            return json.loads(out), out
        except ValueError as e:
            raise Failure(f"rcsim {' '.join(args)} --json: not JSON ({e}):\n{out[:500]}")


@contextlib.contextmanager
def scratch(prefix):
    """A temporary directory, removed afterwards."""
    tmp = tempfile.mkdtemp(prefix=prefix)
    try:
        yield tmp
    finally:
        shutil.rmtree(tmp)


def read_csv(d, name):
    """The rows of an `rcsim --csv` file, as dicts."""
    with open(os.path.join(d, name)) as f:
        return list(csv.DictReader(f))


def read_dir(d):
    return {n: open(os.path.join(d, n), "rb").read() for n in sorted(os.listdir(d))}


def test_determinism(c):
    for name in ("noisy-wimax.ini", "rfc8867-5.7-short-tcp.ini", "rfc8867-5.3-congested-feedback.ini"):
        path = c.scen(name)
        tmp = tempfile.mkdtemp(prefix="rcsim-det-")
        try:
            a = c.run(path, "--json", "--seed", "7", "--csv", os.path.join(tmp, "a")).stdout
            b = c.run(path, "--json", "--seed", "7", "--csv", os.path.join(tmp, "b")).stdout
            check(a == b, f"{name}: same seed, different JSON")
            check(read_dir(os.path.join(tmp, "a")) == read_dir(os.path.join(tmp, "b")),
                  f"{name}: same seed, different CSV")
            t1 = c.run(path, "--seed", "7").stdout
            t2 = c.run(path, "--seed", "7").stdout
            check(t1 == t2, f"{name}: same seed, different table")
            d = c.run(path, "--json", "--seed", "8").stdout
            check(d != a, f"{name}: seeds 7 and 8 gave identical results")
        finally:
            shutil.rmtree(tmp)
    # Without noise, loss or random traffic the seed only moves the source's
    # frame sizes; the run must still be reproducible.
    a = c.run(c.scen("clean-1mbps.ini"), "--json").stdout
    b = c.run(c.scen("clean-1mbps.ini"), "--json").stdout
    check(a == b, "clean-1mbps: two runs differ")


def is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def check_dist(d, where):
    check(isinstance(d, dict) and set(d) == {"mean", "p50", "p95", "max"},
          f"{where}: qdelay_ms keys {d}")
    if d["mean"] is None:
        check(all(d[k] is None for k in d), f"{where}: partly null qdelay_ms")
        return
    for k in d:
        check(is_num(d[k]) and d[k] >= 0, f"{where}: qdelay_ms.{k} = {d[k]!r}")
    check(d["p50"] <= d["p95"] <= d["max"] and d["mean"] <= d["max"],
          f"{where}: qdelay_ms not ordered {d}")


CONV_CAUSES = {"start", "resume", "capacity", "flows"}
CONV_HOLD_S = 5.0


def check_convergence(f, w):
    """docs/metrics.md, convergence: one entry per change in time order,
    each judged before the next; convergence_s is the first entry's."""
    conv = f["convergence"]
    check(isinstance(conv, list), f"{w}: convergence {conv!r}")
    prev_until = f["start_s"]
    for c in conv:
        check(set(c) == {"at_s", "cause", "until_s", "after_s", "target_kbps",
                         "target_within_10pct"}, f"{w}: convergence entry {c}")
        # The target's steadiness: both or neither, a mean above 0 and a
        # share; only for media flows, judged from 10 s after the change.
        tk, tw = c["target_kbps"], c["target_within_10pct"]
        check((tk is None) == (tw is None), f"{w}: target fields {c}")
        check(tk is None or (is_num(tk) and tk > 0 and is_num(tw) and 0 <= tw <= 1 and
                             f["kind"] == "media" and c["until_s"] - c["at_s"] >= 15 - 1e-6),
              f"{w}: target steadiness {c}")
        check(c["cause"] in CONV_CAUSES, f"{w}: cause {c['cause']!r}")
        check(prev_until <= c["at_s"] < c["until_s"] <= f["stop_s"], f"{w}: change times {c}")
        # Re-converged = held CONV_HOLD_S before the next change; after_s
        # ends with the first 200 ms bin of the hold.
        check(c["after_s"] is None or (is_num(c["after_s"]) and 0 < c["after_s"] and
                                       c["after_s"] + CONV_HOLD_S - 0.2 <= c["until_s"] - c["at_s"] + 1e-6),
              f"{w}: after_s {c}")
        prev_until = c["until_s"]
    if conv:
        # The start, or the first resume of a flow that starts paused.
        check((conv[0]["cause"] == "start" and conv[0]["at_s"] == f["start_s"]) or
              conv[0]["cause"] == "resume", f"{w}: first change {conv[0]}")
        check(all(c["cause"] != "start" for c in conv[1:]), f"{w}: a second start")
        check(f["convergence_s"] == conv[0]["after_s"], f"{w}: convergence_s {f['convergence_s']} "
              f"is not the first change's {conv[0]}")
    else:
        check(f["convergence_s"] is None, f"{w}: convergence_s without changes")
    if f["kind"] == "cbr":
        check(conv == [], f"{w}: a CBR flow has convergence entries")


def check_result(j, where):
    top = {"scenario", "seed", "duration_s", "link", "fairness", "flows"}
    check(top <= set(j), f"{where}: missing {top - set(j)}")
    check(isinstance(j["scenario"], str) and j["scenario"], f"{where}: scenario")
    check(isinstance(j["seed"], int), f"{where}: seed")
    check(is_num(j["duration_s"]) and j["duration_s"] > 0, f"{where}: duration_s")
    u = j["link"]["utilization"]
    check(is_num(u) and 0 <= u <= 1.0001, f"{where}: utilization {u}")
    check_dist(j["link"]["qdelay_ms"], where + " link")
    fa = j["fairness"]
    check(set(fa) == {"jain", "min_max_ratio"}, f"{where}: fairness keys")
    check((fa["jain"] is None) == (fa["min_max_ratio"] is None), f"{where}: fairness nulls")
    if fa["jain"] is not None:
        check(0 < fa["jain"] <= 1.0001 and 0 <= fa["min_max_ratio"] <= 1.0001,
              f"{where}: fairness {fa}")
    check(isinstance(j["flows"], list) and j["flows"], f"{where}: flows")
    keys = {"id", "kind", "controller", "start_s", "stop_s", "goodput_kbps", "send_kbps",
            "fec_kbps", "qdelay_ms", "loss_pre", "loss_post", "convergence_s", "convergence",
            "fec_frames_hit", "ffre", "frames"}
    for i, f in enumerate(j["flows"]):
        w = f"{where} flow {i}"
        check(keys <= set(f), f"{w}: missing {keys - set(f)}")
        check(f["id"] == i, f"{w}: id {f['id']}")
        check(f["kind"] in ("media", "tcp", "cbr"), f"{w}: kind {f['kind']}")
        check(isinstance(f["controller"], str) and f["controller"], f"{w}: controller")
        check(0 <= f["start_s"] <= f["stop_s"] <= j["duration_s"], f"{w}: start/stop")
        for k in ("goodput_kbps", "send_kbps", "fec_kbps"):
            check(is_num(f[k]) and f[k] >= 0, f"{w}: {k} = {f[k]!r}")
        check((f["ffre"] is None) == (f["fec_frames_hit"] == 0)
              and (f["ffre"] is None or 0 <= f["ffre"] <= 1), f"{w}: ffre {f['ffre']!r}")
        check(f["goodput_kbps"] <= f["send_kbps"] + 1e-6, f"{w}: goodput above send rate")
        # Simulated media packets all carry their frame's capture time; a
        # frame arrives no sooner than its last packet is sent.
        fr = f["frames"]
        if f["kind"] != "media":
            check(fr is None, f"{w}: frames of a {f['kind']} flow")
        else:
            check(fr is not None and fr["complete"] > 0, f"{w}: frames {fr}")
            lat, snd = fr["latency_ms"], fr["sent_ms"]
            check(0 <= snd["p50"] <= lat["p50"] and snd["max"] <= lat["max"]
                  and lat["p50"] <= lat["p95"] <= lat["max"], f"{w}: frame times {fr}")
        for k in ("loss_pre", "loss_post"):
            check(is_num(f[k]) and 0 <= f[k] <= 1, f"{w}: {k} = {f[k]!r}")
        # rcsim has no FEC yet (sim.c's media_protect sends no repair
        # packets; a scenario's `fec` must be `none`): nothing is repaired
        # and no repair bytes go out, so these hold exactly. Once FEC is in,
        # they fail for protected flows and must become loss_post <=
        # loss_pre and fec_kbps > 0 there.
        check(f["loss_post"] == f["loss_pre"], f"{w}: loss_post {f['loss_post']} != loss_pre "
              f"{f['loss_pre']} without FEC")
        check(f["fec_kbps"] == 0, f"{w}: fec_kbps {f['fec_kbps']} without FEC")
        check_convergence(f, w)
        check_dist(f["qdelay_ms"], w)


def test_json_schema(c):
    for name in ("rfc8867-5.1-variable-capacity-single.ini", "rfc8867-5.3-congested-feedback.ini",
                 "rfc8867-5.6-long-tcp.ini", "cbr-cross-traffic.ini", "rfc8867-5.4-competing-media.ini"):
        j, text = c.json(c.scen(name))
        check_result(j, name)
        check(text.count("\n{") == 0 and text.strip().startswith("{") and text.strip().endswith("}"),
              f"{name}: not exactly one object")
    j, _ = c.json(c.scen("rfc8867-5.4-competing-media.ini"))
    check(j["fairness"]["jain"] is not None, "5.4: three media flows but no fairness")
    j, _ = c.json(c.scen("rfc8867-5.1-variable-capacity-single.ini"))
    check(j["fairness"]["jain"] is None, "5.1: one media flow but a fairness value")
    j, _ = c.json(c.scen("cbr-cross-traffic.ini"))
    cbr = [f for f in j["flows"] if f["kind"] == "cbr"][0]
    check(abs(cbr["send_kbps"] - 500) < 5, f"CBR flow sends {cbr['send_kbps']} kbit/s, want 500")


def test_scenarios(c):
    names = sorted(n for n in os.listdir(c.scen_dir) if n.endswith(".ini"))
    check(len(names) >= 14, f"only {len(names)} shipped scenarios")
    for want in ["rfc8867-5.%d" % i for i in range(1, 9)] + \
            ["noisy-" + p for p in ("cable", "adsl", "ethernet", "wifi", "wimax", "hspa")]:
        check(any(n.startswith(want) for n in names), f"no shipped scenario {want}*")
    for n in names:
        table = c.run(c.scen(n)).stdout
        check("utilization" in table, f"{n}: table has no utilization line")
        j, _ = c.json(c.scen(n))
        check_result(j, n)


def test_cli(c):
    ctrls = c.run("--list-controllers").stdout.split()
    check("urcp" in ctrls and "um" in ctrls, f"--list-controllers: {ctrls}")
    path = c.scen("rfc8867-5.6-long-tcp.ini")
    j, _ = c.json(path, "--controller", "um", "--duration", "20")
    check(j["duration_s"] == 20, f"--duration 20 gave {j['duration_s']}")
    for f in j["flows"]:
        if f["kind"] == "media":
            check(f["controller"] == "um", f"--controller um: media flow runs {f['controller']}")
        else:
            check(f["controller"] in ("cubic", "newreno"), f"TCP flow controller {f['controller']}")
        check(f["stop_s"] <= 20, "flow outlives --duration")
    j, _ = c.json(path, "--seed", "42", "--duration", "10")
    check(j["seed"] == 42, "--seed not reported")
    c.run(path, "--controller", "nosuch", expect=2)
    c.run(expect=2)
    c.run(os.path.join(c.scen_dir, "does-not-exist.ini"), expect=1)
    tmp = tempfile.mkdtemp(prefix="rcsim-cli-")
    try:
        bad = os.path.join(tmp, "bad.ini")
        for text, what in [
            ("[link]\ncapacity=1000000\ncapactiy=5\n[flow:v]\nkind=media\n", "capactiy"),
            ("[link]\ncapacity=1000000\n[flow:v]\nkind=video\n", "kind"),
            ("[link]\ncapacity=1000000\n", "no [flow"),
            ("[link]\nschedule=0:1000000,10:0\n[flow:v]\n", "schedule"),
            ("[reverse]\nloss-episodes=60:30\n[flow:v]\n", "[reverse] loss-episodes: "),
            ("[link]\nloss-episodes=1:2:3\n[flow:v]\n", "FROM:TO[:RATE]"),
            ("[link]\n[flow:v]\nstart=10\nstop=5\n", "stop"),
            ("[link]\n[flows:v]\n", "unknown group"),
            ("[link]\n[flow:v]\nkind=media\ntemporal-layers=3\n", "temporal-layers: must be 1 or 2"),
            ("[link]\n[flow:v]\nkind=media\npacing-factor=0.5\n", "pacing-factor: from 1 to 10"),
        ]:
            open(bad, "w").write(text)
            p = c.run(bad, expect=1)
            check(what in p.stderr, f"bad scenario ({what}): message was {p.stderr.strip()!r}")
        # --bench reports on stderr only: stdout stays the deterministic table.
        p = c.run(c.scen("clean-1mbps.ini"), "--bench", "--duration", "10")
        check("real time" in p.stderr and "real time" not in p.stdout, "--bench output")
    finally:
        shutil.rmtree(tmp)


def test_scenario_by_name(c):
    env = dict(os.environ, RCSIM_SCENARIO_DIR=c.scen_dir)
    want = c.run(c.scen("clean-1mbps.ini"), "--duration", "5", "--json").stdout
    with scratch("rcsim-name-") as tmp:
        for name in ("clean-1mbps", "clean-1mbps.ini"):
            got = c.run(name, "--duration", "5", "--json", cwd=tmp, env=env).stdout
            check(got == want, f"rcsim {name} differs from rcsim {c.scen('clean-1mbps.ini')}")
        # A file here of that name is the one run (a 1 s scenario).
        with open(os.path.join(tmp, "clean-1mbps.ini"), "w") as f:
            f.write("[scenario]\nduration=1\n[link]\ncapacity=1000000\n[flow:v]\nkind=media\n")
        j = json.loads(c.run("clean-1mbps.ini", "--json", cwd=tmp, env=env).stdout)
        check(j["duration_s"] == 1, f"local clean-1mbps.ini not used: duration {j['duration_s']}")
        p = c.run("no-such-scenario", cwd=tmp, env=env, expect=1)
        check("no-such-scenario" in p.stderr, f"unknown name: message was {p.stderr.strip()!r}")
    helptext = c.run("--help").stdout
    check("RCSIM_SCENARIO_DIR" in helptext and "gst-ratecontrol/scenarios" in helptext,
          f"--help does not say where installed scenarios are: {helptext}")


def test_csv_plot(c):
    tmp = tempfile.mkdtemp(prefix="rcsim-csv-")
    try:
        d = os.path.join(tmp, "csv")
        j, _ = c.json(c.scen("rfc8867-5.6-long-tcp.ini"), "--csv", d, "--duration", "30")
        files = sorted(os.listdir(d))
        check(files == ["capacity.csv", "flow-0.csv", "flow-1.csv", "flows.csv"], f"CSV files {files}")
        cap = read_csv(d, "capacity.csv")
        check(len(cap) == 150, f"capacity.csv: {len(cap)} rows for 30 s / 200 ms")
        check(all(abs(float(r["capacity_kbps"]) - 2000) < 1e-6 for r in cap), "capacity column")
        media = read_csv(d, "flow-0.csv")
        tcp = read_csv(d, "flow-1.csv")
        check(len(media) == 150 and len(tcp) == 150, "flow CSV rows")
        for col in ("t_s", "active", "send_kbps", "goodput_kbps", "fec_kbps", "fair_share_kbps",
                    "qdelay_ms", "qdelay_max_ms", "loss", "delivered_pkts", "dropped_pkts",
                    "lost_pkts", "target_kbps", "encoder_kbps",
                    "pacing_kbps", "state", "capacity", "delay-noise", "operating-point", "gain"):
            check(col in media[0], f"media CSV lacks {col}")
        for col in ("cwnd_segments", "srtt_ms"):
            check(col in tcp[0], f"TCP CSV lacks {col}")
        # The series add up to the totals: mean goodput over the flow's
        # active bins equals the JSON goodput.
        f0 = j["flows"][0]
        act = [float(r["goodput_kbps"]) for r in media
               if f0["start_s"] <= float(r["t_s"]) < f0["stop_s"]]
        check(abs(sum(act) / len(act) - f0["goodput_kbps"]) < 0.02 * f0["goodput_kbps"] + 1,
              f"CSV goodput {sum(act) / len(act):.1f} vs JSON {f0['goodput_kbps']:.1f}")
        png = os.path.join(tmp, "out.png")
        p = subprocess.run([c.plot, d, "-o", png, "--title", "test"], capture_output=True, text=True)
        if p.returncode != 0 and "matplotlib not found" in p.stderr:
            print("plot skipped: matplotlib not installed")
            return
        check(p.returncode == 0, f"plot_rcsim.py failed: {p.stderr}")
        check(open(png, "rb").read(8) == b"\x89PNG\r\n\x1a\n", "plot is not a PNG")
    finally:
        shutil.rmtree(tmp)


def test_tcp_fills_link(c):
    j, _ = c.json(c.scen("tcp-alone.ini"))
    u = j["link"]["utilization"]
    q = j["link"]["qdelay_ms"]
    tcp = j["flows"][0]
    print(f"TCP alone: utilization {u:.3f}, queueing delay mean {q['mean']:.0f} ms, "
          f"p95 {q['p95']:.0f} ms, loss {tcp['loss_pre']:.4f}")
    check(u >= 0.95, f"TCP alone uses only {u:.1%} of the link")
    # A loss-based window keeps the 300 ms buffer mostly full...
    check(q["mean"] >= 150 and q["p95"] >= 250, f"no standing queue: {q}")
    # ...and learns only from its overflow.
    check(tcp["loss_pre"] > 0, "TCP never lost a packet in a drop-tail queue")
    check(tcp["convergence_s"] is not None and tcp["convergence_s"] < 10,
          f"TCP convergence {tcp['convergence_s']}")


def urcp_utilization(c, name, want):
    j, _ = c.json(c.scen(name), "--controller", "urcp")
    u = j["link"]["utilization"]
    f = j["flows"][0]
    print(f"{name}: utilization {u:.3f}, qdelay mean {j['link']['qdelay_ms']['mean']:.1f} ms, "
          f"loss {f['loss_pre']:.4f}, convergence {f['convergence_s']}")
    check(u >= want, f"{name}: URCP utilization {u:.1%} < {want:.0%}")
    return j


def test_urcp_clean_utilization(c):
    j = urcp_utilization(c, "clean-1mbps.ini", 0.90)
    q = j["link"]["qdelay_ms"]["mean"]
    check(q < 30, f"clean-1mbps: mean queueing delay {q:.1f} ms")


def test_urcp_wimax_utilization(c):
    # One seed is one draw of the noise and loss: judge the mean over ten,
    # and let no single seed fall far below. With one feedback message per
    # 50 ms the mean was 91.9 % (lowest seed 76 %). rcsim then handed the
    # feedback over as a stock rtpbin receiver sends it, one message per
    # frame (feedback-messages=frame, 2026-11-27): 78.7 %, seed 7 at 41 %,
    # because URCP judged each frame's message alone and its start-up ended
    # on noise spikes. Since the sender session gathers the messages that
    # arrive together into one (feedback-gather-ms, 5 ms), it is 90.5 %,
    # lowest seed 67 % (seed 8): the 90 % goal of the URCP-quality issue is
    # met on the mean; its spread is not yet. With the encoder models refitted
    # to vp8enc at a fixed speed (2026-11-28): 86.4 %, lowest 64 %; expected
    # to fail (tests/check/meson.build) from then. With the delay base per
    # packet size (rc-owd.c, 2026-11-29): 90.8 %, lowest 74 % (seed 4), main
    # then 89.9 %: the mean passes by less than a point, and the spread, the
    # start-up lottery under noise, is as it was.
    utils = []
    for seed in range(1, 11):
        j, _ = c.json(c.scen("noisy-wimax.ini"), "--controller", "urcp", "--seed", str(seed))
        utils.append(j["link"]["utilization"])
    mean = sum(utils) / len(utils)
    print("noisy-wimax utilization per seed: " + " ".join(f"{u:.3f}" for u in utils) +
          f"; mean {mean:.3f}")
    check(mean >= 0.90, f"noisy-wimax: URCP mean utilization {mean:.1%} < 90 %")
    check(min(utils) >= 0.60, f"noisy-wimax: a seed at {min(utils):.1%} < 60 %")


def test_utilization_counts_lost(c):
    # A CBR flow at exactly the link's rate keeps the bottleneck busy; the
    # loss model then loses a fifth of what crossed it (Bernoulli, and
    # Gilbert-Elliott with the same stationary loss: p / (p + r) = 0.2).
    # Those packets used the capacity, so utilization stays ~1 while the
    # goodput is ~80 % of the link.
    with scratch("rcsim-util-") as tmp:
        for model in ("loss-model=bernoulli\nloss-rate=0.2\n",
                      "loss-model=gilbert-elliott\nge-p=0.05\nge-r=0.2\n"):
            scen = os.path.join(tmp, "lossy.ini")
            open(scen, "w").write(
                "[scenario]\nname=lossy\nduration=20\n"
                "[link]\ncapacity=1000000\nqueue-limit-ms=300\noverhead=28\n" + model +
                "[flow:cbr]\nkind=cbr\nrate=1000000\npacket-size=1000\ndelay-ms=20\n")
            j, _ = c.json(scen)
            u = j["link"]["utilization"]
            f = j["flows"][0]
            print(f"{model.split(chr(10))[0]}: utilization {u:.4f}, goodput "
                  f"{f['goodput_kbps']:.1f} kbit/s, loss {f['loss_pre']:.4f}")
            check(0.15 < f["loss_pre"] < 0.25, f"loss {f['loss_pre']}, want ~0.2")
            check(u >= 0.99, f"{model!r}: utilization {u:.4f}: packets lost after "
                  "the queue are not counted as link use")
            check(abs(f["goodput_kbps"] / 1000 - (1 - f["loss_pre"])) < 0.01,
                  f"goodput {f['goodput_kbps']} vs loss {f['loss_pre']}")


def trace_opportunities(path):
    """A Mahimahi trace's opportunity times in ms, and its period."""
    ms = [int(x) for x in open(path).read().split()]
    return ms, ms[-1]


def test_trace_capacity(c):
    # tests/scenarios/traces/two-rates.trace: an opportunity every 8 ms for
    # 2 s (1.5 Mbit/s), then every 25 ms for 2 s (480 kbit/s), looping. The
    # capacity rcsim reports is the trace's per instant: each 200 ms bin's
    # opportunities x 1500 B over the bin, not the trace's mean (990
    # kbit/s), and what leaves the link never runs ahead of it.
    trace = os.path.abspath(os.path.join(c.scen_dir, "traces", "two-rates.trace"))
    opps, period = trace_opportunities(trace)
    with scratch("rcsim-trace-") as tmp:
        scen = os.path.join(tmp, "trace.ini")
        open(scen, "w").write(
            "[scenario]\nname=trace\nduration=20\n"
            f"[link]\ntrace-file={trace}\nqueue-limit-ms=300\noverhead=28\n"
            "[flow:video]\nkind=media\ndelay-ms=20\n")
        d = os.path.join(tmp, "csv")
        j, _ = c.json(scen, "--csv", d)
        cap = read_csv(d, "capacity.csv")
        flow = read_csv(d, "flow-0.csv")
        check(len(cap) == 100, f"capacity.csv: {len(cap)} rows")
        sent_bits = cap_bits = 0.0
        for b, row in enumerate(cap):
            lo, hi = b * 200, (b + 1) * 200
            n = sum(1 for k in range(hi // period + 1) for o in opps if lo <= k * period + o < hi)
            want = n * 1500 * 8 / 0.2 / 1000
            check(abs(float(row["capacity_kbps"]) - want) < 1e-3,
                  f"bin {b}: capacity {row['capacity_kbps']} kbit/s, want {want} "
                  f"({n} opportunities)")
            check(abs(float(flow[b]["fair_share_kbps"]) - want) < 1e-3,
                  f"bin {b}: fair share {flow[b]['fair_share_kbps']}, want {want}")
            # Cumulative: what left by the bin's end is at most what the
            # opportunities up to then carry, plus one packet that the
            # bin before started.
            sent_bits += float(row["link_kbps"]) * 0.2 * 1000
            cap_bits += want * 0.2 * 1000
            check(sent_bits <= cap_bits + 1500 * 8 + 1e-6,
                  f"bin {b}: {sent_bits:.0f} bits left the link, its opportunities carry {cap_bits:.0f}")
        rates = sorted({round(float(r["capacity_kbps"])) for r in cap})
        check(rates[0] < 500 and rates[-1] >= 1500, f"capacity does not follow the trace: {rates}")
        u = j["link"]["utilization"]
        check(0 < u <= 1.0001, f"utilization {u}")
        print(f"trace: capacity per bin {rates[0]}..{rates[-1]} kbit/s, utilization {u:.3f}")


def test_outage(c):
    # tests/scenarios/outage.ini: 0 bit/s from 30 to 32 s on [link], every
    # packet lost from 60 to 63 s on [reverse] (loss-episodes).
    with scratch("rcsim-outage-") as tmp:
        d = os.path.join(tmp, "csv")
        c.run(c.scen("outage.ini"), "--controller", "urcp", "--csv", d)
        cap = read_csv(d, "capacity.csv")
        flow = read_csv(d, "flow-0.csv")
        t = lambda r: round(float(r["t_s"]), 1)
        for r in cap:
            want = 0 if 30 <= t(r) < 32 else 1000
            check(abs(float(r["capacity_kbps"]) - want) < 1e-6, f"{t(r)} s: capacity {r['capacity_kbps']}")
            if want == 0:
                check(float(r["link_kbps"]) == 0, f"{t(r)} s: {r['link_kbps']} kbit/s left a dead link")
        by_t = {t(r): r for r in flow}
        # The queue holds what 300 ms at 1 Mbit/s is and drops the rest...
        for k in range(152, 160):
            check(float(by_t[k / 5]["loss"]) == 1, f"{k / 5} s: loss {by_t[k / 5]['loss']} in the outage")
        # ...and what it held leaves 2 s late.
        check(float(by_t[32.0]["qdelay_max_ms"]) > 1900,
              f"after the outage: max queueing delay {by_t[32.0]['qdelay_max_ms']} ms")
        # No feedback reaches the sender from 60 to 63 s (the last sent
        # before 60 s arrives by 60.2 s), while the media still arrives.
        fb = {k: int(float(by_t[k / 5]["feedback-count"])) for k in range(295, 322)}
        check(len({fb[k] for k in range(301, 316)}) == 1, f"feedback during the episode: {fb}")
        check(fb[300] > fb[295] and fb[321] > fb[316], f"feedback before/after the episode: {fb}")
        check(all(float(by_t[k / 5]["goodput_kbps"]) > 0 for k in range(300, 315)),
              "media stopped during the feedback episode")


def test_feedback_blackout(c):
    for name, fb_period, start in (("feedback-blackout.ini", 0.2, 30.0),
                                   ("feedback-blackout-rtcp.ini", 7.5, 50.0)):
        end = start + 30.0
        for seed in ("1", "2", "3"):
            with scratch("rcsim-blackout-") as tmp:
                d = os.path.join(tmp, "csv")
                c.run(c.scen(name), "--seed", seed, "--csv", d)
                rows = read_csv(d, "flow-0.csv")
            what = f"{name} seed {seed}"
            t = lambda r: float(r["t_s"])
            fb = lambda r: int(float(r["feedback-count"])) + int(float(r["rr-reports"]))
            before = [r for r in rows if t(r) < start]
            earlier = float(before[-1]["target_kbps"])
            # The last feedback before the blackout: the row where the
            # count last grew. Rows are 200 ms apart.
            last_fb = max(t(r) for r, p in zip(rows[1:], rows) if fb(r) > fb(p) and t(r) <= start + 0.2)
            check(last_fb > start - fb_period - 0.2, f"{what}: last feedback at {last_fb} s")
            tripped = [r for r in rows if r["state"] == "circuit-breaker"]
            check(tripped, f"{what}: never tripped")
            first = t(tripped[0])
            check(last_fb + 15.0 - 0.2 <= first <= last_fb + 15.0 + 0.6,
                  f"{what}: tripped at {first} s, last feedback at {last_fb} s")
            check(all(float(r["target_kbps"]) == 50.0 for r in tripped), f"{what}: target above the floor while tripped")
            check(int(float(rows[-1]["circuit-breaker-trips"])) == 1, f"{what}: {rows[-1]['circuit-breaker-trips']} trips")
            back = min(t(r) for r, p in zip(rows[1:], rows) if fb(r) > fb(p) and t(r) > end)
            check(back < end + fb_period + 0.4, f"{what}: first feedback after the blackout at {back} s")
            reached = [t(r) for r in rows if t(r) >= back and float(r["target_kbps"]) >= 0.9 * earlier]
            check(reached and reached[0] <= back + 5.0,
                  f"{what}: target {earlier:.0f} kbit/s before; 90 % reached at "
                  f"{reached[0] if reached else None} s, feedback back at {back} s")


def test_convergence_from_log(c):
    # Convergence from a hand-made log, so every number is known
    # (docs/metrics.md). 1 Mbit/s, 500 kbit/s from 10 s; a CBR flow on the
    # link from 19 s (it sends nothing here: the scenario says when it is
    # demanding). The media flow's 1000-byte packets leave 4 ms after they
    # enter: one per 8 ms to 10 s (1 Mbit/s, 25 per bin), one per 10 ms
    # to 12 s (800 kbit/s), then one per 16 ms (500 kbit/s: 13 and 12 per
    # bin, alternately).
    ms = 1000000
    scen_text = ("[scenario]\nname=conv\nduration=20\n"
                 "[link]\ncapacity=1000000\nschedule=0:1000000,10:500000\n"
                 "[flow:video]\nkind=media\ndelay-ms=20\n"
                 "[flow:cbr]\nkind=cbr\nrate=100000\nstart=19\ndelay-ms=20\n")
    with scratch("rcsim-conv-") as tmp:
        def flows_of(entries_ms):
            files = {"conv.ini": scen_text, "run.log": "rcsim-log 1\n" + "".join(
                f"fwd 0 media 1000 {e * ms} recv {(e + 4) * ms} {(e + 24) * ms}\n"
                for e in entries_ms)}
            for name, text in files.items():
                with open(os.path.join(tmp, name), "w") as f:
                    f.write(text)
            j, _ = c.json(os.path.join(tmp, "conv.ini"), "--from-log", os.path.join(tmp, "run.log"))
            return j["flows"]

        video, cbr = flows_of(list(range(0, 10000, 8)) + list(range(10000, 12000, 10)) +
                              list(range(12000, 19990, 16)))
        check_convergence(video, "video")
        check_convergence(cbr, "cbr")
        # Start: every bin at its 1 Mbit/s share from the first: 0.2 s.
        # 10 s: the 1 s mean since the change (bins from 10 s) is within
        # 10 % of 500 kbit/s from the bin at 12.8 s (bins 12.0-12.8 s all
        # at ~500), held to 17.8 s < 19 s: 13.0 - 10 = 3.0 s. 19 s: the
        # CBR flow starts (share 400 kbit/s), 1 s before the end: null.
        # No `target` lines in the log: no steadiness.
        none = {"target_kbps": None, "target_within_10pct": None}
        want = [{"at_s": 0.0, "cause": "start", "until_s": 10.0, "after_s": 0.2, **none},
                {"at_s": 10.0, "cause": "capacity", "until_s": 19.0, "after_s": 3.0, **none},
                {"at_s": 19.0, "cause": "flows", "until_s": 20.0, "after_s": None, **none}]
        check(video["convergence"] == want, f"convergence {video['convergence']}, want {want}")
        check(video["convergence_s"] == 0.2, f"convergence_s {video['convergence_s']}")
        check(cbr["convergence"] == [] and cbr["convergence_s"] is None, f"CBR: {cbr}")
        # The media flow never settling after 10 s (800 kbit/s to the
        # end): no re-convergence.
        video, _ = flows_of(list(range(0, 10000, 8)) + list(range(10000, 19990, 10)))
        check(video["convergence"][1]["after_s"] is None,
              f"800 kbit/s on a 500 kbit/s share converged: {video['convergence']}")


def test_target_steadiness(c):
    # The target's steadiness from a hand-made log (docs/metrics.md): one
    # media flow on a constant link for 30 s, so one stretch, judged from
    # 10 s to 30 s (100 bins of 200 ms). Targets: 300 kbit/s to 10 s (not
    # judged), 1000 kbit/s to 26 s, 1300 from 26 s: mean (80 x 1000 +
    # 20 x 1300) / 100 = 1060 kbit/s; 1000 is within 10 % of it, 1300 is
    # not: 0.8. A 10 s run has nothing to judge after its first 10 s.
    ms = 1000000
    with scratch("rcsim-steady-") as tmp:
        def first_change(duration, targets):
            files = {"s.ini": "[scenario]\nname=steady\nduration=%d\n"
                              "[link]\ncapacity=2000000\n"
                              "[flow:video]\nkind=media\ndelay-ms=20\n" % duration,
                     "run.log": "rcsim-log 1\n" + "".join(
                         f"target 0 {t * ms} {bps}\n" for t, bps in targets) + "".join(
                         f"fwd 0 media 1000 {e * ms} recv {(e + 4) * ms} {(e + 24) * ms}\n"
                         for e in range(0, duration * 1000 - 10, 10))}
            for name, text in files.items():
                with open(os.path.join(tmp, name), "w") as f:
                    f.write(text)
            j, _ = c.json(os.path.join(tmp, "s.ini"), "--from-log", os.path.join(tmp, "run.log"))
            return j["flows"][0]["convergence"][0]

        ch = first_change(30, [(0, 300000), (10000, 1000000), (26000, 1300000)])
        check(ch["target_kbps"] == 1060.0 and ch["target_within_10pct"] == 0.8,
              f"steadiness {ch}, want 1060 kbit/s and 0.8")
        # Held at its mean throughout: all within.
        ch = first_change(30, [(0, 300000), (10000, 1000000)])
        check(ch["target_kbps"] == 1000.0 and ch["target_within_10pct"] == 1.0,
              f"steadiness {ch}, want 1000 kbit/s and 1.0")
        ch = first_change(10, [(0, 300000)])
        check(ch["target_kbps"] is None and ch["target_within_10pct"] is None,
              f"a 10 s run judged: {ch}")


def test_loss_accounting(c):
    # The loss in the JSON is the packets the CSV counts as dropped at the
    # queue or lost after it, over all whose fate is known (docs/metrics.md);
    # with no FEC loss_post is the same and no FEC bytes are sent. The
    # flows stop 5 s before the end, so every packet has left the link by
    # then (the CSV's bins end with the run; the JSON's totals would also
    # count packets leaving after it). The CBR burst overflows the 100 ms
    # queue (drops) and the link loses 2 % after it.
    with scratch("rcsim-loss-") as tmp:
        scen = os.path.join(tmp, "loss.ini")
        with open(scen, "w") as f:
            f.write("[scenario]\nname=loss\nduration=30\n"
                    "[link]\ncapacity=1000000\nqueue-limit-ms=100\nloss-rate=0.02\n"
                    "[flow:video]\nkind=media\nstop=25\ndelay-ms=30\n"
                    "[flow:burst]\nkind=cbr\nrate=600000\nstart=10\nstop=15\ndelay-ms=30\n")
        d = os.path.join(tmp, "csv")
        seen = {"dropped_pkts": 0, "lost_pkts": 0}
        for seed in ("1", "2"):
            j, _ = c.json(scen, "--csv", d, "--seed", seed)
            for fl in j["flows"]:
                rows = read_csv(d, f"flow-{fl['id']}.csv")
                n = {k: sum(int(r[k]) for r in rows)
                     for k in ("delivered_pkts", "dropped_pkts", "lost_pkts")}
                w = f"seed {seed} {fl['name']}"
                for k in seen:
                    seen[k] += n[k]
                want = (n["dropped_pkts"] + n["lost_pkts"]) / sum(n.values())
                check(abs(fl["loss_pre"] - want) < 5e-7,
                      f"{w}: loss_pre {fl['loss_pre']}, the CSV counts {n}: {want:.6f}")
                check(fl["loss_post"] == fl["loss_pre"] and fl["fec_kbps"] == 0,
                      f"{w}: loss_post {fl['loss_post']}, fec {fl['fec_kbps']} without FEC")
                for r in rows:
                    k = int(r["delivered_pkts"]) + int(r["dropped_pkts"]) + int(r["lost_pkts"])
                    share = (int(r["dropped_pkts"]) + int(r["lost_pkts"])) / k if k else 0
                    check(abs(float(r["loss"]) - share) < 5e-5 and float(r["fec_kbps"]) == 0,
                          f"{w} at {r['t_s']} s: loss {r['loss']} vs counts {r}")
                print(f"{w}: {n}, loss {fl['loss_pre']}")
        check(all(seen.values()), f"the runs want both drops and losses, counted {seen}")


def test_fec_repair(c):
    # A FEC-probing controller (fractal) on a link that loses 1 % of packets
    # at random: repair packets are sent and fed back, and fecdec's core
    # decoder at the receiver rebuilds losses from them (rcsim checks each
    # rebuilt packet byte for byte against the lost one and stops on a
    # mismatch), so loss after repair is below loss before it.
    with scratch("rcsim-fec-") as tmp:
        scen = os.path.join(tmp, "fec.ini")

        def flow(keys):
            """The one media flow, with `keys` added, on that link."""
            with open(scen, "w") as f:
                f.write("[scenario]\nname=fec\nduration=60\n"
                        "[link]\ncapacity=2000000\nqueue-limit-ms=300\nloss-rate=0.01\n"
                        "[flow:video]\nkind=media\nstop=55\ndelay-ms=30\n" + keys)
            return c.json(scen)[0]["flows"][0]
        fl = flow("controller=fractal\n")
        print(f"fec {fl['fec_kbps']} kbit/s, loss {fl['loss_pre']} -> {fl['loss_post']}, "
              f"repaired {fl['fec_repaired']}")
        check(fl["fec_kbps"] > 0, "no repair packets sent")
        check(fl["fec_repaired"] > 0, "nothing repaired")
        check(fl["loss_post"] < fl["loss_pre"],
              f"loss after repair {fl['loss_post']} not below {fl['loss_pre']}")
        check(0.005 < fl["loss_pre"] < 0.02, f"loss before repair {fl['loss_pre']} "
              "is not the link's 1 %")

        # The `fec` key: a fixed overhead (fecenc's, 10 repair packets per
        # 100 media) protects a controller that asks for none; `none` (no
        # fecenc) sends none even when the controller asks; bad values are
        # refused.
        fl = flow("controller=urcp\nfec=10\n")
        share = fl["fec_kbps"] / (fl["send_kbps"] - fl["fec_kbps"])
        print(f"urcp fec=10: fec {fl['fec_kbps']} kbit/s ({100 * share:.1f} % of media), "
              f"loss {fl['loss_pre']} -> {fl['loss_post']}")
        check(0.08 < share < 0.16, f"fec=10 sent {100 * share:.1f} % of the media rate")
        check(fl["fec_repaired"] > 0 and fl["loss_post"] < fl["loss_pre"],
              "fec=10 repaired nothing")
        # FFRE: frames that lost a packet, and the share FEC made whole; at
        # 1 % random loss most hit frames lose one packet, which one repair
        # packet per 10 rebuilds unless it is lost too.
        print(f"urcp fec=10: {fl['fec_frames_hit']} frames hit, FFRE {fl['ffre']}")
        check(fl["fec_frames_hit"] > 0 and 0.5 < fl["ffre"] <= 1,
              f"fec=10: {fl['fec_frames_hit']} frames hit, FFRE {fl['ffre']}")
        fl = flow("controller=urcp\n")
        check(fl["fec_kbps"] == 0, "urcp without a fec key sent repair packets")
        check(fl["fec_frames_hit"] > 0 and fl["ffre"] == 0,
              f"no FEC: {fl['fec_frames_hit']} frames hit, FFRE {fl['ffre']}")
        fl = flow("controller=fractal\nfec=none\n")
        check(fl["fec_kbps"] == 0 and fl["loss_post"] == fl["loss_pre"],
              f"fec=none: fec {fl['fec_kbps']} kbit/s, loss {fl['loss_pre']} -> "
              f"{fl['loss_post']}")
        for bad in ("0", "101", "abc", "10%"):
            with open(scen, "w") as f:
                f.write("[scenario]\nname=fec\n[flow:video]\nkind=media\nfec=%s\n" % bad)
            p = c.run(scen, expect=1)
            check("fec:" in p.stderr, f"fec={bad}: {p.stderr}")


def test_from_log(c):
    ms = 1000000  # ns
    tmp = tempfile.mkdtemp(prefix="rcsim-log-")
    try:
        scen = os.path.join(tmp, "log.ini")
        open(scen, "w").write(
            "[scenario]\nname=log\nduration=2\n"
            "[link]\ncapacity=1000000\nqueue-limit-ms=300\noverhead=28\n"
            "[flow:video]\nkind=media\ndelay-ms=20\nreturn-delay-ms=20\n"
            "[flow:cbr]\nkind=cbr\nrate=100000\ndelay-ms=20\n")
        # Flow 0's media packets, 1000 bytes on the wire (8 ms each at
        # 1 Mbit/s): (entry, fate, departure, arrival) in ms; arrival =
        # departure + 20 ms of propagation delay.
        # The last field, its frame's capture time (ms; None: not logged):
        # four frames, one of which lost a packet.
        media = [(0, "recv", 8, 28, 0),
                 (2, "recv", 16, 36, 0),
                 (4, "drop", None, None, 3),
                 (6, "lost", 24, None, 3),
                 (10, "recv", 32, 52, 9),
                 (100, "recv", 108, 128, 100)]
        lines = ["rcsim-log 1", "# flow 1 (cbr) did not run", "skip 1"]
        for entry, fate, dep, arr, cap in media:
            line = f"fwd 0 media 1000 {entry * ms} {fate}"
            if dep is not None:
                line += f" {dep * ms}"
            if arr is not None:
                line += f" {arr * ms}"
            if cap is not None:
                line += f" @{cap * ms}"
            lines.append(line)
        # Feedback on the return link: not data, not on the forward link;
        # departure unknown (arrival - return delay stands in).
        lines.append(f"rev 0 ctrl 80 {30 * ms} recv - {60 * ms}")
        # The controller's target as a real runner samples it, in any order:
        # 300 kbit/s from 0, 500 from 250 ms, 800 from 1 s.
        lines += [f"target 0 {1000 * ms} 800000", "target 0 0 300000",
                  f"target 0 {250 * ms} 500000"]
        # The encoder's frames (checked, no metric uses them).
        lines += [f"frame 0 {33 * ms} 4000 1", f"frame 0 {66 * ms} 1200 0"]
        log = os.path.join(tmp, "run.log")
        open(log, "w").write("\n".join(lines) + "\n")
        j, _ = c.json(scen, "--from-log", log, "--controller", "gcc")

        # By hand (docs/metrics.md). Queueing delay = arrival - entry -
        # 20 ms: 8, 14, 22, 8 ms.
        qd = sorted(arr - entry - 20 for entry, fate, _, arr, _ in media if fate == "recv")
        check(qd == [8, 8, 14, 22], f"test table: {qd}")
        mean = sum(qd) / len(qd)                                  # 13 ms
        p95 = qd[-1]                                              # rank ceil(0.95 * 4) = 4
        delivered = len(qd)
        # Utilization: bytes that left the forward link during [0, 2 s),
        # the lost packet's too (it crossed the bottleneck), over
        # 1 Mbit/s * 2 s.
        util = (delivered + 1) * 1000 * 8 / (1e6 * 2)             # 0.020
        goodput = delivered * 1000 * 8 / 2 / 1000                 # 16 kbit/s
        send = len(media) * 1000 * 8 / 2 / 1000                   # 24 kbit/s
        loss = 2 / (delivered + 2)                                # drop + loss

        check([f["id"] for f in j["flows"]] == [0], f"skipped flow printed: {j['flows']}")
        f = j["flows"][0]
        check(f["controller"] == "gcc", f"--controller label: {f['controller']}")
        check(abs(j["link"]["utilization"] - util) < 1e-4,
              f"utilization {j['link']['utilization']}, want {util}")
        check(abs(f["goodput_kbps"] - goodput) < 1e-3, f"goodput {f['goodput_kbps']}, want {goodput}")
        check(abs(f["send_kbps"] - send) < 1e-3, f"send {f['send_kbps']}, want {send}")
        check(abs(f["qdelay_ms"]["mean"] - mean) < 1e-3, f"qdelay mean {f['qdelay_ms']}, want {mean}")
        check(abs(f["qdelay_ms"]["p95"] - p95) < 1e-3, f"qdelay p95 {f['qdelay_ms']}, want {p95}")
        check(j["link"]["qdelay_ms"] == f["qdelay_ms"], "the link's forward packets are the flow's")
        check(abs(f["loss_pre"] - loss) < 1e-6, f"loss_pre {f['loss_pre']}, want {loss}")
        check(j["fairness"]["jain"] is None, "fairness with one media flow")
        # Frames: capture to the last packet's arrival of the complete ones
        # (36, 43, 28 ms), to its entry (2, 1, 0 ms); the frame at 3 ms lost
        # both its packets. Nearest rank: p50 the 2nd of 3, p95 the 3rd.
        fr = f["frames"]
        check(fr is not None and fr["complete"] == 3 and fr["incomplete"] == 1,
              f"frames {fr}")
        want = {"mean": (36 + 43 + 28) / 3, "p50": 36, "p95": 43, "max": 43}
        check(all(abs(fr["latency_ms"][k] - v) < 1e-3 for k, v in want.items()),
              f"frame latency {fr['latency_ms']}, want {want}")
        check(fr["sent_ms"]["p50"] == 1 and fr["sent_ms"]["max"] == 2,
              f"frame send time {fr['sent_ms']}")
        # The CSV from the same log: one row per 200 ms.
        d = os.path.join(tmp, "csv")
        c.run(scen, "--from-log", log, "--csv", d)
        check(sorted(os.listdir(d)) == ["capacity.csv", "flow-0.csv", "flows.csv"],
              f"CSV files {sorted(os.listdir(d))}")
        check(len(open(os.path.join(d, "flow-0.csv")).readlines()) == 11, "flow-0.csv rows")
        # Each 200 ms bin's target: the last logged at its start.
        with open(os.path.join(d, "flow-0.csv")) as fh:
            rows = list(csv.DictReader(fh))
        got = [float(r["target_kbps"]) for r in rows]
        want = [300, 300, 500, 500, 500, 800, 800, 800, 800, 800]
        check(got == want, f"target_kbps per bin {got}, want {want}")

        # The encoder in the loop as a recording (benchmarks/encoder_error.py):
        # one row per 30 fps slot from the first frame, a slot without a frame
        # dropped (0 bytes), each row the target logged last before it.
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                        "..", "..", "..", "benchmarks"))
        import encoder_error
        t0 = 10 * ms
        flog = os.path.join(tmp, "frames.log")
        open(flog, "w").write("\n".join([
            "rcsim-log 1", "target 0 0 300000", f"target 0 {50 * ms} 500000",
            f"frame 0 {t0} 4000 1", f"frame 0 {t0 + 33333333} 1200 0",
            f"frame 0 {t0 + 100000000} 1300 0", f"frame 1 {t0} 999 0"]) + "\n")
        rec = encoder_error.recording_from_log(flog, os.path.join(tmp, "loop.csv"),
                                               "vp8enc", "scroll", 640, 480, note="test")
        got = [(f.target, f.bytes, f.key) for f in rec.frames]
        want = [(300000, 4000, True), (300000, 1200, False), (500000, 0, False),
                (500000, 1300, False)]
        check(got == want, f"loop recording {got}, want {want}")
        check(rec.fps == 30 and rec.pixels == 640 * 480, f"loop recording header {rec.header}")

        # The payback part of the error: 60 frames of 1000 bytes at a target
        # they fill, a 3000-byte key frame, then frames of 900 bytes: 10 x 100
        # of its 2000 excess paid after 10 frames, 30 x 100 after 30. The same
        # key frame with the target changed within the window does not count.
        F = encoder_error.Frame
        fr = [F(i / 30, 240000, 1000, False) for i in range(60)] + [F(2.0, 240000, 3000, True)] + \
            [F(2 + (i + 1) / 30, 240000, 900, False) for i in range(31)]
        got = encoder_error.payback_shares(fr)
        check(len(got) == 1 and abs(got[0][0] - 0.5) < 1e-9 and abs(got[0][1] - 1.5) < 1e-9,
              f"payback shares {got}, want [(0.5, 1.5)]")
        fr[70].target = 300000
        check(encoder_error.payback_shares(fr) == [], "payback counted across a target change")

        # Malformed logs: exit 1, the line named.
        for text, where in [
            ("rcsim-log 1\nfwd 0 media 1000 0 recv 8000000\n", ":2:"),
            ("rcsim-log 1\n\nfwd 0 media 1000 0 drop\nfwd 7 media 1000 0 drop\n", ":4:"),
            ("rcsim-log 1\nfwd 0 media 1000 9000000 recv 8000000 28000000\n", ":2:"),
            ("rcsim-log 1\nrev 0 media 1000 0 drop\n", ":2:"),
            ("fwd 0 media 1000 0 drop\n", ":1:"),
            ("rcsim-log 1\nfwd 0 media 1000 0 drop\ntarget 1 0 100000\n", ":3:"),
            ("rcsim-log 1\ntarget 0 0 fast\n", ":2:"),
            ("rcsim-log 1\ntarget 0 0\n", ":2:"),
            # frame lines: a media flow's, 5 fields, key 0 or 1, not skipped
            ("rcsim-log 1\nframe 0 0 1000\n", ":2:"),
            ("rcsim-log 1\nframe 0 0 1000 2\n", ":2:"),
            ("rcsim-log 1\nframe 0 0 big 1\n", ":2:"),
            ("rcsim-log 1\nskip 0\nframe 0 0 1000 0\n", ":3:"),
            ("rcsim-log 1\nframe 1 0 1000 0\n", ":2:"),
            # a capture time: media only, a time
            ("rcsim-log 1\nrev 0 ctrl 80 0 recv - 9000000 @0\n", ":2:"),
            ("rcsim-log 1\nfwd 0 media 1000 0 drop @soon\n", ":2:"),
        ]:
            open(log, "w").write(text)
            p = c.run(scen, "--from-log", log, expect=1)
            check(log + where in p.stderr, f"bad log: message {p.stderr.strip()!r}, want {where}")
    finally:
        shutil.rmtree(tmp)


TESTS = {
    "determinism": test_determinism,
    "json-schema": test_json_schema,
    "scenarios": test_scenarios,
    "cli": test_cli,
    "scenario-by-name": test_scenario_by_name,
    "csv-plot": test_csv_plot,
    "tcp-fills-link": test_tcp_fills_link,
    "urcp-clean-utilization": test_urcp_clean_utilization,
    "urcp-wimax-utilization": test_urcp_wimax_utilization,
    "from-log": test_from_log,
    "utilization-counts-lost": test_utilization_counts_lost,
    "trace-capacity": test_trace_capacity,
    "outage": test_outage,
    "feedback-blackout": test_feedback_blackout,
    "convergence-from-log": test_convergence_from_log,
    "target-steadiness": test_target_steadiness,
    "loss-accounting": test_loss_accounting,
    "fec-repair": test_fec_repair,
}


def main():
    if len(sys.argv) != 5 or sys.argv[4] not in TESTS:
        print(__doc__, file=sys.stderr)
        return 2
    c = Ctx(*sys.argv[1:4])
    try:
        TESTS[sys.argv[4]](c)
    except Failure as e:
        print(f"FAIL {sys.argv[4]}: {e}", file=sys.stderr)
        return 1
    print(f"PASS {sys.argv[4]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
