#!/bin/sh
# Answers UNSAT correctly-looking, but leaves a child running; writes the child's PID to $1.
sleep 300 &
echo "$!" > "$1.tmp" && mv "$1.tmp" "$1"
echo "s UNSATISFIABLE"
exit 20
