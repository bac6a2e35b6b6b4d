#!/usr/bin/env bash
# Receiver: a stock rtpbin that sends transport-wide congestion feedback.
# Run first, then pipelines/urcp-sender.sh (same HOST/PORT on both).
#   HOST  where the sender runs (RTCP goes back there), default 127.0.0.1
#   PORT  base port: RTP on PORT, RTCP on PORT+1, feedback back on PORT+5
#   SINK  video sink, default autovideosink, or fakesink without a display
set -eu
. "$(dirname "$0")/common.sh"
HOST="${HOST:-127.0.0.1}"; PORT="${PORT:-5000}"; SINK="$(video_sink)"
TWCC="http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"
exec gst-launch-1.0 -e rtpbin name=rtpbin \
  udpsrc port="$PORT" caps="application/x-rtp,media=video,clock-rate=90000,encoding-name=VP8,payload=96,extmap-1=(string)$TWCC" ! \
  rtpbin.recv_rtp_sink_0 \
  rtpbin. ! rtpvp8depay ! vp8dec ! videoconvert ! "$SINK" \
  udpsrc port=$((PORT + 1)) ! rtpbin.recv_rtcp_sink_0 \
  rtpbin.send_rtcp_src_0 ! udpsink host="$HOST" port=$((PORT + 5)) sync=false async=false
