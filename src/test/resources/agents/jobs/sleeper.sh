#!/usr/bin/env bash
# A well-behaved long task: TERM ends it.
# Usage: sleeper.sh READY_FILE
touch "$1"
sleep 300
