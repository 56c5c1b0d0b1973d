#!/bin/sh
# Lies: always answers UNSATISFIABLE (with the right exit code), whatever the instance.
echo "c fake solver: always UNSAT"
echo "s UNSATISFIABLE"
exit 20
