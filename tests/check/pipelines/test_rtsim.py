#!/usr/bin/python3
"""Runs tools/rtsim/rtsim.py (real pipelines: vp8enc, urcpsender, rtpbin with
TWCC, UDP, linksim; its metrics computed by `RCSIM --from-log` from the
packets it logged) on a short scenario, and rcsim on the same file, and
checks that the real-time run prints the same JSON schema and plausible,
physically consistent numbers.

    test_rtsim.py RTSIM RCSIM SCENARIO"""
import json
import subprocess
import sys

from realtime_check import check_schema, fail

rtsim, rcsim, scenario = sys.argv[1:4]

rt = subprocess.run([sys.executable, rtsim, scenario, "--json", "--rcsim", rcsim],
                    capture_output=True, text=True)
if rt.returncode != 0:
    fail(f"rtsim exited {rt.returncode}: {rt.stderr[-2000:]}")
real = json.loads(rt.stdout)
sim = json.loads(subprocess.run([rcsim, scenario, "--json"], capture_output=True,
                                text=True, check=True).stdout)
print("rtsim:", json.dumps(real))

check_schema(real, sim, "rtsim")

flows = {f["name"]: f for f in real["flows"]}
video, cbr = flows["video"], flows["cbr"]
cap_kbps = 1500.0

# The link cannot deliver more than its capacity (5 % for bin edges).
if not 0.2 < real["link"]["utilization"] <= 1.05:
    fail(f"utilization {real['link']['utilization']}")
# The media flow got through and stayed under the capacity.
if not 100 < video["goodput_kbps"] < cap_kbps * 1.05:
    fail(f"media goodput {video['goodput_kbps']}")
# The constant-rate source sends its rate (plus 28 bytes of overhead per
# 1212-byte packet); the tolerance covers audio-clock start-up.
want = 300 * (1212 + 28) / 1200.0
if abs(cbr["send_kbps"] - want) > 0.2 * want:
    fail(f"CBR send {cbr['send_kbps']} kbit/s, want ~{want:.0f}")
# Queueing delay is bounded by the 300 ms queue (plus the serialization of
# the packet itself).
for f in (video, cbr):
    q = f["qdelay_ms"]
    if q["max"] is None or not 0 <= q["mean"] <= q["p95"] <= q["max"] <= 320:
        fail(f"{f['name']} qdelay {q}")
# The controller keeps the queue well below its limit on a clean link.
if video["qdelay_ms"]["mean"] > 150:
    fail(f"media mean queueing delay {video['qdelay_ms']['mean']} ms")
if real["realtime"]["skipped_flows"]:
    fail("flows skipped")
# Every packet that did not come out of linksim is one its stats count as
# dropped (the log's drops are the link's).
for c in real["realtime"]["linksim_check"]:
    if c["not_out"] != c["linksim_drops"]:
        fail(f"packet log against linksim's stats: {c}")
print("OK")
