#!/bin/sh
# Lies with a certificate: claims UNSAT and writes a DRAT "proof" that just asserts the empty clause.
# Usage: unsat_bogus_proof.sh CNF PROOF
[ -n "${2:-}" ] && printf '0\n' > "$2"
echo "s UNSATISFIABLE"
exit 20
