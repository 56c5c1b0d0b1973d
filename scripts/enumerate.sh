#!/usr/bin/env bash
# The seeds' loop in plain shell: generate, solve with an external binary, decode,
# block, merge, repeat until UNSAT.  Prints each placement (1-based column per row)
# and a last line `count: K`.
#
#   usage: scripts/enumerate.sh N [SOLVER [SEED]]     SOLVER: kissat (default), minisat,
#          cadical, picosat, cryptominisat5, or any binary printing s/v lines
#          with exit codes 10 (SAT) / 20 (UNSAT).  SEED: solve `gen-queens --shuffle SEED`'s
#          CNF instead (decode and block undo the shuffle by --cnf; block prints the
#          unshuffled cell names and merge renames them by the CNF's shuffle comment).
#
# Each round decodes the answer while `block | merge` folds its blocking clause into
# the current CNF (merge writes atomically, so it may replace its own input); the
# two run side by side, which halves the wall time of a round on two cores.
set -euo pipefail

usage() { echo "usage: $0 N [SOLVER [SEED]]" >&2; exit 2; }
[[ $# -ge 1 && $# -le 3 ]] || usage
n=$1
solver=${2:-kissat}
seed=${3:-}
[[ $n =~ ^[1-9][0-9]*$ ]] || { echo "$0: N must be a positive integer, got '$n'" >&2; exit 2; }
[[ -z $seed || $seed =~ ^[0-9]+$ ]] || { echo "$0: SEED must be a non-negative integer, got '$seed'" >&2; exit 2; }

# the binary: PATH, or kissat inside the passagemath-kissat wheel (`solvers --path` knows both)
bin=$(cnfgen-queens solvers --path "$solver") || exit $?  # 1: not installed, 2: not known

work=$(mktemp -d "${TMPDIR:-/tmp}/enumerate.XXXXXX")
trap 'rm -rf "$work"' EXIT
gen-queens "$n" ${seed:+--shuffle "$seed"} -o "$work/base.cnf"   # never changed: decode and block read N
cp "$work/base.cnf" "$work/current.cnf"                           # (and the shuffle) from it while merge runs
declare -A found=()

style=competition
[[ $(basename "$solver") == minisat* ]] && style=minisat
count=0
while true; do
    rc=0
    case $style in
        minisat) "$bin" -verb=0 "$work/current.cnf" "$work/answer" > /dev/null || rc=$? ;;
        *) "$bin" "$work/current.cnf" > "$work/answer" || rc=$? ;;
    esac
    case $rc in
        10) ;;
        20) break ;;
        *) echo "$0: $solver exited with $rc (neither 10 SAT nor 20 UNSAT); $count solution(s) before it" >&2
           exit 1 ;;
    esac
    cnfgen-queens decode "$work/answer" --cnf "$work/base.cnf" --format line > "$work/placement" &
    decoding=$!
    cnfgen-queens block "$work/answer" --cnf "$work/base.cnf" | cnfgen-queens merge "$work/current.cnf" - -o "$work/current.cnf"
    wait "$decoding"
    read -r placement < "$work/placement"
    if [[ -n ${found[$placement]:-} ]]; then  # a solver that ignored a blocking clause
        echo "$0: $solver returned a blocked placement again: $placement" >&2
        exit 1
    fi
    found[$placement]=1
    echo "$placement"
    count=$((count + 1))
done
echo "count: $count"
