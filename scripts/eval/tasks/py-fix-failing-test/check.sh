#!/usr/bin/env bash
# Solved when a hidden copy of the tests (with more cases) passes against the tree's stats.py.
set -euo pipefail
cp "$TASK_DIR/hidden/test_stats_hidden.py" .
python3 -m unittest -q test_stats_hidden
