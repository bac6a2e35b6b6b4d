#!/usr/bin/env bash
# The sanitizer suite: builds the project a second time with AddressSanitizer
# and UndefinedBehaviorSanitizer (in BUILD_DIR, kept between runs so only
# what changed is rebuilt) and runs its core, element and fuzz suites there.
#   sanitize.sh SOURCE_DIR BUILD_DIR
# UBSan stops at the first finding; ASan's leak check is off because
# GStreamer's test children and the system libraries its plugins load
# (fontconfig, udev) leave blocks LeakSanitizer cannot tell from ours; the
# valgrind state-cycle test (sanitize/valgrind-state-cycle) checks leaks.
# GST_REGISTRY_FORK=no: the uninstrumented plugin scanner cannot load the
# instrumented plugin and would blacklist it.
set -euo pipefail
src="$1"
build="$2"
if [ ! -f "$build/build.ninja" ]; then
  # Only what the three suites run is built (rcsim's engine is, for the core
  # suite's controller tests).
  meson setup "$build" "$src" -Db_sanitize=address,undefined -Db_lundef=false \
    -Dbuildtype=debug -Dtools=disabled -Dbenchmarks=disabled -Dexamples=disabled > "$build.setup.log" 2>&1 || { cat "$build.setup.log"; exit 1; }
fi
ninja -C "$build" > "$build.ninja.log" 2>&1 || { tail -50 "$build.ninja.log"; exit 1; }
export GST_REGISTRY_FORK=no
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
exec meson test -C "$build" --no-rebuild --print-errorlogs \
  --suite core --suite elements --suite fuzz
