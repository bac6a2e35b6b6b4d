#!/usr/bin/env bash
# Receiver: fecdec repairs, the jitterbuffer puts repaired packets back in
# order, then VP8 is decoded. Run before pipelines/fec-sender.sh.
#   PORT      RTP port, default 5000
#   FORMAT    flexfec | ulpfec, default flexfec (must match the sender)
#   SINK      video sink, default autovideosink (fakesink for no display)
set -eu
PORT="${PORT:-5000}"; FORMAT="${FORMAT:-flexfec}"
SINK="${SINK:-autovideosink}"
exec gst-launch-1.0 -e \
  udpsrc port="$PORT" caps="application/x-rtp,media=video,clock-rate=90000,encoding-name=VP8,payload=96" ! \
  fecdec pt=100 format="$FORMAT" ! rtpjitterbuffer latency=100 ! \
  rtpvp8depay ! vp8dec ! videoconvert ! "$SINK"
