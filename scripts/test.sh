#!/usr/bin/env bash
# Set up and pass the tests on a fresh machine: a virtual environment with the
# package and its test and docs extras, the real solvers (Debian packages as root, kissat
# from the passagemath-kissat wheel), Debian's chromium, then ruff, mypy, the docs build and pytest,
# the SLURM tests against a one-node cluster of this checkout's own (scripts/slurm-local.sh; stopped at
# exit, whatever happens).  Idempotent.
#
# One line a step on the terminal; what the installs and checks print goes to build/test-setup.log
# (git-ignored), whose end is shown when a step fails.  pytest prints as usual (its short summary names
# every skipped test and why), then a closing summary: the steps and their times, pytest's outcome,
# the skips, the wall time.  The exit status is the first failure's (pytest's when the steps passed;
# 5, no test collected, is a failure too).
set -euo pipefail
cd "$(dirname "$0")/.."
# Python may write bytecode: with PYTHONDONTWRITEBYTECODE set (as some machines' environments do) every CLI
# process the tests start (thousands) compiles the package anew, about 40 ms each (129 against 89 ms a command)
unset PYTHONDONTWRITEBYTECODE
mkdir -p build
LOG=build/test-setup.log
PYTEST_LOG=build/test-pytest.log
: >"$LOG"
STEPS=()
SLURM_UP=0
PYTEST_STATUS=""

step() { # step NAME COMMAND...: run it with its output in the log; one line on the terminal
    local name=$1 t0=$SECONDS status=0
    shift
    printf 'test.sh: %s ... ' "$name"
    echo "=== $(date -u +%H:%M:%S) $name: $*" >>"$LOG"
    "$@" >>"$LOG" 2>&1 || status=$?
    if [[ $status -eq 0 ]]; then
        echo "ok ($((SECONDS - t0)) s)"
        STEPS+=("ok      $name ($((SECONDS - t0)) s)")
    else
        echo "FAILED (exit $status); the end of $LOG:"
        tail -n 40 "$LOG" | sed 's/^/    /'
        STEPS+=("FAILED  $name (exit $status)")
    fi
    return "$status"
}

finish() { # at exit, whatever happened: stop the cluster, then the closing summary; exit with the status
    local status=$?
    set +e
    if [[ $SLURM_UP -eq 1 ]]; then
        step "stop the local SLURM" bash scripts/slurm-local.sh stop || { [[ $status -ne 0 ]] || status=1; }
    fi
    echo
    echo "test.sh: summary (wall time $((SECONDS / 60)) min $((SECONDS % 60)) s; installs and checks logged in $LOG)"
    printf '  %s\n' "${STEPS[@]}"
    if [[ -n $PYTEST_STATUS ]]; then
        case $PYTEST_STATUS in
        0) echo "  pytest: passed: $(tail -n 1 "$PYTEST_LOG" | tr -d '=' | xargs)" ;;
        5) echo "  pytest: FAILED: no test was collected (exit 5)" ;;
        *) echo "  pytest: FAILED (exit $PYTEST_STATUS): $(tail -n 1 "$PYTEST_LOG" | tr -d '=' | xargs)" ;;
        esac
        local skipped
        skipped=$(grep -c '^SKIPPED' "$PYTEST_LOG")
        if [[ $skipped -gt 0 ]]; then
            echo "  skipped, and why ($skipped lines of pytest's short summary):"
            grep '^SKIPPED' "$PYTEST_LOG" | sed 's/^/    /'
        fi
    else
        echo "  pytest: not run (a step above failed)"
    fi
    exit "$status"
}

other_python() { # other_python 3.13: that Python's interpreter (pyenv's, else python3.13 on PATH); README: Tests
    local found
    for found in "$HOME"/.pyenv/versions/"$1".*/bin/python3 "$(command -v "python$1" || true)"; do
        # one that runs and is that version (a pyenv shim of a version not selected fails here)
        if [[ -x $found ]] && "$found" -c "import sys; sys.exit(sys.version.split()[0].rsplit('.', 1)[0] != '$1')" 2>/dev/null; then
            echo "$found"
            return 0
        fi
    done
    echo "test.sh: FAILED: no Python $1 (neither pyenv's ~/.pyenv/versions/$1.* nor python$1 on PATH; the README says how to get it)" >&2
    return 1
}

