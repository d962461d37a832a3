#!/usr/bin/env bash
# Solved when hidden tests of slugify (and of the existing helpers) pass.
set -euo pipefail
cp "$TASK_DIR/hidden/test_slugify_hidden.py" .
python3 -m unittest -q test_slugify_hidden
