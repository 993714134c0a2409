#!/usr/bin/env bash
# Exits successfully but leaves a background child that inherited stdout and stderr.
# Usage: leave_child_holding_output.sh CHILD_PID_FILE
sleep 300 &
echo $! > "$1"
echo "finished, but my child still holds the pipe"
exit 0
