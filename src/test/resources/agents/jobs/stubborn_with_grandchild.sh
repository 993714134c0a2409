#!/usr/bin/env bash
# Ignores TERM, as does the grandchild it leaves running (an ignored signal is inherited).
# Usage: stubborn_with_grandchild.sh GRANDCHILD_PID_FILE
trap '' TERM
sleep 300 &
echo $! > "$1.tmp" && mv "$1.tmp" "$1"
while true; do sleep 0.1; done
