#!/usr/bin/python3
"""Runs every shipped scenario with every controller over several seeds in
rcsim, and writes the tables into docs/results.md (between the rcsim markers)
and one plot per scenario and controller into docs/plots/.

    scripts/bench_scenarios.py [--build build] [--seeds 1,2,3] [--no-plots]
                               [--only SUBSTRING] [--controllers A,B]
                               [--output FILE]

--output writes the tables into another Markdown file (created if it does
not exist) and the plots into plots/ beside it, leaving docs/ as it is.
The plots need matplotlib (Debian's python3-matplotlib, hence
/usr/bin/python3).

All numbers come from the same rcsim binary in the same run, so the
controllers are compared side by side on identical links and seeds."""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

from docsection import replace_section

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SECTION = "rcsim-benchmark"


def run_rcsim(rcsim, scenario, controller, seed, csv_dir=None):
    cmd = [rcsim, scenario, "--controller", controller, "--seed", str(seed), "--json"]
    if csv_dir:
        cmd += ["--csv", csv_dir]
    t0 = time.monotonic()
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out), time.monotonic() - t0


def mean_sd(values):
    values = [v for v in values if v is not None]
    if not values:
        return None, None
    if len(values) == 1:
        return values[0], 0.0
    return statistics.mean(values), statistics.stdev(values)


def fmt(values, scale=1.0, digits=1, unit=""):
    m, sd = mean_sd(values)
    if m is None:
        return "–"
    if len(values) > 1 and sd * scale >= 10 ** -digits:
        return f"{m * scale:.{digits}f} ± {sd * scale:.{digits}f}{unit}"
    return f"{m * scale:.{digits}f}{unit}"


def media_flows(result):
    return [f for f in result["flows"] if f["kind"] == "media"]


def frame_latency(result, key):
    """The media flows' frame latency `key` (p50, p95; ms: capture to the
    frame's last packet received, docs/metrics.md `frames`), their mean;
    None when no media flow has frames."""
    v = [f["frames"]["latency_ms"][key] for f in media_flows(result)
         if f.get("frames") and f["frames"]["latency_ms"][key] is not None]
    return statistics.mean(v) if v else None


def target_steady(result):
    """The first media flow's target steadiness after its start: rcsim's
    `target_within_10pct` of its first convergence entry (docs/metrics.md:
    from 10 s after the start to the first change). None without one."""
    flows = media_flows(result)
    conv = flows[0].get("convergence") if flows else None
    return conv[0].get("target_within_10pct") if conv else None


def frame_cell(p50s, p95s):
    """`p50 / p95` (ms), each the mean over runs; – without frames."""
    p50, p95 = mean_sd(p50s)[0], mean_sd(p95s)[0]
    return "–" if p50 is None else f"{p50:.0f} / {p95:.0f}"


# docs/metrics.md: a change is judged over 5 s; a shorter interval before
# the next change cannot show re-convergence, so it is not counted.
CONV_HOLD_S = 5.0


def reconvergence(results):
    """The media flows' re-convergence after the changes that follow their
    start (capacity steps, other flows, resumes), pooled over the runs: the
    median time of those that re-converged, and how many of the changes
    with at least CONV_HOLD_S before the next did not."""
    times, never, total = [], 0, 0
    for r in results:
        for f in media_flows(r):
            for c in f["convergence"]:
                if c["cause"] == "start" or c["until_s"] - c["at_s"] < CONV_HOLD_S:
                    continue
                total += 1
                if c["after_s"] is None:
                    never += 1
                else:
                    times.append(c["after_s"])
    if not total:
        return "–"
    text = f"{statistics.median(times):.1f} s" if times else "–"
    return text + (f" ({never}/{total} never)" if never else "")


def media_loss(result, key="loss_pre"):
    """The media flows' mean loss_pre (or loss_post: after what repair
    packets rebuilt); 0 without media flows."""
    return statistics.mean([f[key] for f in media_flows(result)] or [0])


