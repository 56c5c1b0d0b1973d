#!/bin/sh
# Ignores SIGTERM, and so does the child it starts; writes "PID CHILD" to $1 when running.
trap '' TERM
sleep 300 &
child=$!
echo "$$ $child" > "$1.tmp" && mv "$1.tmp" "$1"
while :; do wait "$child"; done
