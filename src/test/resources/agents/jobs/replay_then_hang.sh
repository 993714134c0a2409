#!/usr/bin/env bash
# Plays a coding-agent CLI whose provider then hangs: prints FILE on stdout, touches READY (if
# given), then waits without a word until it is stopped (a timeout, a stall, a cancel).
file="$1"; ready="$2"
cat "$file"
if [ -n "$ready" ]; then : > "$ready"; fi
exec sleep 600
