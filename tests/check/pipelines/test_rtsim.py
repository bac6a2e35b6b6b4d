#!/usr/bin/python3
"""Runs tools/rtsim/rtsim.py (real pipelines: vp8enc, urcpsender, rtpbin with
TWCC, UDP, linksim; its metrics computed by `RCSIM --from-log` from the
packets it logged) on a short scenario, and rcsim on the same file, and
checks that the real-time run prints the same JSON schema and plausible,
physically consistent numbers.

    test_rtsim.py RTSIM RCSIM SCENARIO"""
import atexit
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile

from realtime_check import check_schema, fail

rtsim, rcsim, scenario = sys.argv[1:4]

csv_dir = tempfile.mkdtemp(prefix="test-rtsim-")
atexit.register(shutil.rmtree, csv_dir, True)
rt = subprocess.run([sys.executable, rtsim, scenario, "--json", "--rcsim", rcsim,
                     "--csv", csv_dir], capture_output=True, text=True)
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
# The controller keeps the queue below its limit on a clean link, and
# empties it once the cross traffic has left (at 10 s). Not a tighter mean:
# on the real pipeline the mean follows the R^MAX the start-up ramp reads.
# At 1.40-1.46 Mbit/s (the link carries about 1.47 of RTP) the restart at
# 85 % of it and the 0.3 Mbit/s that joins at 4 s overfill the link, and
# eq. 18, whose delta^AVE still holds the ramp's own queue, cuts by only
# 25-40 kbit/s per second: the queue climbs to 160-280 ms and stands until
# the cross traffic leaves. In 50 runs of one build: R^MAX >= 1.40 in 9, means of
# 35-153 ms; below 1.40 in 41, means of 8-56 ms. In the last second the
# queue was at most 8.3 ms in every run (docs/results.md, 2026-11-28,
# sixth session).
if video["qdelay_ms"]["mean"] > 200:
    fail(f"media mean queueing delay {video['qdelay_ms']['mean']} ms")
with open(os.path.join(csv_dir, "flow-0.csv")) as f:
    tail = [float(r["qdelay_ms"]) for r in csv.DictReader(f)
            if 11.0 <= float(r["t_s"]) < 12.0 and float(r["delivered_pkts"]) > 0]
if not tail:
    fail("no media packet delivered in the last second")
if sum(tail) / len(tail) > 50:
    fail(f"media queueing delay in the last second {tail} ms: not drained")
if real["realtime"]["skipped_flows"]:
    fail("flows skipped")
# Every packet that did not come out of linksim is one its stats count as
# dropped (the log's drops are the link's).
for c in real["realtime"]["linksim_check"]:
    if c["not_out"] != c["linksim_drops"]:
        fail(f"packet log against linksim's stats: {c}")
print("OK")
