#!/usr/bin/env python3
"""Checks that the project's own headers and sources include each other
without cycles (file A's header needing B's and B's needing A's), and that
core files (gst/rc-*) include no glue (gst/gst*) or tool header.

    scripts/check_includes.py [ROOT]

Prints each cycle or layering break and exits 1 if there is one."""

import os
import re
import sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DIRS = ["gst", "tools/rcsim"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def unit(name):
    """A module: foo.c, foo.h and foo-private.h are one node."""
    base = os.path.splitext(name)[0]
    return base[:-len("-private")] if base.endswith("-private") else base


def main():
    files = {}
    for d in DIRS:
        for f in sorted(os.listdir(os.path.join(ROOT, d))):
            if f.endswith((".c", ".h")):
                files[f] = os.path.join(ROOT, d, f)
    graph = {}
    problems = []
    for f, path in files.items():
        u = unit(f)
        deps = graph.setdefault(u, set())
        for inc in INCLUDE.findall(open(path, encoding="utf-8").read()):
            if inc not in files or unit(inc) == u:
                continue
            deps.add(unit(inc))
            if f.startswith("rc-") and not inc.startswith("rc-"):
                problems.append(f"core file {f} includes {inc}")
    # Cycles: depth-first search with colours.
    colour, stack = {}, []

    def visit(n):
        colour[n] = 1
        stack.append(n)
        for m in sorted(graph.get(n, ())):
            if colour.get(m) == 1:
                problems.append("cycle: " + " -> ".join(stack[stack.index(m):] + [m]))
            elif not colour.get(m):
                visit(m)
        stack.pop()
        colour[n] = 2

    for n in sorted(graph):
        if not colour.get(n):
            visit(n)
    for p in problems:
        print(p)
    print(f"{len(graph)} units, {sum(len(v) for v in graph.values())} include edges, "
          f"{len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
