#!/usr/bin/env python3
"""Records real encoders answering changing targets with build/tools/encrec/encrec
(set up as urcpsender sets them up), for calibrating and checking rcsim's
encoder models. Writes one CSV per (encoder, content, schedule) into
data/encoders/recordings/ (small: one line per frame).

    scripts/record_encoders.py [--build build] [--only SUBSTRING] [--missing]

Schedules: `steps` and `walk*` (random walks around a level, seeded) are for
fitting; `steps-b`, `walk-b` and the replays of real controller targets
(data/encoders/targets/*.txt, taken from urcpsender's debug log on a real
bottleneck) include held-out ones: which recordings fit and which check is
set in scripts/fit_encoders.py. 640x480 at 30 fps, the set-up of the kernel
bench and of the measurements in shared/findings."""

import argparse
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "data", "encoders")

SCHEDULES = {
    "steps": ("0:1000000,4:300000,8:2000000,12:600000,16:1400000", None, 20),
    # the content's floor and ceiling: far below and far above what it needs
    "extremes": ("0:100000,6:20000000", None, 12),
    "walk1": ("0:800000", 1, 20),
    "walk2": ("0:1500000", 2, 20),
    "steps-b": ("0:1500000,5:700000,10:250000,15:1200000", None, 20),
    "walk-b": ("0:500000", 3, 20),
    # targets held for 20 s each, set again after the first frame as
    # urcpsender's session does (encrec --retarget-after 1): how the frames
    # after each key frame pay back its excess, which varies with the
    # target (docs/encoders.md)
    "hold": ("0:600000,20:880000,40:1200000,60:1500000", None, 80, 1),
    "hold-b": ("0:1000000,20:700000,40:2000000", None, 60, 1),
}
CONTENTS = {
    "vp8enc": ["scroll", "snow", "scenes", "ball"],
    "vp9enc": ["scroll", "snow"],
    "x264enc": ["scroll", "snow"],
}
# Schedules left out for a pair, by name. None since vp9enc got a fixed speed
# (2026-11-28, gst/gstrcencoder.c): with libvpx's automatic one it encoded
# 640x480 noise at about a quarter of real time, and only four schedules were
# recorded for vp9enc on snow.
ONLY = {}


def replays():
    d = os.path.join(DATA, "targets")
    for f in sorted(os.listdir(d)) if os.path.isdir(d) else []:
        if f.endswith(".txt"):
            with open(os.path.join(d, f)) as fh:
                text = fh.read().strip()
            last = float(text.split(",")[-1].split(":")[0])
            yield "replay-" + f[:-4], (text, None, int(last) + 1)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--only", default=None)
    ap.add_argument("--missing", action="store_true",
                    help="only record files that are not there yet (resume an interrupted run)")
    args = ap.parse_args()
    encrec = os.path.join(args.build, "tools", "encrec", "encrec")
    if not os.access(encrec, os.X_OK):
        sys.exit(f"{encrec} not found: build first")
    out_dir = os.path.join(DATA, "recordings")
    os.makedirs(out_dir, exist_ok=True)
    schedules = dict(SCHEDULES)
    schedules.update(dict(replays()))
    for enc, contents in CONTENTS.items():
        for content in contents:
            for name, (targets, walk, dur, *retarget) in schedules.items():
                out = os.path.join(out_dir, f"{enc}-{content}-{name}.csv")
                if args.only and args.only not in os.path.basename(out):
                    continue
                if (enc, content) in ONLY and name not in ONLY[(enc, content)]:
                    continue
                if args.missing and os.path.exists(out) and os.path.getsize(out) > 0:
                    continue
                cmd = [encrec, "-e", enc, "-c", content, "-t", targets, "-d", str(dur),
                       "-o", out]
                if walk is not None:
                    cmd += ["-w", str(walk)]
                if retarget:
                    cmd += ["--retarget-after", str(retarget[0])]
                p = subprocess.run(cmd, capture_output=True, text=True)
                if p.returncode != 0:
                    sys.exit(f"encrec failed: {' '.join(cmd)}\n{p.stderr}")
                print(p.stderr.strip(), "->", os.path.relpath(out, ROOT), flush=True)


if __name__ == "__main__":
    main()
