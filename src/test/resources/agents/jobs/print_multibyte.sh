#!/usr/bin/env bash
# Prints many multi-byte characters (2, 3 and 4 bytes in UTF-8), then exits 0.
for _ in $(seq 1 3000); do printf 'é€𝄞'; done
