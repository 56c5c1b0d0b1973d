#!/bin/sh
# Crashes: a segmentation fault before any answer.
echo "c fake solver: about to crash"
kill -SEGV $$
