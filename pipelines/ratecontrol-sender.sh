#!/usr/bin/env bash
# Sender in one element: ratecontrolbin (vp8enc, payloader, fecenc,
# urcpsender, rtpbin, UDP). Start pipelines/ratecontrol-receiver.sh first.
#   HOST         receiver address, default 127.0.0.1
#   PORT         base port (RTP PORT, RTCP PORT+1, feedback back on PORT+5)
#   CONTROLLER   urcp (default) or um
#   MAX_BITRATE  bit/s, default 4000000
#   FEC          repair packets per media packet, percent, default 10 (0: off)
set -eu
. "$(dirname "$0")/common.sh"
HOST="${HOST:-127.0.0.1}"; PORT="${PORT:-5000}"
exec gst-launch-1.0 -e videotestsrc is-live=true pattern="${PATTERN:-smpte}" ! \
  video/x-raw,width=640,height=480,framerate=30/1 ! \
  ratecontrolbin host="$HOST" port="$PORT" controller="${CONTROLLER:-urcp}" \
    max-bitrate="${MAX_BITRATE:-4000000}" fec-overhead="${FEC:-10}"
