#!/usr/bin/env bash
# Solved when all three steps are done: VERSION is 1.2.0, `cli.py --version` prints "notes 1.2.0"
# and exits 0, notes still work, and CHANGELOG.md has the 1.2.0 section above 1.1.0 with the line.
set -euo pipefail
python3 -c 'import version, sys; sys.exit(0 if version.VERSION == "1.2.0" else "VERSION is " + version.VERSION)'
out=$(python3 cli.py --version)
[[ "$out" == "notes 1.2.0" ]] || { echo "--version printed: $out"; exit 1; }
out=$(python3 cli.py buy milk)
[[ "$out" == "noted" ]] && grep -qx 'buy milk' notes.txt || { echo "adding a note broke"; exit 1; }
python3 - <<'PY'
import sys
lines = [l.rstrip() for l in open("CHANGELOG.md")]
if "## 1.2.0" not in lines or "## 1.1.0" not in lines:
    sys.exit("CHANGELOG.md lacks a section")
new, old = lines.index("## 1.2.0"), lines.index("## 1.1.0")
if not new < old:
    sys.exit("1.2.0 is not above 1.1.0")
if "- cli: --version option" not in lines[new + 1:old]:
    sys.exit("the 1.2.0 section lacks its line")
if "- first release" not in lines or "- notes are appended to notes.txt" not in lines:
    sys.exit("older entries lost")
PY
