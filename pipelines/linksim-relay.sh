#!/usr/bin/env bash
# A bottleneck link between urcp-sender.sh and urcp-receiver.sh (or any UDP
# sender/receiver pair): RTP and RTCP share one linksim queue on the way
# there, the receiver's feedback has its own return path.
#
#   pipelines/urcp-receiver.sh                  # RTP 5000, RTCP 5001, feedback to 5005
#   pipelines/linksim-relay.sh                  # 6000->5000, 6001->5001 through the link, 5005->6005 back
#   PORT=6000 pipelines/urcp-sender.sh          # sends to 6000/6001, listens on 6005
#
#   PROFILE   clean (default), cable, 4g, wimax: seed 000 (URCP) sec. II's
#             inherent delay and loss noise, see docs/linksim.md
#   CAPACITY  bit/s, default 2000000     SCHEDULE  e.g. "0:2000000,20:500000" (instead)
#   DELAY     one-way propagation, ns, default 20000000 (each direction)
#   QUEUE_MS  tail-drop limit, default 300 (RFC 8867 sec. 5)
#   SEED      default 1;  IN 6000, OUT 5000, HOST 127.0.0.1
#   GST_PLUGIN_PATH defaults to this checkout's build/gst
# Watch it with GST_DEBUG=linksim:5 (every packet at 6).
set -eu
. "$(dirname "$0")/common.sh"
PROFILE="${PROFILE:-clean}"; CAPACITY="${CAPACITY:-2000000}"; SCHEDULE="${SCHEDULE:-}"
DELAY="${DELAY:-20000000}"; QUEUE_MS="${QUEUE_MS:-300}"; SEED="${SEED:-1}"
IN="${IN:-6000}"; OUT="${OUT:-5000}"; HOST="${HOST:-127.0.0.1}"

case "$PROFILE" in
  clean) NOISE="" ;;
  cable) NOISE="noise-distribution=exponential noise-mean=1000000 noise-max=10000000
                noise-interval=20000000 loss-model=bernoulli loss-rate=0.0012" ;;
  4g)    NOISE="noise-distribution=pareto noise-mean=18000000 noise-shape=2.5
                noise-max=350000000 noise-interval=20000000
                loss-model=bernoulli loss-rate=0.0037" ;;
  wimax) NOISE="noise-distribution=exponential noise-mean=22000000 noise-max=200000000
                noise-interval=20000000 loss-model=gilbert-elliott ge-p=0.00628
                ge-r=0.333 ge-loss-good=0 ge-loss-bad=1" ;;
  *) echo "unknown PROFILE $PROFILE (clean, cable, 4g, wimax)" >&2; exit 1 ;;
esac
RATE="capacity=$CAPACITY"
[ -n "$SCHEDULE" ] && RATE="capacity=$CAPACITY schedule=$SCHEDULE"

# shellcheck disable=SC2086  # $NOISE and $RATE are lists of properties
exec gst-launch-1.0 -e \
  linksim name=fwd $RATE delay="$DELAY" queue-limit-ms="$QUEUE_MS" seed="$SEED" $NOISE \
  udpsrc port="$IN" ! fwd.sink_0  fwd.src_0 ! udpsink host="$HOST" port="$OUT" sync=false async=false \
  udpsrc port=$((IN + 1)) ! fwd.sink_1  fwd.src_1 ! udpsink host="$HOST" port=$((OUT + 1)) sync=false async=false \
  linksim name=back delay="$DELAY" \
  udpsrc port=$((OUT + 5)) ! back.sink_0  back.src_0 ! udpsink host="$HOST" port=$((IN + 5)) sync=false async=false
