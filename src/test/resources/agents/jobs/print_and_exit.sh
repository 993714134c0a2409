#!/usr/bin/env bash
# Prints to both streams and exits with the given code, without writing a result file.
# Usage: print_and_exit.sh EXIT_CODE
echo "starting work"
echo "work done"
echo "warning: something on stderr" >&2
echo "the real reason it failed" >&2
exit "$1"