def summarize(results):
    """One table row from the runs (one per seed) of a scenario/controller."""
    # Convergence after the start (convergence_s): the slowest media flow,
    # over the runs where all converged; flows that never did are counted
    # and shown, not averaged in.
    conv, never, total = [], 0, 0
    for r in results:
        cs = [f["convergence_s"] for f in media_flows(r)]
        total += len(cs)
        never += sum(c is None for c in cs)
        if cs and None not in cs:
            conv.append(max(cs))
    conv_text = fmt(conv, 1, 1, " s") if conv else "–"
    if never:
        conv_text += f" ({never}/{total} flows never)"
    rates = []
    for r in results:
        rates.append(" / ".join(f"{f['goodput_kbps']:.0f}" for f in r["flows"]))
    return {
        "util": fmt([r["link"]["utilization"] for r in results], 100, 1, " %"),
        "qmean": fmt([r["link"]["qdelay_ms"]["mean"] for r in results], 1, 1),
        "qp95": fmt([r["link"]["qdelay_ms"]["p95"] for r in results], 1, 1),
        "jain": fmt([r["fairness"]["jain"] for r in results], 1, 3),
        "minmax": fmt([r["fairness"]["min_max_ratio"] for r in results], 1, 2),
        "loss": fmt([media_loss(r) for r in results], 100, 2, " %"),
        "loss_post": fmt([media_loss(r, "loss_post") for r in results], 100, 2, " %"),
        "frames": frame_cell([frame_latency(r, "p50") for r in results],
                             [frame_latency(r, "p95") for r in results]),
        "conv": conv_text,
        "reconv": reconvergence(results),
        "rates": rates[0],
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--controllers", default=None,
                    help="comma list; default: every controller rcsim lists")
    ap.add_argument("--no-plots", action="store_true")
    ap.add_argument("--only", default=None, help="run scenarios whose file name contains this")
    ap.add_argument("--output", default=os.path.join(ROOT, "docs", "results.md"))
    args = ap.parse_args()

    rcsim = os.path.join(args.build, "tools", "rcsim", "rcsim")
    if not os.access(rcsim, os.X_OK):
        sys.exit(f"{rcsim} not found: build first (scripts/setup.sh)")
    seeds = [int(s) for s in args.seeds.split(",")]
    if args.controllers:
        controllers = args.controllers.split(",")
    else:
        listed = subprocess.run([rcsim, "--list-controllers"], check=True,
                                capture_output=True, text=True).stdout.split()
        controllers = listed
    scen_dir = os.path.join(ROOT, "tests", "scenarios")
    scenarios = sorted(f for f in os.listdir(scen_dir) if f.endswith(".ini"))
    if args.only:
        scenarios = [s for s in scenarios if args.only in s]
    if not scenarios:
        sys.exit(f"no scenario in {scen_dir} matches --only {args.only}")
    # Beside the output, where its plots/NAME.png links point.
    out_dir = os.path.dirname(os.path.abspath(args.output))
    plot_dir = os.path.join(out_dir, "plots")
    if not args.no_plots:
        os.makedirs(plot_dir, exist_ok=True)
    metrics = os.path.join(ROOT, "docs", "metrics.md")
    if os.path.commonpath([out_dir, ROOT]) == ROOT:
        # Inside the checkout the link moves with it; outside, absolute.
        metrics = os.path.relpath(metrics, out_dir)

    lines = [f"Generated by `scripts/bench_scenarios.py --seeds {args.seeds}` "
             f"(rcsim, virtual time; mean ± sd over seeds). Columns are defined in "
             f"[metrics.md]({metrics}). *Goodput* lists each flow in file order, seed {seeds[0]}.",
             ""]
    speed = []
    for scen in scenarios:
        path = os.path.join(scen_dir, scen)
        name = scen[:-4]
        lines += [f"### {name}", "",
                  "| controller | utilization | qdelay mean ms | qdelay p95 ms | Jain | min/max "
                  "| media loss | after repair | frame latency ms | convergence | re-convergence "
                  "| goodput kbit/s |",
                  "|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for ctrl in controllers:
            runs = []
            for seed in seeds:
                csv_dir = None
                if seed == seeds[0] and not args.no_plots:
                    csv_dir = tempfile.mkdtemp(prefix="rcsim-")
                res, wall = run_rcsim(rcsim, path, ctrl, seed, csv_dir)
                speed.append((name, ctrl, res["duration_s"] / max(wall, 1e-6)))
                runs.append(res)
                if csv_dir:
                    png = os.path.join(plot_dir, f"{name}-{ctrl}.png")
                    subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "plot_rcsim.py"),
                                    csv_dir, "-o", png, "--title", f"{name} ({ctrl}, seed {seed})"],
                                   check=True)
            s = summarize(runs)
            lines.append(f"| {ctrl} | {s['util']} | {s['qmean']} | {s['qp95']} | {s['jain']} "
                         f"| {s['minmax']} | {s['loss']} | {s['loss_post']} | {s['frames']} "
                         f"| {s['conv']} "
                         f"| {s['reconv']} "
                         f"| {s['rates']} |")
            print(f"{name:32s} {ctrl:6s} util {s['util']:>16s} qdelay {s['qmean']:>14s} "
                  f"jain {s['jain']}", flush=True)
        if not args.no_plots:
            lines += [""] + [f"![{name} {c}](plots/{name}-{c}.png)" for c in controllers]
        lines.append("")
    factors = sorted(x for _, _, x in speed)
    lines += [f"rcsim ran these {len(speed)} runs at {factors[0]:.0f}x to {factors[-1]:.0f}x "
              "real time (wall clock of the whole process, this machine).", ""]

    replace_section(args.output, SECTION, lines, "rcsim scenarios")
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
