#!/usr/bin/env bash
# Prints the total number of lines of the .txt files directly in the directory $1.
dir=$1
total=0
for f in "$dir"/*.txt; do
  [ -f "$f" ] || continue
  n=$(wc -l < "$f")
  total=$((total + n))
done
echo "$total"
