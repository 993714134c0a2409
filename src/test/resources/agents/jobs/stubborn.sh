#!/usr/bin/env bash
# Ignores TERM; only KILL stops it.
# Usage: stubborn.sh READY_FILE
trap '' TERM
touch "$1"
while true; do sleep 0.1; done
