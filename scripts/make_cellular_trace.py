#!/usr/bin/env python3
"""Writes tests/scenarios/traces/cellular-synthetic.trace: a *synthetic*
cellular uplink capacity trace in Mahimahi's format (one line per
1500-byte delivery opportunity, in ms).

No measured trace ships with the project (none was at hand that we may
redistribute), so this one is made from a stated model, deterministic for a
seed, to give the mobile controllers a capacity that moves the way seed
001 (sec. III-B) says a mobile link's does: "rapid and short-term
fluctuations in short-term capacity" around a mean that drifts, with
occasional deep fades.

The model, per 100 ms slot:
  - log-capacity follows an Ornstein-Uhlenbeck process around
    log(MEAN_BPS), time constant 5 s, stationary spread sigma = 0.5
    (a 2 Mbit/s mean moves mostly within 0.75-5.4 Mbit/s);
  - a fade starts with probability 1/300 per slot (one every ~30 s) and
    lasts 0.5-2 s, during which capacity is 10 % of the process;
  - capacity is clamped to 100 kbit/s .. 10 Mbit/s;
  - delivery opportunities are spread evenly inside each slot, with the
    fraction carried over so no capacity is lost to rounding.

Usage: scripts/make_cellular_trace.py [--seed N] [--seconds S] [--out PATH]
"""
import argparse
import math
import os
import random

MEAN_BPS = 2_000_000
TAU_S = 5.0
SIGMA = 0.5
SLOT_S = 0.1
FADE_P = 1 / 300
FADE_FACTOR = 0.1
MIN_BPS, MAX_BPS = 100_000, 10_000_000
OPP_BITS = 1500 * 8


def generate(seed, seconds):
    rng = random.Random(seed)
    x = 0.0                     # log-capacity deviation
    a = math.exp(-SLOT_S / TAU_S)
    step_sd = SIGMA * math.sqrt(1 - a * a)
    fade_left = 0
    carry = 0.0
    times = []
    for slot in range(int(round(seconds / SLOT_S))):
        x = a * x + rng.gauss(0, step_sd)
        if fade_left == 0 and rng.random() < FADE_P:
            fade_left = rng.randint(5, 20)
        bps = MEAN_BPS * math.exp(x)
        if fade_left:
            bps *= FADE_FACTOR
            fade_left -= 1
        bps = min(max(bps, MIN_BPS), MAX_BPS)
        opps = bps * SLOT_S / OPP_BITS + carry
        n = int(opps)
        carry = opps - n
        t0 = slot * SLOT_S * 1000
        for i in range(n):
            # Mahimahi times are whole ms from 1; several per ms are fine.
            times.append(int(t0 + (i + 0.5) * SLOT_S * 1000 / n) + 1)
    return times


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--seconds", type=float, default=120)
    ap.add_argument("--out", default=os.path.join(
        here, "..", "tests", "scenarios", "traces",
        "cellular-synthetic.trace"))
    args = ap.parse_args()
    times = generate(args.seed, args.seconds)
    with open(args.out, "w") as f:
        f.write("".join(f"{t}\n" for t in times))
    print(f"{args.out}: {len(times)} opportunities, mean "
          f"{len(times) * OPP_BITS / args.seconds / 1e6:.2f} Mbit/s")


if __name__ == "__main__":
    main()
