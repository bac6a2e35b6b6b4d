#!/usr/bin/env python3
"""Tests of the scripts in pipelines/: the video sink and plugin path they
hand gst-launch-1.0, with a stand-in gst-launch-1.0 that records its
arguments and GST_PLUGIN_PATH (no pipeline runs).

    test_pipeline_scripts.py PIPELINES_DIR

- the receivers (urcp-, fec-, ratecontrol- and cnadu-receiver.sh) decode into fakesink
  without a display, autovideosink with DISPLAY or WAYLAND_DISPLAY, and
  SINK when it is set, display or not;
- every script uses this checkout's build/gst when GST_PLUGIN_PATH is
  unset, keeps GST_PLUGIN_PATH when it is set, and adds nothing when there
  is no build tree (installed scripts).

The scripts are copied into a scratch tree (SCRATCH/pipelines, with or
without SCRATCH/build/gst), so the result depends on neither the checkout's
build directory nor the machine's display.
"""

import os
import shutil
import stat
import subprocess
import sys
import tempfile

RECEIVERS = ["urcp-receiver.sh", "fec-receiver.sh", "ratecontrol-receiver.sh",
             "cnadu-receiver.sh"]
ALL = RECEIVERS + ["urcp-sender.sh", "fec-sender.sh", "linksim-relay.sh",
                   "ratecontrol-sender.sh"]

FAKE = """#!/bin/sh
{ echo "GST_PLUGIN_PATH=${GST_PLUGIN_PATH-<unset>}"; for a in "$@"; do echo "$a"; done; } > "$RECORD"
"""


class Failure(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise Failure(msg)


def run(tree, bindir, script, env_extra):
    record = os.path.join(tree, "record")
    env = {k: v for k, v in os.environ.items()
           if k not in ("DISPLAY", "WAYLAND_DISPLAY", "SINK", "GST_PLUGIN_PATH")}
    env.update(PATH=bindir + os.pathsep + env.get("PATH", "/usr/bin:/bin"), RECORD=record)
    env.update(env_extra)
    r = subprocess.run([os.path.join(tree, "pipelines", script)], env=env,
                       capture_output=True, text=True, timeout=30)
    check(r.returncode == 0, f"{script} {env_extra}: exit {r.returncode}: {r.stderr}")
    with open(record) as f:
        lines = f.read().splitlines()
    os.unlink(record)
    return lines[0].split("=", 1)[1], lines[1:]


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    src = sys.argv[1]
    failures = 0
    with tempfile.TemporaryDirectory() as tree:
        shutil.copytree(src, os.path.join(tree, "pipelines"))
        bindir = os.path.join(tree, "bin")
        os.mkdir(bindir)
        fake = os.path.join(bindir, "gst-launch-1.0")
        with open(fake, "w") as f:
            f.write(FAKE)
        os.chmod(fake, stat.S_IRWXU)
        build_gst = os.path.join(tree, "build", "gst")

        def case(name, fn):
            nonlocal failures
            try:
                fn()
                print(f"PASS {name}")
            except Failure as e:
                failures += 1
                print(f"FAIL {name}: {e}", file=sys.stderr)

        for script in RECEIVERS:
            def sinks(script=script):
                for env, want in [({}, "fakesink"),
                                  ({"DISPLAY": ":0"}, "autovideosink"),
                                  ({"WAYLAND_DISPLAY": "wayland-0"}, "autovideosink"),
                                  ({"SINK": "xvimagesink"}, "xvimagesink"),
                                  ({"SINK": "glimagesink", "DISPLAY": ":0"}, "glimagesink")]:
                    _, args = run(tree, bindir, script, env)
                    used = [s for s in ("fakesink", "autovideosink", "xvimagesink", "glimagesink")
                            if s in args]
                    check(used == [want], f"{script} with {env or 'no display'}: sink {used}, want {want}")
            case(f"{script} sink", sinks)

        for script in ALL:
            def plugin_path(script=script):
                os.makedirs(build_gst, exist_ok=True)
                path, _ = run(tree, bindir, script, {})
                check(path == build_gst, f"{script}: GST_PLUGIN_PATH {path}, want {build_gst}")
                path, _ = run(tree, bindir, script, {"GST_PLUGIN_PATH": "/elsewhere"})
                check(path == "/elsewhere", f"{script}: GST_PLUGIN_PATH {path}, want it kept")
                shutil.rmtree(os.path.join(tree, "build"))
                path, _ = run(tree, bindir, script, {})
                check(path == "<unset>", f"{script} without a build tree: GST_PLUGIN_PATH {path}")
            case(f"{script} plugin path", plugin_path)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
