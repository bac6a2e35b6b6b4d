#!/usr/bin/env bash
# Demo: runs pipelines/urcp-receiver.sh and pipelines/urcp-sender.sh as two
# processes over UDP on loopback for DURATION seconds, and prints the
# controller's decisions as they happen.
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
DURATION="${DURATION:-20}"
# Noise fills any target, so the start-up ramp and steady state show; the
# cap keeps a 2-core machine comfortable.
export PATTERN="${PATTERN:-snow}" MAX_BITRATE="${MAX_BITRATE:-3000000}"
"$here/urcp-receiver.sh" >/dev/null 2>&1 &
recv=$!
trap 'kill $recv 2>/dev/null || true' EXIT
sleep 1
echo "Streaming for ${DURATION}s; urcpsender's decisions:"
GST_DEBUG="urcpsender:5,rcurcp:5" GST_DEBUG_NO_COLOR=1 timeout -s INT "$DURATION" \
  "$here/urcp-sender.sh" 2>&1 | grep --line-buffered -E "target [0-9]+ -> |state |start-up done|driving|configured|WARN" \
  | sed -u 's/^.*gsturcpsender.c:[0-9]*:[a-z_]*:<[a-z0-9]*> //; s/^.*rc-urcp.c:[0-9]*:[a-z_]*: //' || true
echo "Demo done."
