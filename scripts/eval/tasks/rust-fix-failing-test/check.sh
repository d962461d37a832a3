#!/usr/bin/env bash
# Solved when the tree's own tests and hidden integration tests (more years) pass with cargo, offline.
set -euo pipefail
mkdir -p tests
cp "$TASK_DIR/hidden/hidden.rs" tests/eval_hidden.rs
cargo test --offline -q 2>&1 | tail -n 30
