#!/usr/bin/env bash
# Solved when config.json parses to exactly the expected value (port changed, debug added, the rest untouched).
set -euo pipefail
python3 - <<'PY'
import json, sys
got = json.load(open("config.json"))
want = {
    "name": "inventory",
    "server": {"host": "0.0.0.0", "port": 8081, "workers": 4, "debug": True},
    "database": {"url": "sqlite:///data/inventory.db", "pool": 5, "port": 5432},
    "features": ["search", "export"],
}
if got != want:
    print("config.json is", json.dumps(got))
    sys.exit(1)
PY
