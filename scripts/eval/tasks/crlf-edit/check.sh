#!/usr/bin/env bash
# Solved when greet("Ana") returns "Welcome, Ana!", greet.py still prints its greeting and
# goodbye, and every line still ends in CRLF.
set -euo pipefail
python3 - <<'PY'
import sys
data = open("greet.py", "rb").read()
lines = data.split(b"\n")
if lines[-1] != b"":
    sys.exit("greet.py does not end with a line ending")
bare = [i + 1 for i, line in enumerate(lines[:-1]) if not line.endswith(b"\r")]
if bare:
    sys.exit(f"lines without CRLF: {bare}")
PY
out=$(python3 greet.py | tr -d '\r')
[[ "$out" == $'Welcome, Ana!\nGoodbye, Ana.' ]] || { echo "greet.py printed: $out"; exit 1; }
python3 -c 'import greet, sys; got = greet.greet("Ana"); sys.exit(None if got == "Welcome, Ana!" else f"greet(\"Ana\") returned {got!r}")'
