#!/usr/bin/env python3
"""`@` picker figures for docs/PERFORMANCE.md, on a 100 000-file tree, with
the real binary in a pty (scripts/measure.py's Pty):

  - first results: `@` typed → the picker's first row on screen, with the
    listing cached (the TUI asks for it at start, the host walks it on its
    blocking pool) and cold (`@` typed the moment the composer is drawn, so
    the walk is still running);
  - keystroke echo with the picker open: each key of a query typed after
    `@`, from the write to the pty until the composer shows it (the picker
    re-matches all 100 000 paths for every key, in the same frame).

    cargo build --release --bin light-agent && python3 scripts/measure_mentions.py [--runs 5]
"""
import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from measure import BINARY, Pty, env_for  # noqa: E402


def make_tree(path, files):
    """`files` files as dNNN/sN/fNNNN.txt, 100 to a folder."""
    per_dir = 100
    for i in range(files):
        folder = os.path.join(path, f"d{i // 1000:03d}", f"s{(i // per_dir) % 10}")
        if i % per_dir == 0:
            os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, f"f{i % 1000:04d}.txt"), "w") as f:
            f.write("x\n")


def row(name, values):
    print(f"{name:48s} median {statistics.median(values):8.1f} ms   min {min(values):7.1f}   "
          f"max {max(values):7.1f}   n={len(values)}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--files", type=int, default=100_000)
    opts = parser.parse_args()
    work = tempfile.mkdtemp()
    repo = os.path.join(work, "repo")
    os.makedirs(repo)
    make_tree(repo, opts.files)
    first_row = b"@d000/s0/f0000.txt"
    warm, cold, echo = [], [], []
    try:
        for _ in range(opts.runs):
            for cached in (True, False):
                home = tempfile.mkdtemp()
                pty = Pty([BINARY, "--new"], repo, env_for(home))
                pty.wait_for(b"Ask anything")
                if cached:
                    # The listing asked for at start has long arrived.
                    time.sleep(3)
                mark = len(pty.buffer)
                pressed = time.perf_counter()
                pty.send(b"@")
                seen = pty.wait_for(first_row, since=mark, timeout=60)
                (warm if cached else cold).append((seen - pressed) * 1000)
                if cached:
                    typed = "@"
                    for c in "s3f0042":
                        typed += c
                        mark = len(pty.buffer)
                        pressed = time.perf_counter()
                        pty.send(c.encode())
                        seen = pty.wait_for(typed.encode(), since=mark)
                        echo.append((seen - pressed) * 1000)
                        time.sleep(0.05)
                pty.close()
                shutil.rmtree(home, ignore_errors=True)
        print(f"{opts.files} files, binary {BINARY}")
        row("@ → first results (listing cached)", warm)
        row("@ → first results (cold: walk running)", cold)
        row("keystroke echo with the picker open", echo)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
