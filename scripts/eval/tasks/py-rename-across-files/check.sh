#!/usr/bin/env bash
# Solved when no file names calc_total any more, compute_total is defined, and main.py prints what it did before.
set -euo pipefail
if grep -rn --include='*.py' 'calc_total' .; then echo "calc_total still named"; exit 1; fi
python3 -c 'from shop.pricing import compute_total; assert compute_total([1.0, 1.0]) == 2.4'
out=$(python3 main.py)
expected=$'cart total: 16.2\nquick total: 11.0'
[[ "$out" == "$expected" ]] || { echo "main.py printed: $out"; exit 1; }
