#!/usr/bin/env bash
# Sender: VP8 with XOR parity FEC (fecenc) over UDP. Run
# pipelines/fec-receiver.sh first (same HOST/PORT on both).
#   HOST      receiver address, default 127.0.0.1
#   PORT      RTP port, default 5000
#   MODE      row | column | 2d | flexible, default 2d
#   OVERHEAD  percent of repair packets, default 20 (-1: COLUMNS x ROWS)
#   FORMAT    flexfec | ulpfec, default flexfec
#   GST_PLUGIN_PATH defaults to this checkout's build/gst
set -eu
. "$(dirname "$0")/common.sh"
HOST="${HOST:-127.0.0.1}"; PORT="${PORT:-5000}"; MODE="${MODE:-2d}"
OVERHEAD="${OVERHEAD:-20}"; FORMAT="${FORMAT:-flexfec}"
exec gst-launch-1.0 -e videotestsrc is-live=true pattern=ball ! \
  video/x-raw,width=640,height=480,framerate=30/1 ! \
  vp8enc deadline=1 target-bitrate=1000000 ! rtpvp8pay pt=96 ! \
  fecenc pt=100 format="$FORMAT" mode="$MODE" overhead="$OVERHEAD" ! \
  udpsink host="$HOST" port="$PORT"
