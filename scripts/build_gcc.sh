#!/usr/bin/env bash
# Builds rtpgccbwe, the Google Congestion Control element of gst-plugins-rs
# (crate gst-plugin-rtp, 0.15 series, from crates.io), so that rtsim and
# kbench can run it beside our controllers (--controller gcc). Nothing of it
# is committed: the crate is fetched with cargo, built in its own source
# tree, and its plugin, libgstrsrtp.so, is copied into DIR (default
# build-gcc/, which .gitignore covers). Prints DIR, to put on
# GST_PLUGIN_PATH:
#
#   GST_PLUGIN_PATH=build/gst:$(scripts/build_gcc.sh) tools/kbench/kbench.py SCENARIO --controller gcc
#
# Needs cargo (rustup.rs) and the GStreamer development packages that
# scripts/setup.sh installs; about 3 minutes on two cores against
# GStreamer 1.22. GST_PLUGIN_RTP_VERSION picks another
# version requirement (cargo syntax, default ~0.15).
#
#   scripts/build_gcc.sh [--rebuild] [DIR]
#
# Without --rebuild, a DIR that already has a plugin GStreamer loads
# rtpgccbwe from is printed at once.
set -euo pipefail
cd "$(dirname "$0")/.."
REBUILD=0
if [ "${1:-}" = "--rebuild" ]; then REBUILD=1; shift; fi
OUT="$(mkdir -p "${1:-build-gcc}" && cd "${1:-build-gcc}" && pwd)"
VERSION="${GST_PLUGIN_RTP_VERSION:-~0.15}"

if [ "$REBUILD" = 0 ] && [ -f "$OUT/libgstrsrtp.so" ] &&
   GST_PLUGIN_PATH="$OUT" gst-inspect-1.0 rtpgccbwe >/dev/null 2>&1; then
  echo "$OUT"
  exit 0
fi

command -v cargo >/dev/null || { echo "build_gcc.sh: cargo is not installed (https://rustup.rs)" >&2; exit 1; }

# A throw-away package that depends on the crate: `cargo fetch` downloads
# it (and its dependencies) into cargo's registry cache like any build.
FETCH="$OUT/fetch"
mkdir -p "$FETCH/src"
cat > "$FETCH/Cargo.toml" <<EOF
[package]
name = "fetch-gst-plugin-rtp"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
gst-plugin-rtp = "$VERSION"
EOF
: > "$FETCH/src/lib.rs"
echo "build_gcc.sh: fetching gst-plugin-rtp $VERSION" >&2
cargo fetch --manifest-path "$FETCH/Cargo.toml" >&2

# Where cargo unpacked it.
SRC="$(cargo metadata --format-version 1 --manifest-path "$FETCH/Cargo.toml" | python3 -c '
import json, os, sys
for p in json.load(sys.stdin)["packages"]:
    if p["name"] == "gst-plugin-rtp":
        print(os.path.dirname(p["manifest_path"]))
        break')"
[ -n "$SRC" ] || { echo "build_gcc.sh: cargo did not fetch gst-plugin-rtp" >&2; exit 1; }
NAME="$(basename "$SRC")"

# Build a copy (the registry's sources are read-only by convention).
rm -rf "$OUT/$NAME"
cp -r "$SRC" "$OUT/$NAME"
echo "build_gcc.sh: building $NAME (cargo build --release, a few minutes)" >&2
(cd "$OUT/$NAME" && CARGO_TARGET_DIR="$OUT/target" cargo build --release >&2)
cp "$OUT/target/release/libgstrsrtp.so" "$OUT/"

if GST_PLUGIN_PATH="$OUT" gst-inspect-1.0 rtpgccbwe >/dev/null 2>&1; then
  echo "build_gcc.sh: rtpgccbwe from $NAME is in $OUT" >&2
else
  echo "build_gcc.sh: $OUT/libgstrsrtp.so was built but GStreamer does not load rtpgccbwe from it" >&2
  exit 1
fi
echo "$OUT"
