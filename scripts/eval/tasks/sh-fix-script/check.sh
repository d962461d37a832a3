#!/usr/bin/env bash
# Solved when count_lines.sh prints 5 for sample/ and 7 for a hidden directory with spaces in its names (4 + 3 lines, a .log ignored).
set -euo pipefail
got=$(bash count_lines.sh sample | tr -d ' ')
[[ "$got" == 5 ]] || { echo "sample: got $got"; exit 1; }
got=$(bash count_lines.sh "$TASK_DIR/hidden/fixture dir" | tr -d ' ')
[[ "$got" == 7 ]] || { echo "hidden fixture: got $got"; exit 1; }
