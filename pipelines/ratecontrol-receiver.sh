#!/usr/bin/env bash
# Receiver in one element: ratecontrolrecv (rtpbin sending transport-wide
# feedback, jitterbuffer, fecdec, VP8 depayloader and decoder).
# Run first, then pipelines/ratecontrol-sender.sh (same HOST/PORT on both).
#   HOST  where the sender runs (RTCP goes back there), default 127.0.0.1
#   PORT  base port: RTP on PORT, RTCP on PORT+1, feedback back on PORT+5
#   SINK  video sink, default autovideosink, or fakesink without a display
set -eu
. "$(dirname "$0")/common.sh"
HOST="${HOST:-127.0.0.1}"; PORT="${PORT:-5000}"; SINK="$(video_sink)"
exec gst-launch-1.0 -e ratecontrolrecv port="$PORT" sender-host="$HOST" ! \
  videoconvert ! "$SINK"
