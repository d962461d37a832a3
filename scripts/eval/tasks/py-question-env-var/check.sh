#!/usr/bin/env bash
# Solved when the final answer names TODO_STORE_FILE and none of the other variables.
set -euo pipefail
grep -q 'TODO_STORE_FILE' "$ANSWER_FILE" || { echo "answer does not name TODO_STORE_FILE"; exit 1; }
if grep -Eq 'TODO_LOG|NO_COLOR' "$ANSWER_FILE"; then echo "answer names another variable"; exit 1; fi
