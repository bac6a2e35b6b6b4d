"""What the real-time runners' tests (test_rtsim.py, test_kbench.py) share:
failing with a message, and comparing a run's JSON with rcsim's schema."""
import sys


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def keys(obj, prefix=""):
    """Set of dotted key paths (list elements share one path)."""
    out = set()
    if isinstance(obj, dict):
        for k, v in obj.items():
            out.add(prefix + k)
            out |= keys(v, prefix + k + ".")
    elif isinstance(obj, list):
        for v in obj:
            out |= keys(v, prefix + "[].")
    return out


def check_schema(real, sim, runner):
    """Every field rcsim prints is in the real-time run's JSON too (the
    runner adds a `realtime` block of its own)."""
    missing = keys(sim) - keys(real)
    if missing:
        fail(f"fields rcsim prints but {runner} does not: {sorted(missing)}")
