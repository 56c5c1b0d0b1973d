#!/bin/bash
# The UNSAT completions of the symmetry study (docs/results/symmetry.md) pooled over the five N: the stores of the
# committed bundles data/results/bundles/symmetry-unsat-nN.tar.gz (one config each) as one runs CSV, compared with
# and without --break-symmetry, all solvers and each alone.  Writes data/results/symmetry/symmetry-unsat-pooled.md
# (attached to data/results/bundles/symmetry.tar.gz).  Run from the checkout's root; scratch files go in results/.
# --across-machines: a runs CSV has no machines table, and each store names the machine with this tool's commit.
set -euo pipefail
mkdir -p results
for n in 20 30 40 50 60; do
  tar -xzOf "data/results/bundles/symmetry-unsat-n$n.tar.gz" store.sqlite > "results/symmetry-unsat-n$n-bundled.sqlite"
  cnfgen-queens report "results/symmetry-unsat-n$n-bundled.sqlite" --runs-csv "results/symmetry-unsat-n$n.csv" > /dev/null
done
{
  head -n 1 results/symmetry-unsat-n20.csv
  for n in 20 30 40 50 60; do tail -n +2 "results/symmetry-unsat-n$n.csv"; done
} > results/symmetry-unsat.csv
out=data/results/symmetry/symmetry-unsat-pooled.md
{
  echo "# The UNSAT completions pooled over the five N: the stores of data/results/bundles/symmetry-unsat-nN.tar.gz as one runs CSV"
  for where in "" solver=kissat solver=cadical solver=minisat; do
    command="cnfgen-queens report results/symmetry-unsat.csv --time cpu${where:+ --where $where} --across-machines --compare break_symmetry=true break_symmetry=false"
    printf '\n## `%s`\n\n```text\n' "$command"
    $command 2> /dev/null
    printf '```\n'
  done
} > "$out.tmp"
mv "$out.tmp" "$out"
