#!/bin/sh
# Contradicts itself: prints UNSATISFIABLE but exits 10 (SAT).
echo "s UNSATISFIABLE"
exit 10
