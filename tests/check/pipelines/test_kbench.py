#!/usr/bin/python3
"""Runs tools/kbench/kbench.py (real pipelines through a kernel tbf queue
between network namespaces; its metrics computed by `RCSIM --from-log`) for
10 s on a constant 1 Mbit/s scenario and checks that it prints every field
rcsim prints, plausible numbers, and a log whose drops are tbf's; then for
8 s on TCP_SCENARIO (one long TCP flow with a 50 ms path), that the TCP
flow's ACKs were held for its round trip's 100 ms by the delay line
(tools/kbench/tundelay.py) and that it filled the link.

    test_kbench.py KBENCH RCSIM SCENARIO TCP_SCENARIO

Exits 77 (meson: skipped) when not root or without kernel support (kbench
itself exits 77 then)."""
import json
import os
import subprocess
import sys

from realtime_check import check_schema, fail

kbench, rcsim, scenario, tcp_scenario = sys.argv[1:5]
DURATION = 10
CAPACITY_BPS = 1000000
QUEUE_MS = 300
# One full-size packet's serialization at the capacity.
PACKET_MS = 1500 * 8 * 1000 / CAPACITY_BPS
# The receiver reads a packet when its thread runs; on a loaded machine
# that adds a few ms (kbench's realtime.timing_check measures it).
WAKEUP_MS = 25

if os.geteuid() != 0:
    print("SKIP: kbench needs root (network namespaces, tc)")
    sys.exit(77)


def run_kbench(path, duration, skip_prefix):
    """kbench's JSON for `path`; exits 77 (saying `skip_prefix`) when kbench
    skips, fails when it fails."""
    run = subprocess.run([sys.executable, kbench, path, "--duration", str(duration), "--json",
                          "--rcsim", rcsim], capture_output=True, text=True)
    if run.returncode == 77:
        print(skip_prefix, run.stderr.strip())
        sys.exit(77)
    if run.returncode != 0:
        fail(f"kbench {path} exited {run.returncode}: {run.stderr[-2000:]}")
    return json.loads(run.stdout)


real = run_kbench(scenario, DURATION, "SKIP:")
sim = json.loads(subprocess.run([rcsim, scenario, "--json", "--duration", str(DURATION)],
                                capture_output=True, text=True, check=True).stdout)
print("kbench:", json.dumps(real))

check_schema(real, sim, "kbench")
rt = real["realtime"]
if rt["mode"] != "kbench" or rt["not_expressed"] or rt["skipped_flows"]:
    fail(f"realtime block {rt}")

util = real["link"]["utilization"]
if not 0.3 < util <= 1.05:
    fail(f"utilization {util}")
video = real["flows"][0]
if not 100 < video["goodput_kbps"] <= CAPACITY_BPS / 1000 * 1.05:
    fail(f"media goodput {video['goodput_kbps']}")
# Nothing waits longer than a full queue and its own serialization.
bound = QUEUE_MS + PACKET_MS
for name, q in (("link", real["link"]["qdelay_ms"]), ("video", video["qdelay_ms"])):
    if q["max"] is None or not 0 <= q["mean"] <= q["p95"] <= q["max"]:
        fail(f"{name} qdelay {q}")
    if q["p95"] > bound or q["max"] > bound + WAKEUP_MS:
        fail(f"{name} qdelay {q} beyond the {QUEUE_MS} ms queue plus one packet ({bound} ms)")
# Every packet the log says was dropped is one tbf counted, and the other
# way round; the same for the packets it sent on.
tc = rt["tc_check"]
if tc["tc_drops"] != tc["log_drops"] or not tc["drained"]:
    fail(f"packet log against tc's counters: {tc}")
if tc["tc_packets"] != tc["log_packets"] + tc["tcp_after_end"]:
    fail(f"packets sent by tbf against the log: {tc}")
# tbf's peak bucket is the largest packet the flows send (kbench's
# peak_mtu): none of them was larger, so none was dropped for its size.
if rt["over_peak_mtu"] != 0 or rt["bottleneck"]["peak_mtu"] > 1600:
    fail(f"peak bucket {rt['bottleneck']['peak_mtu']} B, {rt['over_peak_mtu']} packets above it")

# TCP gets its scenario's delay from the delay line (no netem here).
TCP_RTT_MS = 100
real = run_kbench(tcp_scenario, 8, "SKIP (the media part passed):")
hold = real["realtime"].get("tcp_delay_line", {}).get("tcp")
print("kbench TCP:", json.dumps(real["flows"]), "delay line:", hold)
if not hold or not TCP_RTT_MS <= hold["p50_ms"] <= TCP_RTT_MS + WAKEUP_MS:
    fail(f"the TCP flow's ACKs were held {hold}, not its {TCP_RTT_MS} ms round trip")
if any("delay" in m for m in real["realtime"]["not_expressed"]):
    fail(f"not expressed: {real['realtime']['not_expressed']}")
if real["link"]["utilization"] < 0.8:
    fail(f"one TCP flow used {real['link']['utilization']} of the link")
print("OK")
