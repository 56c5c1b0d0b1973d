#!/bin/sh
# Lies: claims SAT with the all-false model, which violates any clause with no negative literal.
echo "c fake solver: wrong model"
echo "s SATISFIABLE"
echo "v -1 0"
exit 10
