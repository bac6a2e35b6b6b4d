#!/usr/bin/env bash
# Installs what is missing (Debian 12, as root or with sudo), then builds.
#   scripts/setup.sh          install + build
#   scripts/setup.sh demo     ... then stream a 20 s demo (sender + receiver)
#   scripts/setup.sh test     ... then run the whole test suite
set -euo pipefail
cd "$(dirname "$0")/.."

# iproute2, iperf3, tcpdump: the kernel bottleneck bench (tools/kbench);
# valgrind: the sanitize suite's leak check; gstreamer1.0-nice and
# gir1.2-gst-plugins-bad-1.0: webrtcbin (ICE) and GstWebRTC for Python;
# gstreamer1.0-libav: avdec_h264 for ratecontrolrecv encoding-name=H264
# (openh264dec takes only constrained-baseline; x264enc sends high).
PKGS="build-essential pkg-config meson ninja-build
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev
  gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good
  gstreamer1.0-plugins-bad gstreamer1.0-plugins-ugly libvpx-dev python3-gi python3-gst-1.0
  python3-matplotlib iproute2 iperf3 tcpdump valgrind
  gstreamer1.0-nice gir1.2-gst-plugins-bad-1.0 gstreamer1.0-libav"

missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  echo "Installing:$missing"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing
fi

# The test suite needs the tests and the tools (rcsim) built: enabled, not
# auto, so a missing dependency stops the set-up instead of leaving tests out.
OPTS=""
if [ "${1:-}" = test ]; then OPTS="-Dtests=enabled -Dtools=enabled"; fi
if [ ! -d build ]; then
  meson setup build $OPTS
elif [ -n "$OPTS" ]; then
  meson configure build $OPTS
fi
ninja -C build

case "${1:-}" in
  demo)
    DURATION="${DEMO_SECONDS:-20}" pipelines/demo.sh ;;
  test)
    meson test -C build --print-errorlogs ;;
  "") ;;
  *) echo "usage: $0 [demo|test]" >&2; exit 2 ;;
esac