other_venv() { # other_venv 3.13 PYTHON DIR WHAT...: DIR, a virtual environment of PYTHON with pip's WHAT installed
    step "virtual environment $3 (Python $1)" "$2" -m venv "$3"
    step "pip on Python $1: ${*:4}" "$3/bin/python" -m pip install -q --config-settings editable_mode=compat "${@:4}"
}

in_venv() { # in_venv DIR COMMAND...: COMMAND with DIR's bin first on PATH (the tests' CLI commands are its)
    env VIRTUAL_ENV="$PWD/$1" PATH="$PWD/$1/bin:$PATH" "${@:2}"
}

run_pytest() { # pytest's own output on the terminal and in its log; its status kept for finish
    echo "test.sh: pytest, the slow tests too (-m \"slow or not slow\", as CI)"
    PYTEST_STATUS=0
    python -m pytest -q -m "slow or not slow" "$@" 2>&1 | tee "$PYTEST_LOG" || PYTEST_STATUS=${PIPESTATUS[0]}
    return "$PYTEST_STATUS"
}
trap finish EXIT

# the newest and a middle Python the package claims (its classifiers), found before anything runs (the oldest,
# 3.11, runs everything below; 3.13 the everyday run, 3.12 the README's Tour, at the end)
PYTHON313=$(other_python 3.13)
PYTHON312=$(other_python 3.12)

step "virtual environment .venv" python3 -m venv .venv
# shellcheck disable=SC1091
. .venv/bin/activate
step "pip: upgrade pip" python -m pip install -q --upgrade pip
step "pip: the package with its test and docs extras" \
    python -m pip install -q -e '.[test,docs]' --config-settings editable_mode=compat
step "solvers (scripts/install-solvers.sh)" bash scripts/install-solvers.sh
step "chromium (scripts/install-browser.sh)" bash scripts/install-browser.sh # for the HTML report's tests
step "ruff check" ruff check cnfgen_queens tests scripts
step "ruff format --check" ruff format --check cnfgen_queens tests scripts
step "mypy" mypy # the package, as configured in pyproject.toml
# the docs site (site/, git-ignored); a warning is an error
step "mkdocs build --strict" env NO_MKDOCS_2_WARNING=1 mkdocs build --strict
if step "start a local SLURM (scripts/slurm-local.sh start)" bash scripts/slurm-local.sh start; then
    SLURM_UP=1 # stopped by finish, whatever happens: no daemon outlives the tests
else
    echo "test.sh: no local SLURM (needs root): its tests skip, or fail under CI" >&2
    SLURM_UP=1 # a daemon it did start is stopped all the same
fi
eval "$(bash scripts/slurm-local.sh env)" # SLURM_CONF: the tests' sbatch, squeue and scontrol use it
status=0
run_pytest "$@" || status=$?
# the everyday run on 3.13 and the README's Tour on 3.12, each in a virtual environment of its own
other_venv 3.13 "$PYTHON313" .venv313 -e '.[test,docs]' # the docs test builds the site
step "pytest on Python 3.13: the everyday run (python -m pytest -q)" in_venv .venv313 python -m pytest -q ||
    { [[ $status -ne 0 ]] || status=1; }
other_venv 3.12 "$PYTHON312" .venv312 -e . pytest pytest-timeout pytest-xdist # what the Tour and its test need
step "the README's Tour on Python 3.12 (tests/docs/test_readme.py)" in_venv .venv312 python -m pytest -q -n 0 -m slow \
    "tests/docs/test_readme.py::test_every_command_works_as_printed[README.md]" || { [[ $status -ne 0 ]] || status=1; }
exit "$status"
