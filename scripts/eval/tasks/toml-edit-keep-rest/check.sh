#!/usr/bin/env bash
# Solved when Cargo.toml parses to the expected value and the licence comment is still there.
set -euo pipefail
grep -q '^# The licence is decided by the foundation; do not change it\.$' Cargo.toml || { echo "comment lost"; exit 1; }
python3 - <<'PY'
import sys, tomllib
got = tomllib.load(open("Cargo.toml", "rb"))
want = {
    "package": {"name": "tally", "version": "0.3.0", "edition": "2021", "license": "MIT OR Apache-2.0"},
    "dependencies": {},
    "profile": {"release": {"opt-level": 3, "lto": True}},
}
if got.get("profile", {}).get("release", {}).get("opt-level") == "3":
    got["profile"]["release"]["opt-level"] = 3  # the string form means the same to cargo
if got != want:
    print("Cargo.toml is", got)
    sys.exit(1)
PY
