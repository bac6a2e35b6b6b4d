#!/usr/bin/env bash
# Receiver for the receiver-assisted controllers (cnadu): a stock rtpbin
# with rcreceiver behind it, which adds late-discard (RFC 7002/7243) and
# NADU reports to its RTCP and sets the RTCP interval by C-NADU's
# Algorithm 1. Run first, then CONTROLLER=cnadu pipelines/urcp-sender.sh.
#   HOST     where the sender runs (RTCP goes back there), default 127.0.0.1
#   PORT     base port: RTP on PORT, RTCP on PORT+1, RTCP back on PORT+5
#   LATENCY  jitterbuffer latency, the playout budget (ms), default 200
#   SINK     video sink, default autovideosink, or fakesink without a display
# Watch the reports with GST_DEBUG=rcreceiver:5.
set -eu
. "$(dirname "$0")/common.sh"
HOST="${HOST:-127.0.0.1}"; PORT="${PORT:-5000}"; SINK="$(video_sink)"
LATENCY="${LATENCY:-200}"
TWCC="http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"
exec gst-launch-1.0 -e rtpbin name=rtpbin latency="$LATENCY" \
  udpsrc port="$PORT" caps="application/x-rtp,media=video,clock-rate=90000,encoding-name=VP8,payload=96,extmap-1=(string)$TWCC" ! \
  rtpbin.recv_rtp_sink_0 \
  rtpbin. ! rcreceiver ! rtpvp8depay ! vp8dec ! videoconvert ! "$SINK" \
  udpsrc port=$((PORT + 1)) ! rtpbin.recv_rtcp_sink_0 \
  rtpbin.send_rtcp_src_0 ! udpsink host="$HOST" port=$((PORT + 5)) sync=false async=false
