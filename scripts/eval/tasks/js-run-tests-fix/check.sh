#!/usr/bin/env bash
# Solved when hidden tests (fifo order and the capacity bound) pass against src/queue.js.
set -euo pipefail
mkdir -p .eval-check
cp "$TASK_DIR/hidden/queue.hidden.test.js" .eval-check/
node --test .eval-check/
