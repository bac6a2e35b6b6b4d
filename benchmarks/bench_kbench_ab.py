#!/usr/bin/python3
"""Two builds of a controller on the kernel bench (or rtsim), interleaved run by run.

URCP's real loop varies by several points of utilization from one kbench run
to the next, and by more between sessions than within one (docs/results.md,
"Sim against real" and "URCP without its own key frames' spikes"): a change
judged on one run each, or on runs of the two builds an hour apart, is
judged on the draw. This runs build A and build B (each a directory holding
a built libgstratecontrol.so, e.g. a worktree's build/gst), and rtpgccbwe
with --gcc, one after the other for every run and case, so the wall clock's
drift falls on all arms alike, and prints mean ± sd over the runs with each
run's utilization, the frame latency, how steady the target was (issue 10's
"within ±10 % of its mean after start-up"), Jain's index where several flows
share the link, and B's difference from A
against the runs' spread.

    sudo benchmarks/bench_kbench_ab.py --a /tmp/base/build/gst [--b build/gst]
        [--controller urcp] [--cases kernel-1mbps,rfc8867-5.1-variable-capacity-single]
        [--runs 3] [--gcc] [--duration S]

--runner rtsim runs the same through rtsim instead (real vp8enc and rtpbin,
the bottleneck in `linksim`): the way to judge a change on a link that
serializes (each packet reaches the receiver at the end of its time on the
link, the scenario's default `delivery`), which kbench's tbf cannot show.

Real time: runs x cases x arms x the case's duration, one at a time (2 cores:
run nothing else meanwhile). Needs root (kbench); exits 77 without it.
"""

import argparse
import csv
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_scenarios as bs  # noqa: E402
from bench_sim_vs_real import SKIP, frame_cell, real_run, row_numbers  # noqa: E402

RUNNERS = {"kbench": os.path.join(ROOT, "tools", "kbench", "kbench.py"),
           "rtsim": os.path.join(ROOT, "tools", "rtsim", "rtsim.py")}


def plugin_dir(path):
    if not os.path.exists(os.path.join(path, "libgstratecontrol.so")):
        sys.exit(f"{path}: no libgstratecontrol.so (a build's gst/ directory)")
    return os.path.abspath(path)


def shared_share(csv_dir, result):
    """The media flows' goodput over their fair share, summed over the 200 ms
    rows where the link is shared (fair share below the capacity): how much
    of its share a media flow holds against cross traffic (RFC 8867 5.6's
    TCP included). None if no media flow ever shared the link."""
    try:
        with open(os.path.join(csv_dir, "capacity.csv")) as f:
            cap = [float(r["capacity_kbps"]) for r in csv.DictReader(f)]
        got = fair = 0.0
        for fl in bs.media_flows(result):
            with open(os.path.join(csv_dir, f"flow-{fl['id']}.csv")) as f:
                for i, r in enumerate(csv.DictReader(f)):
                    share = float(r["fair_share_kbps"])
                    if r["active"] == "1" and 0 < share < cap[min(i, len(cap) - 1)] - 1e-6:
                        got += float(r["goodput_kbps"])
                        fair += share
    except (OSError, KeyError, ValueError):
        return None
    return got / fair if fair > 0 else None


