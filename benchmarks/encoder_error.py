"""How far an rcsim encoder model is from a recording of the real encoder:
the one definition used to fit the models (scripts/fit_encoders.py) and to
report their error on held-out recordings (benchmarks/bench_encoders.py).

A recording (tools/encrec, or the encoder in a real run's loop:
`benchmarks/encoder_error.py LOG OUT.csv` from an rtsim/kbench packet log)
has one line per input frame: time, target in
force, bytes out (0: dropped), key frame. The model is run on the same
targets with build/tools/rcsim/encreplay. Three parts, each relative:

- rate: mean absolute difference of the 200 ms bin rates, over the mean
  rate of the recording (how well the model follows the target, and its
  lags, over time);
- sizes: mean |log ratio| of the non-dropped frames' size quantiles (10th,
  50th, 90th, 99th percentile): the frame-size distribution, key frames
  included;
- keys: |log ratio| of the median key-frame sizes. vp8enc's key frames are
  under 1 % of its frames (one in 128), so the size quantiles do not see
  them, yet a key frame several times the budget is what fills a slow
  bottleneck's queue (vp8enc's ~11.5 KB is 90 ms at 1 Mbit/s, a queue peak
  every 4.27 s on the kernel bench); a model without key frames where the
  recording has them scores 1;
- drops: difference in the fraction of frames dropped;
- payback: how fast the frames after a key frame pay back its excess over
  the frames before it: the mean |difference| of the shares paid back
  after 10 and after 30 frames, over the key frames with the same target
  from PAYBACK_BEFORE frames before to PAYBACK_AFTER after, where the
  frames before filled at least PAYBACK_FILL of that target (the `hold`
  recordings; none in the walks, none where the content cannot fill the
  target); 0 when either side has no such key frame (no held target, or
  key frames under twice a frame, which `keys` scores). From ~0.9 Mbit/s on
  vp8enc pays back over 20-60 frames, which keeps a 1 Mbit/s queue up for
  half a second after each key frame (docs/encoders.md); rate bins and size
  quantiles hardly see it.

error = rate + 0.5 sizes + 0.5 keys + drops + 0.5 payback."""

import os
import math
import subprocess

HELD_OUT = ["steps-b", "walk-b", "replay-urcp-kernel-2", "loop-kbench-2", "hold-b"]
QUANTILES = (0.10, 0.50, 0.90, 0.99)
BIN_S = 0.2
PAYBACK_BEFORE = 60
PAYBACK_BASE = 30
PAYBACK_AFTER = 30
PAYBACK_FILL = 0.8


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


def recording_from_log(log_path, out_path, encoder, content, width, height, fps=30, flow=0,
                       note=None):
    """An encrec recording (one line per input frame) of a media flow's
    encoder in a real run, from the packet log's `frame` and `target` lines
    (tools/rtsim, tools/kbench): the frames on the capture grid, a grid
    slot without a frame written as dropped (0 bytes), each with the target
    logged last before it. None if the log has no frames for the flow."""
    frames, targets = [], []
    with open(log_path) as f:
        for ln in f:
            tok = ln.split()
            if len(tok) == 5 and tok[0] == "frame" and int(tok[1]) == flow:
                frames.append((int(tok[2]), int(tok[3]), tok[4] == "1"))
            elif len(tok) == 4 and tok[0] == "target" and int(tok[1]) == flow:
                targets.append((int(tok[2]), int(tok[3])))
    if not frames:
        return None
    frames.sort()
    targets.sort()
    period = 1e9 / fps
    t0 = frames[0][0]
    by_slot = {int(round((t - t0) / period)): (n, k) for t, n, k in frames}
    lines = [f"# encrec encoder={encoder} content={content} width={width} height={height} "
             f"fps={fps:g} live=1 loop={note or os.path.basename(log_path)}", "t_s,target_bps,bytes,key"]
    ti, target = 0, targets[0][1] if targets else 0
    for slot in range(max(by_slot) + 1):
        t = t0 + slot * period
        while ti < len(targets) and targets[ti][0] <= t:
            target = targets[ti][1]
            ti += 1
        n, k = by_slot.get(slot, (0, False))
        lines.append(f"{slot / fps:.4f},{target},{n},{int(k)}")
    with open(out_path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return load(out_path)


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


def payback_shares(frames):
    """[(share paid back after 10 frames, after 30)] for each key frame
    with the same target over PAYBACK_BEFORE frames before it and
    PAYBACK_AFTER after: the frames' shortfall against the mean of the
    PAYBACK_BASE before, over the key frame's excess above that mean."""
    out = []
    fps = 1.0 / (frames[1].t - frames[0].t) if len(frames) > 1 and \
        frames[1].t > frames[0].t else 30.0
    for i, f in enumerate(frames):
        if not f.key or i < PAYBACK_BEFORE or i + PAYBACK_AFTER >= len(frames):
            continue
        window = frames[i - PAYBACK_BEFORE:i + PAYBACK_AFTER + 1]
        if any(g.target != f.target for g in window):
            continue
        base = sum(g.bytes for g in frames[i - PAYBACK_BASE:i]) / PAYBACK_BASE
        excess = f.bytes - base
        if excess <= base or base * 8 * fps < PAYBACK_FILL * f.target:
            continue
        paid = [sum(base - g.bytes for g in frames[i + 1:i + 1 + n]) / excess
                for n in (10, 30)]
        out.append(tuple(paid))
    return out


def mean_shares(shares):
    """The mean of each share (after 10 frames, after 30) over key frames."""
    return [sum(s[k] for s in shares) / len(shares) for k in range(2)]


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
    keys = abs(math.log(quantile(ks, 0.5) / quantile(kr, 0.5))) if kr and ks else \
        (1.0 if kr else 0.0)
    drops = abs(sum(f.bytes == 0 for f in real) / max(len(real), 1) -
                sum(f.bytes == 0 for f in sim) / max(len(sim), 1))
    pr, ps = payback_shares(real), payback_shares(sim)
    payback = sum(abs(a - b) for a, b in zip(mean_shares(ps), mean_shares(pr))) / 2 \
        if pr and ps else 0.0
    return {"rate": rate, "sizes": sizes, "keys": keys, "drops": drops, "payback": payback,
            "total": rate + 0.5 * sizes + 0.5 * keys + drops + 0.5 * payback}


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


def main():
    import argparse
    ap = argparse.ArgumentParser(
        description="Write an encrec recording of the encoder in a real run "
        "(rtsim or kbench --log), from its packet log's frame and target lines.")
    ap.add_argument("log")
    ap.add_argument("out")
    ap.add_argument("--encoder", default="vp8enc")
    ap.add_argument("--content", default="scroll")
    ap.add_argument("--resolution", default="640x480")
    ap.add_argument("--fps", type=float, default=30)
    ap.add_argument("--flow", type=int, default=0)
    ap.add_argument("--note", help="where the log came from (the header's loop=)")
    a = ap.parse_args()
    w, h = (int(x) for x in a.resolution.split("x"))
    if recording_from_log(a.log, a.out, a.encoder, a.content, w, h, a.fps, a.flow,
                          a.note) is None:
        raise SystemExit(f"{a.log}: no frame lines for flow {a.flow}")


if __name__ == "__main__":
    main()
