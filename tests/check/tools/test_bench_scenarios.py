#!/usr/bin/env python3
"""Tests of scripts/bench_scenarios.py and scripts/docsection.py.

    test_bench_scenarios.py SOURCE_ROOT BUILD_ROOT TEST

  docsection   replace_section creates a new file (and its directory) with
               the section alone, replaces only the section between the
               markers of an existing file, and appends it to a file
               without markers
  new-output   the script, run as an executable, writes --output NEW (in a
               directory that does not exist yet) with one clean-1mbps row
               (every column filled, the frame latency among them), its
               plot beside it, and leaves docs/ of the checkout as it was
"""

import hashlib
import os
import subprocess
import sys
import tempfile

SOURCE, BUILD = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(SOURCE, "scripts"))
from docsection import replace_section  # noqa: E402


class Failure(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise Failure(msg)


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def test_docsection(tmp):
    new = os.path.join(tmp, "a", "b", "new.md")
    replace_section(new, "s", ["one"], "Title")
    want = "## Title\n\n<!-- s:begin -->\n\none\n<!-- s:end -->\n"
    check(read(new) == want, f"new file: {read(new)!r}, want {want!r}")

    replace_section(new, "s", ["two"], "Title")
    want2 = want.replace("one", "two")
    check(read(new) == want2, f"replaced: {read(new)!r}, want {want2!r}")

    other = os.path.join(tmp, "other.md")
    with open(other, "w", encoding="utf-8") as f:
        f.write("# Doc\n\ntext\n\n<!-- s:begin -->\nold\n<!-- s:end -->\n\ntail\n")
    replace_section(other, "s", ["new"])
    want3 = "# Doc\n\ntext\n\n<!-- s:begin -->\n\nnew\n<!-- s:end -->\n\ntail\n"
    check(read(other) == want3, f"between markers: {read(other)!r}, want {want3!r}")

    plain = os.path.join(tmp, "plain.md")
    with open(plain, "w", encoding="utf-8") as f:
        f.write("# Doc\n\ntext\n\n\n")
    replace_section(plain, "s", ["x"], "T")
    want4 = "# Doc\n\ntext\n\n## T\n\n<!-- s:begin -->\n\nx\n<!-- s:end -->\n"
    check(read(plain) == want4, f"appended: {read(plain)!r}, want {want4!r}")


def tree_digest(path):
    h = hashlib.sha256()
    for d, dirs, files in sorted(os.walk(path)):
        dirs.sort()
        for name in sorted(files):
            p = os.path.join(d, name)
            h.update(p.encode())
            with open(p, "rb") as f:
                h.update(f.read())
    return h.hexdigest()


def test_new_output(tmp):
    docs = os.path.join(SOURCE, "docs")
    before = tree_digest(docs)
    plots = subprocess.run(["/usr/bin/python3", "-c", "import matplotlib"],
                           capture_output=True).returncode == 0
    out = os.path.join(tmp, "new", "dir", "bench.md")
    cmd = [os.path.join(SOURCE, "scripts", "bench_scenarios.py"), "--build", BUILD,
           "--only", "clean-1mbps", "--seeds", "1", "--controllers", "urcp",
           "--output", out] + ([] if plots else ["--no-plots"])
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp)
    check(r.returncode == 0, f"{' '.join(cmd)} exited {r.returncode}: {r.stderr}")
    text = read(out)
    check(text.startswith("## rcsim scenarios\n\n<!-- rcsim-benchmark:begin -->"),
          f"{out} does not start with the section: {text[:200]!r}")
    check("### clean-1mbps" in text and "\n| urcp | " in text, f"no clean-1mbps urcp row in {text!r}")
    check(text.rstrip().endswith("<!-- rcsim-benchmark:end -->"), "section not closed")
    # The row has the header's columns, and the frame latency of the flow.
    head = next(ln for ln in text.splitlines() if ln.startswith("| controller |"))
    row = next(ln for ln in text.splitlines() if ln.startswith("| urcp |"))
    cols = [c.strip() for c in head.strip("|").split("|")]
    cells = [c.strip() for c in row.strip("|").split("|")]
    check(len(cells) == len(cols), f"{len(cells)} cells under {len(cols)} columns: {row}")
    frames = cells[cols.index("frame latency ms")]
    p50, _, p95 = frames.partition(" / ")
    check(p50.isdigit() and p95.isdigit() and 0 < int(p50) <= int(p95),
          f"frame latency cell {frames!r}")
    if plots:
        png = os.path.join(os.path.dirname(out), "plots", "clean-1mbps-urcp.png")
        check(os.path.getsize(png) > 0, f"no plot at {png}")
        check("](plots/clean-1mbps-urcp.png)" in text, "plot not linked")
    else:
        print("matplotlib not installed for /usr/bin/python3: plots not checked")
    check(tree_digest(docs) == before, "the run changed the checkout's docs/")


TESTS = {"docsection": test_docsection, "new-output": test_new_output}


def main():
    if len(sys.argv) != 4 or sys.argv[3] not in TESTS:
        print(__doc__, file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        try:
            TESTS[sys.argv[3]](tmp)
        except Failure as e:
            print(f"FAIL {sys.argv[3]}: {e}", file=sys.stderr)
            return 1
    print(f"PASS {sys.argv[3]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