def jain_cell(values):
    """Jain's index over the runs, mean (each run), or a dash (one flow)."""
    if not values:
        return "–"
    return (f"{sum(values) / len(values):.3f} ("
            + ", ".join(f"{v:.3f}" for v in values) + ")")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--a", required=True, metavar="DIR", help="build A's gst/ directory")
    ap.add_argument("--b", default=os.path.join(ROOT, "build", "gst"), metavar="DIR",
                    help="build B's gst/ directory (default: this tree's build)")
    ap.add_argument("--labels", default="A,B", help="names of the two builds in the table")
    ap.add_argument("--controller", default="urcp")
    ap.add_argument("--cases", default="kernel-1mbps,rfc8867-5.1-variable-capacity-single")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--gcc", action="store_true",
                    help="rtpgccbwe as a third arm (its plugin on GST_PLUGIN_PATH)")
    ap.add_argument("--duration", type=float, default=None,
                    help="seconds per run instead of the scenario's")
    ap.add_argument("--runner", choices=sorted(RUNNERS), default="kbench",
                    help="kbench (a kernel tbf queue) or rtsim (linksim; the scenario's "
                    "delivery)")
    ap.add_argument("--rcsim", default=os.path.join(ROOT, "build", "tools", "rcsim", "rcsim"),
                    help="rcsim for the metrics (the same for every arm)")
    args = ap.parse_args()
    if args.runs < 1:
        sys.exit("--runs: at least 1")
    labels = args.labels.split(",")
    if len(labels) != 2:
        sys.exit("--labels: two names, comma-separated")
    if not os.access(args.rcsim, os.X_OK):
        sys.exit(f"{args.rcsim} not found: build first (scripts/setup.sh)")
    extra = os.environ.get("GST_PLUGIN_PATH")
    arms = [(labels[0], args.controller, plugin_dir(args.a)),
            (labels[1], args.controller, plugin_dir(args.b))]
    if args.gcc:
        env = dict(os.environ, GST_PLUGIN_PATH=extra or "")
        if subprocess.run(["gst-inspect-1.0", "rtpgccbwe"], env=env,
                          capture_output=True).returncode != 0:
            sys.exit("--gcc: rtpgccbwe is not on GST_PLUGIN_PATH (scripts/build_gcc.sh)")
        arms.append(("gcc", "gcc", arms[1][2]))

    cases = args.cases.split(",")
    got = {(c, a[0]): [] for c in cases for a in arms}
    argv_extra = ["--duration", str(args.duration)] if args.duration else []
    for k in range(args.runs):
        for case in cases:
            path = os.path.join(ROOT, "tests", "scenarios", case + ".ini")
            if not os.path.exists(path):
                sys.exit(f"no scenario {path}")
            for label, ctrl, pdir in arms:
                env = dict(os.environ, GST_PLUGIN_PATH=os.pathsep.join(
                    [pdir] + ([extra] if extra else [])))
                d = tempfile.mkdtemp(prefix="kbab-")
                res, why = real_run(RUNNERS[args.runner], path, ctrl, k + 1, args.rcsim, env, d,
                                    argv_extra)
                if res is not None:
                    res["shared_share"] = shared_share(d, res)
                shutil.rmtree(d, ignore_errors=True)
                if res is None:
                    print(f"{case} {label}: {why}", file=sys.stderr)
                    if not why.startswith("failed"):
                        sys.exit(SKIP)      # kbench skipped: no root, no tbf
                    continue
                got[(case, label)].append(res)
                sh = res["shared_share"]
                jain = res["fairness"]["jain"]
                rates = " / ".join(f"{f['goodput_kbps']:.0f}" for f in res["flows"])
                print(f"{case} {label} run {k + 1}: utilization "
                      f"{res['link']['utilization'] * 100:.1f} %"
                      + (f", media share while shared {sh * 100:.0f} %" if sh is not None else "")
                      + (f", Jain {jain:.3f}" if jain is not None else "")
                      + f" (goodput kbit/s {rates})",
                      file=sys.stderr, flush=True)

    print(f"{args.runner}, {args.runs} interleaved run(s) per arm, controller {args.controller}; "
          f"{labels[0]} = {arms[0][2]}, {labels[1]} = {arms[1][2]}\n")
    print("| case | arm | utilization (runs) | qdelay mean ms | qdelay p95 ms | media loss "
          "| frame latency p50 / p95 ms | target within ±10 % of its mean (10 s to the first change) "
          "| media share while shared (runs) | Jain (runs) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    rows = {key: dict(row_numbers(runs), share=[r["shared_share"] for r in runs],
                      jain=[r["fairness"]["jain"] for r in runs
                            if r["fairness"]["jain"] is not None])
            for key, runs in got.items() if runs}
    for case in cases:
        for label, _, _ in arms:
            r = rows.get((case, label))
            if r is None:
                print(f"| {case} | {label} | no run | | | | | | | |")
                continue
            each = ", ".join(f"{u * 100:.1f}" for u in r["util"])
            shares = [x for x in r["share"] if x is not None]
            share = (f"{bs.fmt(shares, 100, 0, ' %')} ("
                     + ", ".join(f"{x * 100:.0f}" for x in shares) + ")") if shares else "–"
            print(f"| {case} | {label} | {bs.fmt(r['util'], 100, 1, ' %')} ({each}) "
                  f"| {bs.fmt(r['qmean'])} | {bs.fmt(r['qp95'])} "
                  f"| {bs.fmt(r['loss'], 100, 2, ' %')} | {frame_cell(r)} "
                  f"| {bs.fmt(r['steady'], 100, 0, ' % of the time')} | {share} "
                  f"| {jain_cell(r['jain'])} |")
    print()
    for case in cases:
        a, b = rows.get((case, labels[0])), rows.get((case, labels[1]))
        if a is None or b is None:
            continue
        (ma, sa), (mb, sb) = (bs.mean_sd([u * 100 for u in r["util"]]) for r in (a, b))
        spread = max(sa, sb)
        if min(len(a["util"]), len(b["util"])) < 2:
            verdict = "one run of an arm: no spread to judge by"
        elif abs(mb - ma) <= spread:
            verdict = "within the runs' spread"
        else:
            verdict = "beyond the runs' spread"
        print(f"{case}: {labels[1]} - {labels[0]} utilization {mb - ma:+.1f} points "
              f"(larger sd {spread:.1f}): {verdict}")


if __name__ == "__main__":
    main()
