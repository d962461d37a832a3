#!/usr/bin/env bash
# Solved when the final answer names split.js (the only caller) and not invoice.js or a test file.
set -euo pipefail
grep -Eq 'split\.js' "$ANSWER_FILE" || { echo "answer does not name split.js"; exit 1; }
if grep -Eq 'invoice\.js|split\.test\.js' "$ANSWER_FILE"; then echo "answer names a file that does not call it"; exit 1; fi
