#!/usr/bin/python3
"""Plots an `rcsim --csv DIR` run (or any tool writing the same CSV files,
see docs/metrics.md) into one PNG with three panels sharing the time axis:

  1. rate: the bottleneck capacity and each flow's goodput (solid), a media
     flow's controller target (dashed) and its max-min fair share (dotted);
  2. queueing delay: each flow's mean per 200 ms, and the link's queue;
  3. loss: each flow's packet loss per 200 ms.

    scripts/plot_rcsim.py CSV_DIR [-o OUT.png] [--title TEXT]

Needs matplotlib (Debian: python3-matplotlib, installed by scripts/setup.sh).
"""

import argparse
import csv
import os
import sys

DEBIAN_PYTHON = "/usr/bin/python3"


def import_matplotlib():
    try:
        import matplotlib
    except ImportError:
        # Started by another interpreter (a virtualenv, pyenv) without
        # matplotlib: Debian's python3-matplotlib lives with /usr/bin/python3.
        if os.path.realpath(sys.executable) != os.path.realpath(DEBIAN_PYTHON) \
                and os.access(DEBIAN_PYTHON, os.X_OK):
            os.execv(DEBIAN_PYTHON, [DEBIAN_PYTHON] + sys.argv)
        sys.exit("plot_rcsim.py: matplotlib not found (apt-get install python3-matplotlib)")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def read_csv(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def column(rows, key):
    out = []
    for r in rows:
        try:
            out.append(float(r[key]))
        except (KeyError, TypeError, ValueError):
            out.append(float("nan"))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv_dir")
    ap.add_argument("-o", "--output", default=None,
                    help="PNG to write (default: CSV_DIR/rcsim.png)")
    ap.add_argument("--title", default=None)
    args = ap.parse_args()

    plt = import_matplotlib()
    cap = read_csv(os.path.join(args.csv_dir, "capacity.csv"))
    flows = read_csv(os.path.join(args.csv_dir, "flows.csv"))
    out = args.output or os.path.join(args.csv_dir, "rcsim.png")

    fig, (ax_rate, ax_delay, ax_loss) = plt.subplots(
        3, 1, figsize=(11, 9), sharex=True,
        gridspec_kw={"height_ratios": [3, 2, 1.3]})
    t_cap = column(cap, "t_s")
    ax_rate.step(t_cap, [v / 1000 for v in column(cap, "capacity_kbps")], where="post",
                 color="black", linewidth=1.5, label="capacity")
    if any(v > 0 for v in column(cap, "reverse_capacity_kbps")):
        ax_rate.step(t_cap, [v / 1000 for v in column(cap, "reverse_capacity_kbps")],
                     where="post", color="grey", linewidth=1, linestyle="--",
                     label="reverse capacity")
    ax_delay.plot(t_cap, column(cap, "queue_ms"), color="black", linewidth=0.8,
                  alpha=0.6, label="link queue")

    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, fl in enumerate(flows):
        rows = read_csv(os.path.join(args.csv_dir, f"flow-{fl['id']}.csv"))
        t = column(rows, "t_s")
        active = column(rows, "active")
        c = colors[i % len(colors)]
        label = f"{fl['name']} ({fl['kind']}, {fl['controller']}" + \
            (", reverse)" if fl.get("direction") == "reverse" else ")")

        def only_active(values):
            return [v if a > 0 or v > 0 else float("nan") for v, a in zip(values, active)]

        ax_rate.plot(t, [v / 1000 for v in only_active(column(rows, "goodput_kbps"))],
                     color=c, linewidth=1, label=label)
        if fl["kind"] == "media" and rows and "target_kbps" in rows[0]:  # a log may lack it
            ax_rate.plot(t, [v / 1000 for v in only_active(column(rows, "target_kbps"))],
                         color=c, linewidth=0.8, linestyle="--", alpha=0.8)
        share = [v / 1000 if a > 0 else float("nan")
                 for v, a in zip(column(rows, "fair_share_kbps"), active)]
        ax_rate.plot(t, share, color=c, linewidth=0.8, linestyle=":", alpha=0.8)
        qd = [v if v > 0 else float("nan") for v in column(rows, "qdelay_ms")]
        ax_delay.plot(t, qd, color=c, linewidth=0.8, label=fl["name"])
        loss = [100 * v for v in column(rows, "loss")]
        ax_loss.plot(t, loss, color=c, linewidth=0.8, marker=".", markersize=2,
                     linestyle="none" if fl["kind"] == "tcp" else "-")

    ax_rate.set_ylabel("Mbit/s")
    ax_rate.set_ylim(bottom=0)
    ax_rate.legend(loc="upper right", fontsize=7, ncol=2)
    ax_rate.set_title(args.title or os.path.basename(os.path.normpath(args.csv_dir)))
    ax_rate.text(0.005, 0.98, "solid: goodput   dashed: target   dotted: fair share",
                 transform=ax_rate.transAxes, fontsize=7, va="top")
    ax_delay.set_ylabel("queueing delay (ms)")
    ax_delay.set_ylim(bottom=0)
    ax_delay.legend(loc="upper right", fontsize=7, ncol=3)
    ax_loss.set_ylabel("loss (%)")
    ax_loss.set_ylim(bottom=0)
    ax_loss.set_xlabel("time (s)")
    for ax in (ax_rate, ax_delay, ax_loss):
        ax.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print(out)


if __name__ == "__main__":
    main()
