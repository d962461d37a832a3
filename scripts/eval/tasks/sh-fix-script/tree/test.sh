#!/usr/bin/env bash
# Expects 5: sample/a.txt has 2 lines, sample/b.txt has 3, sample/notes.md is not counted.
got=$(bash count_lines.sh sample)
if [ "$got" = "5" ]; then echo "ok"; else echo "FAIL: expected 5, got $got"; exit 1; fi
