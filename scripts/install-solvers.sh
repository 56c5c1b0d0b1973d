#!/bin/sh
# Install the SAT solvers the tests use: the Debian packages minisat, cadical, picosat,
# cryptominisat, clasp (when root with apt-get) and kissat (pip: passagemath-kissat, which
# bundles the binary) plus dratify (DRAT proof checker).  Idempotent: installed ones are skipped.
# Usage: scripts/install-solvers.sh        (then: CI=1 python -m pytest)
set -eu

PYTHON=${PYTHON:-python3}
# minizinc (with gecode) and sat4j run the MiniZinc and OPB exports in the tests; sqlite3 is the
# query command of docs/batch.md.  Not here: glucose and lingeling (not Debian packages; build them from
# github.com/audemard/glucose and github.com/arminbiere/lingeling, or use pysat:glucose4, pysat:lingeling).
# Nor is drat-trim (check-count uses it when it is on PATH, dratify otherwise): build it from
# github.com/marijnheule/drat-trim (one C file: cc -O2 -o drat-trim drat-trim.c) and put it on PATH.
DEBS="minisat cadical picosat cryptominisat clasp minizinc sat4j sqlite3"

missing=""
for pkg in $DEBS; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $pkg"
    fi
done
if [ -n "$missing" ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "installing Debian packages:$missing"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing
    else
        echo "not root or no apt-get: install these yourself:$missing" >&2
    fi
else
    echo "Debian solvers already installed: $DEBS"
fi

for spec in passagemath-kissat dratify; do
    if "$PYTHON" -m pip show "$spec" >/dev/null 2>&1; then
        echo "$spec already installed"
    else
        "$PYTHON" -m pip install --quiet "$spec"
    fi
done

"$PYTHON" -m cnfgen_queens solvers
