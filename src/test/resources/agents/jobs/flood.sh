#!/usr/bin/env bash
# A hostile amount of output on stdout.
# Usage: flood.sh BYTES
head -c "$1" /dev/zero | tr '\0' 'x'
