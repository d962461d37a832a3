#!/usr/bin/env python3
"""File-tool figures for docs/PERFORMANCE.md: read_file on 2 GB files, tree and
grep on a 100 000-file tree, each against the reference tool (wc -l, ripgrep),
and the tools' outputs checked identical to ripgrep's (exit 1 if not).

Needs a release build (`cargo build --release --bin light-agent --example
tool_timing`) and ripgrep (`rg`) on PATH. Usage:

    python3 scripts/measure_fs.py [--runs 5] [--big-mb 2048] [--files 100000] [--work DIR]
"""

import argparse
import functools
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "target/release/light-agent")
TIMING = os.path.join(ROOT, "target/release/examples/tool_timing")
COMMON = "common_word"
RARE = "RARE_NEEDLE_42"


def make_tree(path, files):
    """`files` files in 20 × 20 folders; COMMON on line 3 of each, RARE in 3."""
    if os.path.isdir(path) and len(os.listdir(path)) > 0:
        return
    per_dir = max(1, files // 400)
    n = 0
    for a in range(20):
        for b in range(20):
            d = os.path.join(path, f"pkg{a:02}", f"Mod{b:02}")
            os.makedirs(d, exist_ok=True)
            for f in range(per_dir):
                body = f"// file {n}\nfn f{n}() {{}}\nlet x = {COMMON};\n" + "filler line\n" * 7
                if n in (7, files // 2, files - 3):
                    body += f"{RARE} here\n"
                with open(os.path.join(d, f"f{f:03}.rs"), "w") as out:
                    out.write(body)
                n += 1


def make_big(path, mb, single_line):
    if os.path.exists(path) and os.path.getsize(path) >= mb * 1024 * 1024:
        return
    if single_line:
        block = b"x" * (1024 * 1024)
    else:
        line = b"line of text with some words in it, seventy bytes long or so......\n"
        block = line * (1024 * 1024 // len(line))
        block += b"y" * (1024 * 1024 - len(block) - 1) + b"\n"
    with open(path, "wb") as out:
        for _ in range(mb):
            out.write(block)
        if single_line:
            out.write(b"\n")


def timed(cmd, cwd, runs, shell=False):
    """Median wall time in ms of `runs` runs, and the last stdout."""
    times, out = [], b""
    for _ in range(runs):
        start = time.perf_counter()
        done = subprocess.run(cmd, cwd=cwd, shell=shell, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL)
        times.append((time.perf_counter() - start) * 1000)
        out = done.stdout
    return statistics.median(times), out.decode("utf-8", "replace")


def tool(name, args):
    return [BIN, "tool", name, json.dumps(args)]


def grep_hits(text):
    hits = []
    for line in text.splitlines():
        m = re.match(r"^- (.*):(\d+)$", line)
        if m:
            hits.append((m.group(1), int(m.group(2))))
    return hits


def rg_hits(text):
    hits = []
    for line in text.splitlines():
        m = re.match(r"^([^:]*):(\d+):", line)
        if m:
            hits.append((m.group(1), int(m.group(2))))
    return hits


def tree_files(text):
    """File paths of a tree listing, rebuilt from its indentation."""
    files, stack = [], []
    for line in text.splitlines():
        m = re.match(r"^( *)- (.*)$", line)
        if not m:
            continue
        depth = len(m.group(1)) // 2
        item = m.group(2)
        stack = stack[:depth]
        if " | size: " in item:
            files.append("/".join(stack + [item.split(" | size: ")[0]]))
        else:
            stack.append(item)
    return files


def display_cmp(a, b):
    pa, pb = a.split("/"), b.split("/")
    for depth, (x, y) in enumerate(zip(pa, pb)):
        if x == y:
            continue
        xd, yd = depth + 1 < len(pa), depth + 1 < len(pb)
        if xd != yd:
            return -1 if xd else 1
        kx, ky = (x.lower(), x), (y.lower(), y)
        return -1 if kx < ky else 1
    return len(pa) - len(pb)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--big-mb", type=int, default=2048)
    ap.add_argument("--files", type=int, default=100_000)
    ap.add_argument("--work", default="/tmp/light-agent-measure-fs")
    ap.add_argument("--timing", default=TIMING,
                    help="the tool_timing example (a debug build gives an upper bound)")
    opts = ap.parse_args()
    for needed in (BIN, opts.timing):
        if not os.path.exists(needed):
            sys.exit(f"missing {needed}: cargo build --release --bin light-agent --example tool_timing")
    if not shutil.which("rg"):
        sys.exit("ripgrep (rg) is needed for the comparison")
    files_dir = os.path.join(opts.work, "files")
    tree_dir = os.path.join(opts.work, "tree")
    os.makedirs(files_dir, exist_ok=True)
    make_big(os.path.join(files_dir, "big.txt"), opts.big_mb, single_line=False)
    make_big(os.path.join(files_dir, "longline.txt"), opts.big_mb, single_line=True)
    make_tree(tree_dir, opts.files)
    runs = opts.runs
    rows, failures = [], []

    def row(case, ours, theirs, ref):
        rows.append((case, ours, theirs, ref))

    # read_file, first call (a fresh process) and repeats (one process).
    wc, _ = timed(["wc", "-l", "big.txt"], files_dir, runs)
    first, out = timed(tool("read_file", {"path": "big.txt", "start_line": 1, "end_line": 50}), files_dir, runs)
    row("read_file lines 1–50 of big.txt, first call", first, wc, "wc -l")
    head = subprocess.run(["head", "-50", "big.txt"], cwd=files_dir, stdout=subprocess.PIPE).stdout.decode()
    shown = [l.split(" | ", 1)[1] for l in out.splitlines() if re.match(r"^\d+ \| ", l)]
    if shown != head.splitlines():
        failures.append("read_file lines 1–50 differ from head -50")
    rep = subprocess.run([opts.timing, files_dir, "5", "read_file",
                          json.dumps({"path": "big.txt", "start_line": 1, "end_line": 50})],
                         stdout=subprocess.PIPE).stdout.decode()
    repeats = [float(m) for m in re.findall(r"call [2-9]: ([\d.]+) ms", rep)]
    row("read_file lines 1–50 of big.txt, repeat in one session", statistics.median(repeats), None, "")
    wc_long, _ = timed(["wc", "-l", "longline.txt"], files_dir, runs)
    offset = opts.big_mb * 1024 * 1024 // 2
    long_first, _ = timed(tool("read_file", {"path": "longline.txt", "start_line": 1, "end_line": 1,
                                             "byte_offset": offset}), files_dir, runs)
    row("read_file byte_offset window in a single-line file, first call", long_first, wc_long, "wc -l")

    # tree.
    rg_files, rg_list = timed(["rg", "--files"], tree_dir, runs)
    for max_files in (300, 1000):
        ours, listing = timed(tool("tree", {"max_files": max_files}), tree_dir, runs)
        row(f"tree max_files={max_files} ({opts.files} files)", ours, rg_files, "rg --files")
        expected = sorted(rg_list.splitlines(), key=functools.cmp_to_key(display_cmp))[:max_files]
        if tree_files(listing) != expected:
            failures.append(f"tree max_files={max_files} differs from rg --files in display order")
    sub = "pkg03/Mod07"
    _, listing = timed(tool("tree", {"path": sub, "max_files": 1000}), tree_dir, 1)
    _, rg_sub = timed(["rg", "--files", sub], tree_dir, 1)
    if sorted(tree_files(listing)) != sorted(rg_sub.splitlines()):
        failures.append("tree of a folder lists other files than rg --files")

    # grep, capped (common) and rare.
    rg_capped, rg_out = timed(f"rg --sort path -n -F {COMMON} | head -100", tree_dir, runs, shell=True)
    ours, out = timed(tool("grep", {"search_strs": [COMMON]}), tree_dir, runs)
    row("grep common string, first 100 matches", ours, rg_capped, "rg --sort path | head -100")
    if grep_hits(out) != rg_hits(rg_out):
        failures.append("capped grep differs from rg --sort path | head -100")
    rg_rare, rg_out = timed(["rg", "-n", "-F", RARE], tree_dir, runs)
    ours, out = timed(tool("grep", {"search_strs": [RARE]}), tree_dir, runs)
    row("grep rare string", ours, rg_rare, "rg -F")
    if grep_hits(out) != sorted(rg_hits(rg_out)):
        failures.append("rare grep differs from rg -F (sorted)")

    print(f"| case | light-agent | reference | ratio |\n|---|---|---|---|")
    for case, ours, theirs, ref in rows:
        if theirs is None:
            print(f"| {case} | {ours:.1f} ms | | |")
        else:
            print(f"| {case} | {ours:.1f} ms | {ref}: {theirs:.1f} ms | {ours / theirs:.2f}× |")
    print(f"\nmedian of {runs} runs; identical outputs: {'yes' if not failures else 'NO'}")
    for failure in failures:
        print(f"FAILED: {failure}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
