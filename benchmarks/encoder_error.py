"""How far an rcsim encoder model is from a recording of the real encoder:
the one definition used to fit the models (scripts/fit_encoders.py) and to
report their error on held-out recordings (benchmarks/bench_encoders.py).

A recording (tools/encrec) has one line per input frame: time, target in
force, bytes out (0: dropped), key frame. The model is run on the same
targets with build/tools/rcsim/encreplay. Three parts, each relative:

- rate: mean absolute difference of the 200 ms bin rates, over the mean
  rate of the recording (how well the model follows the target, and its
  lags, over time);
- sizes: mean |log ratio| of the non-dropped frames' size quantiles (10th,
  50th, 90th, 99th percentile): the frame-size distribution, key frames
  included;
- keys: |log ratio| of the median key-frame sizes. Key frames are under 1 %
  of the frames (one in 128 for vp8enc), so the size quantiles do not see
  them, yet a key frame several times the budget is what fills a slow
  bottleneck's queue (a 30 KB vp8enc key frame is 240 ms at 1 Mbit/s; the
  kernel bench's URCP cycles on vp8enc's 4.3 s key-frame period);
- drops: difference in the fraction of frames dropped.

error = rate + 0.5 sizes + 0.5 keys + drops."""

import os
import math
import subprocess

HELD_OUT = ["steps-b", "walk-b", "replay-urcp-kernel-2"]
QUANTILES = (0.10, 0.50, 0.90, 0.99)
BIN_S = 0.2


class Frame:
    __slots__ = ("t", "target", "bytes", "key")

    def __init__(self, t, target, nbytes, key):
        self.t, self.target, self.bytes, self.key = t, target, nbytes, key


class Recording:
    def __init__(self, path, header, frames):
        self.path, self.header, self.frames = path, header, frames
        fields = dict(kv.split("=", 1) for kv in header.split()[2:] if "=" in kv)
        self.fps = float(fields.get("fps", 30))
        self.pixels = int(fields.get("width", 640)) * int(fields.get("height", 480))
        self.content = fields.get("content")


def parse(path, text):
    lines = text.splitlines()
    if not lines or not lines[0].startswith("# encrec "):
        raise ValueError(f"{path}: not an encrec recording")
    frames = []
    for ln in lines[1:]:
        if not ln or ln.startswith("t_s"):
            continue
        t, target, nbytes, key = ln.split(",")
        frames.append(Frame(float(t), float(target), int(nbytes), key == "1"))
    return Recording(path, lines[0], frames)


def load(path):
    with open(path) as f:
        return parse(path, f.read())


def pairs(rec_dir):
    """(encoder, content) pairs that have recordings."""
    out = set()
    for f in os.listdir(rec_dir):
        if f.endswith(".csv"):
            enc, content = f.split("-")[:2]
            out.add((enc, content))
    return sorted(out)


def bin_rates(frames, span=BIN_S):
    bins = {}
    for f in frames:
        b = int(f.t / span + 1e-9)
        bins[b] = bins.get(b, 0) + f.bytes * 8
    if not bins:
        return []
    return [bins.get(b, 0) / span for b in range(min(bins), max(bins) + 1)]


def quantile(sorted_vals, q):
    return sorted_vals[min(int(q * len(sorted_vals)), len(sorted_vals) - 1)]


def error(real, sim):
    """The parts and the total, comparing two frame lists."""
    rr, rs = bin_rates(real), bin_rates(sim)
    n = min(len(rr), len(rs))
    mean = sum(rr[:n]) / n if n else 0.0
    # relative to the recording's mean rate (a silent recording: absolute, in Mbit/s)
    rate = sum(abs(a - b) for a, b in zip(rr[:n], rs[:n])) / n / (mean or 1e6) if n else 1.0
    sr = sorted(f.bytes for f in real if f.bytes)
    ss = sorted(f.bytes for f in sim if f.bytes)
    if sr and ss:
        sizes = sum(abs(math.log(quantile(ss, q) / quantile(sr, q))) for q in QUANTILES) \
            / len(QUANTILES)
    else:
        sizes = 1.0
    kr = sorted(f.bytes for f in real if f.key and f.bytes)
    ks = sorted(f.bytes for f in sim if f.key and f.bytes)
    keys = abs(math.log(quantile(ks, 0.5) / quantile(kr, 0.5))) if kr and ks else 0.0
    drops = abs(sum(f.bytes == 0 for f in real) / max(len(real), 1) -
                sum(f.bytes == 0 for f in sim) / max(len(sim), 1))
    return {"rate": rate, "sizes": sizes, "keys": keys, "drops": drops,
            "total": rate + 0.5 * sizes + 0.5 * keys + drops}


def replay(build, rec, enc, content, params=None, seed=1):
    """The model's frames on `rec`'s targets."""
    cmd = [os.path.join(build, "tools", "rcsim", "encreplay"), rec.path, "-e", enc,
           "-s", str(seed)]
    if content:
        cmd += ["-c", content]
    if params:
        cmd += ["--set", ",".join(f"{k}={v:.6g}" for k, v in params.items())]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: {p.stderr.strip()}")
    return parse(rec.path, p.stdout).frames


def error_of(build, enc, content, recs, params=None):
    """Mean total error over recordings."""
    return sum(error(r.frames, replay(build, r, enc, content, params))["total"]
               for r in recs) / len(recs)
