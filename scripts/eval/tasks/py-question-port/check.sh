#!/usr/bin/env bash
# Solved when the final answer names port 7421 and no other candidate port from the tree.
set -euo pipefail
grep -Eq '\b7421\b' "$ANSWER_FILE" || { echo "answer does not name 7421"; exit 1; }
if grep -Eq '\b(443|9100|64)\b' "$ANSWER_FILE"; then echo "answer names another port"; exit 1; fi
