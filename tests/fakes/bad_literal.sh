#!/bin/sh
# Claims SAT, exits 10, but a v line holds a token that is not a literal.
echo "s SATISFIABLE"
echo "v 1 -2 x3 0"
exit 10
