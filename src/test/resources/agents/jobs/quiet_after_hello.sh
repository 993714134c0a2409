#!/usr/bin/env bash
# Says hello, then goes quiet for a long time: a stalled agent. Records its pid in $1.
echo "$$" > "$1"
echo hello
sleep 60
