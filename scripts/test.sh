#!/usr/bin/env bash
# Set up and pass the tests on a fresh machine: a virtual environment with the
# package and its test and docs extras, the real solvers (Debian packages as root, kissat
# from the passagemath-kissat wheel), Debian's chromium, then ruff, mypy, the docs build and pytest,
# the SLURM tests against a one-node cluster started here (scripts/slurm-local.sh; stopped at exit,
# whatever happens).  Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
# shellcheck disable=SC1091
. .venv/bin/activate
python -m pip install -q --upgrade pip
python -m pip install -q -e '.[test,docs]' --config-settings editable_mode=compat
bash scripts/install-solvers.sh
bash scripts/install-browser.sh  # Debian's chromium, for the HTML report's tests
ruff check cnfgen_queens tests scripts
ruff format --check cnfgen_queens tests scripts
mypy  # the package, as configured in pyproject.toml
NO_MKDOCS_2_WARNING=1 mkdocs build --strict  # the docs site (site/, git-ignored); a warning is an error
trap 'bash scripts/slurm-local.sh stop' EXIT # no daemon outlives the tests, whatever happens
bash scripts/slurm-local.sh start || echo "test.sh: no local SLURM (needs root): its tests skip, or fail under CI" >&2
eval "$(bash scripts/slurm-local.sh env)" # SLURM_CONF: the tests' sbatch, squeue and scontrol use it
python -m pytest -q -m "slow or not slow" "$@"  # CI runs the slow tests too
