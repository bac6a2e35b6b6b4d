#!/usr/bin/env bash
# Receiver: fecdec repairs, the jitterbuffer puts repaired packets back in
# order, then VP8 is decoded. Run before pipelines/fec-sender.sh.
#   PORT      RTP port, default 5000
#   FORMAT    flexfec | ulpfec, default flexfec (must match the sender)
#   SINK      video sink, default autovideosink, or fakesink without a display
#   GST_PLUGIN_PATH defaults to this checkout's build/gst
set -eu
. "$(dirname "$0")/common.sh"
PORT="${PORT:-5000}"; FORMAT="${FORMAT:-flexfec}"
SINK="$(video_sink)"
exec gst-launch-1.0 -e \
  udpsrc port="$PORT" caps="application/x-rtp,media=video,clock-rate=90000,encoding-name=VP8,payload=96" ! \
  fecdec pt=100 format="$FORMAT" ! rtpjitterbuffer latency=100 ! \
  rtpvp8depay ! vp8dec ! videoconvert ! "$SINK"
