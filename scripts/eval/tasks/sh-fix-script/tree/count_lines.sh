#!/usr/bin/env bash
# Prints the total number of lines of the .txt files directly in the directory $1.
dir=$1
ls $dir | grep '\.txt$' | wc -l
