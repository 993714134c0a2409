#!/usr/bin/env bash
# Writes a line to stderr every 200 ms for $1 ticks: slow, but never quiet for long.
for ((i = 0; i < $1; i++)); do echo "tick $i" >&2; sleep 0.2; done
echo done
