#!/usr/bin/env bash
# Sender: vp8enc driven by urcpsender from the receiver's TWCC feedback.
#   HOST  the receiver, default 127.0.0.1;  PORT  base port, default 5000
#   PATTERN videotestsrc pattern, default ball (compresses to ~100 kbit/s:
#           the controller then sees an application-limited source; use
#           snow for content that fills any target)
#   MAX_BITRATE  urcpsender max-bitrate in bit/s, default 20000000
#   CONTROLLER   urcpsender controller, default urcp (cnadu: run
#                pipelines/cnadu-receiver.sh on the other side)
#   GST_PLUGIN_PATH defaults to this checkout's build/gst
# Watch the controller with GST_DEBUG=urcpsender:5.
# The RTP udpsink has sync=false: urcpsender's pacer decides when packets
# leave; a syncing sink would hold each one until its frame's PTS and send
# the frame as one burst again (docs/urcpsender.md).
# Ctrl-C ends the stream with EOS (-e). GStreamer 1.22's rtpbin can lose the
# EOS of its RTCP pad, and the line stays at "Waiting for EOS...": press
# Ctrl-C again, the BYE is out by then (docs/fec.md, "EOS and rtpbin 1.22").
set -eu
. "$(dirname "$0")/common.sh"
HOST="${HOST:-127.0.0.1}"; PORT="${PORT:-5000}"
PATTERN="${PATTERN:-ball}"; MAX_BITRATE="${MAX_BITRATE:-20000000}"
CONTROLLER="${CONTROLLER:-urcp}"
TWCC="http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"
exec gst-launch-1.0 -e rtpbin name=rtpbin \
  videotestsrc is-live=true pattern="$PATTERN" ! video/x-raw,width=640,height=480,framerate=30/1 ! \
  vp8enc deadline=1 ! rtpvp8pay pt=96 ! \
  "application/x-rtp,extmap-1=(string)$TWCC" ! \
  urcpsender controller="$CONTROLLER" max-bitrate="$MAX_BITRATE" ! rtpbin.send_rtp_sink_0 \
  rtpbin.send_rtp_src_0 ! udpsink host="$HOST" port="$PORT" sync=false \
  rtpbin.send_rtcp_src_0 ! udpsink host="$HOST" port=$((PORT + 1)) sync=false async=false \
  udpsrc port=$((PORT + 5)) ! rtpbin.recv_rtcp_sink_0
