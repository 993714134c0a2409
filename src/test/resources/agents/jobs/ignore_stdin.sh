#!/usr/bin/env bash
# Never reads its prompt from stdin.
echo "did not read stdin"
exit 0
