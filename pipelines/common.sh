# Sourced by the scripts in pipelines/ (not run by itself): what they share.

# This checkout's plugin, unless GST_PLUGIN_PATH names one; an installed
# plugin (and these scripts installed without a build tree) needs none.
_rc_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ -z "${GST_PLUGIN_PATH:-}" ] && [ -d "$_rc_root/build/gst" ]; then
  export GST_PLUGIN_PATH="$_rc_root/build/gst"
fi
unset _rc_root

# The receivers' video sink: $SINK if set; else autovideosink where there is
# a display, and fakesink where there is none (a server, CI, ssh), where
# autovideosink has no window to open and warns or fails.
video_sink() {
  if [ -n "${SINK:-}" ]; then
    echo "$SINK"
  elif [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
    echo autovideosink
  else
    echo fakesink
  fi
}
