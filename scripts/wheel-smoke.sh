#!/usr/bin/env bash
# The package as a user gets it: build the sdist and, from it, the wheel (python -m build), check
# their metadata renders (twine check) and that they carry LICENSE, CHANGELOG.md and CITATION.cff,
# install the wheel into a fresh virtual environment OUTSIDE the checkout (its dependencies from
# pip's cache or the index), and run a smoke set there, in an empty directory:
#   gen-queens 8, count 8, count 8 --certify and check-count (no extra), a small batch and report --html,
#   the README's five lines of Python
#   (read from README.md now, compared with the text block under them), and --version equal to
#   the package's version.
# Usage: bash scripts/wheel-smoke.sh [WORKDIR]   (default: a new temporary directory, removed at exit)
# The Python that builds is $PYTHON (default: python3); it needs the build and twine packages
# (the test extra). The fresh venv's is $VENV_PYTHON (default: $PYTHON), e.g. python3.13 to try the
# wheel on another Python. tests/project/test_wheel.py runs this script (slow; CI runs it).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
PY="${PYTHON:-python3}"
outside() {  # the fresh venv is never inside the source tree, whose package Python would import instead
    case "$1/" in
        "$ROOT"/*) echo "wheel-smoke: $1 is inside the checkout $ROOT; choose a directory outside it" >&2; exit 2 ;;
    esac
}
if [[ $# -ge 1 ]]; then
    WORK="$(realpath -m -- "$1")"
    outside "$WORK"
    mkdir -p "$WORK"
else
    WORK="$(realpath -m -- "${TMPDIR:-/tmp}")"
    outside "$WORK"
    WORK="$(mktemp -d "$WORK/cnfgen-queens-wheel.XXXXXX")"
    trap 'rm -rf "$WORK"' EXIT
fi
unset PYTHONPATH PYTHONHOME VIRTUAL_ENV
step() { echo "wheel-smoke: $*" >&2; }
fail() { echo "wheel-smoke: FAILED: $*" >&2; exit 1; }

# 1. A copy of the tree as git sees it (tracked and new files, not the ignored ones: no .venv, no
#    egg-info), so the build never writes into the checkout and uses nothing the repository lacks.
step "copying the source tree"
mkdir -p "$WORK/src"
if git -C "$ROOT" rev-parse --is-inside-work-tree > /dev/null 2>&1; then
    (cd "$ROOT" && git ls-files -z --cached --others --exclude-standard \
        | while IFS= read -r -d '' f; do [[ -e "$f" ]] && printf '%s\0' "$f"; done \
        | tar --null -T - -cf -) | tar -xf - -C "$WORK/src"
else
    tar -C "$ROOT" --exclude=./.venv --exclude='*.egg-info' --exclude=./dist --exclude=./build -cf - . \
        | tar -xf - -C "$WORK/src"
fi

# 2. sdist, then the wheel built from the sdist (what a packager does), and their metadata.
step "python -m build"
"$PY" -m build --outdir "$WORK/dist" "$WORK/src" > "$WORK/build.log" 2>&1 || { tail -30 "$WORK/build.log" >&2; fail "python -m build"; }
"$PY" -W error -c 'import readme_renderer.markdown as m; assert m.render("# x")' 2> /dev/null \
    || fail "twine check renders Markdown with readme_renderer[md] only: install it (the test extra)"
"$PY" -m twine check --strict "$WORK"/dist/* || fail "twine check"
VERSION="$("$PY" - "$ROOT/cnfgen_queens/version.py" <<'EOF'
import re, sys
print(re.search(r'^__version__ = "([^"]+)"$', open(sys.argv[1]).read(), re.M).group(1))
EOF
)"
"$PY" - "$WORK/dist" "$VERSION" <<'EOF' || fail "the files the sdist and the wheel carry"
import sys, tarfile, zipfile
from pathlib import Path
dist, version = Path(sys.argv[1]), sys.argv[2]
sdist = dist / f"cnfgen_queens-{version}.tar.gz"
(wheel,) = dist.glob(f"cnfgen_queens-{version}-*.whl")  # a platform wheel: the optional compiled part
with tarfile.open(sdist) as t:
    names = {n.split("/", 1)[1] for n in t.getnames() if "/" in n}
missing = {"LICENSE", "CHANGELOG.md", "CITATION.cff", "README.md", "pyproject.toml"} - names
assert not missing, f"{sdist.name} lacks {sorted(missing)}"
with zipfile.ZipFile(wheel) as z:
    names = set(z.namelist())
    meta = z.read(f"cnfgen_queens-{version}.dist-info/METADATA").decode()
info = f"cnfgen_queens-{version}.dist-info"
assert f"{info}/licenses/LICENSE" in names, f"{wheel.name} lacks its LICENSE"
for line in ("License-Expression: MIT", "License-File: LICENSE", f"Version: {version}",
             "Classifier: Operating System :: POSIX :: Linux"):
    assert line in meta.splitlines(), f"{wheel.name}'s METADATA lacks {line!r}"
for data in ("cnfgen_queens/py.typed", "cnfgen_queens/data/known_counts.csv"):
    assert data in names, f"{wheel.name} lacks {data}"
print(f"wheel-smoke: {sdist.name} ({sdist.stat().st_size // 1024} KB), {wheel.name} ({wheel.stat().st_size // 1024} KB)",
      file=sys.stderr)
EOF

# 3. A fresh virtual environment, outside the checkout, with the wheel and its dependencies.
step "installing the wheel into a fresh venv"
"${VENV_PYTHON:-$PY}" -m venv "$WORK/venv"
"$WORK/venv/bin/python" -m pip install -q "$WORK"/dist/cnfgen_queens-"$VERSION"-*.whl \
    > "$WORK/pip.log" 2>&1 || { tail -30 "$WORK/pip.log" >&2; fail "pip install of the wheel"; }
export PATH="$WORK/venv/bin:$PATH"
mkdir -p "$WORK/run"
cd "$WORK/run"
where="$(python -c 'import cnfgen_queens; print(cnfgen_queens.__file__)')"
[[ "$where" == "$WORK/venv/"* ]] || fail "cnfgen_queens imported from $where, not the fresh venv"
if command -v cc > /dev/null 2>&1; then  # built where there is a compiler (optional: without one, the pure path)
    python -c 'from cnfgen_queens.cnf import native; assert native.NATIVE is not None' \
        || fail "the compiled part (cnfgen_queens/cnf/_native.c) is not in the wheel"
fi

# 4. The smoke set.
step "--version"
for prog in cnfgen-queens gen-queens; do
    got="$("$prog" --version)"
    [[ "$got" == "$prog $VERSION" ]] || fail "$prog --version printed '$got', not '$prog $VERSION'"
done
meta="$(python -c 'import importlib.metadata as m; print(m.version("cnfgen-queens"))')"
[[ "$meta" == "$VERSION" ]] || fail "the installed metadata says $meta, version.py $VERSION"

step "gen-queens 8"
gen-queens 8 > q8.cnf
[[ "$(head -1 q8.cnf)" == "c cnfgen-queens $VERSION: 8-queens" ]] || fail "gen-queens 8's first line: $(head -1 q8.cnf)"
grep -qx 'p cnf 64 736' q8.cnf || fail "gen-queens 8 has no line 'p cnf 64 736'"

step "count 8"
cnfgen-queens count 8 > count.txt
grep -qx 'count: 92 (published-count)' count.txt || fail "count 8 printed: $(cat count.txt)"

step "count 8 --certify, check-count (dratify: a dependency, no extra)"
cnfgen-queens count 8 --certify cert --quiet > certify.txt 2>&1 || fail "count 8 --certify: $(tail -1 certify.txt)"
cnfgen-queens check-count cert --checker dratify > check.txt 2>&1 || fail "check-count: $(tail -1 check.txt)"
grep -qx 'certified count: 92' check.txt || fail "check-count printed: $(cat check.txt)"

step "batch and report --html"
cat > smoke.yaml <<'EOF'
experiment: wheel-smoke
instances:
  n: {from: 4, to: 6}
  encodings: [pairwise, commander]
solvers: [pysat:cadical195, kissat]
task: solve
limits: {time: 60, memory: 2048}
repeats: 1
results: results/smoke.sqlite
EOF
cnfgen-queens batch smoke.yaml --no-progress > batch.txt
cnfgen-queens report results/smoke.sqlite --html page > report.txt
grep -q '^| pysat:cadical195 | pairwise | 3 | 3 |' report.txt || fail "report: $(cat report.txt)"
grep -q '^| kissat | commander | 3 | 3 |' report.txt || fail "report: $(cat report.txt)"
grep -q "</html>" page/index.html && [[ -s page/runs.js ]] || fail "report --html wrote no page"

step "the README's five lines of Python"
python - "$ROOT/README.md" <<'EOF' || fail "the README's five lines of Python"
import re, subprocess, sys
text = open(sys.argv[1], encoding="utf-8").read()
section = text.split("\n## Five lines of Python\n", 1)[1].split("\n## ", 1)[0]
code, want = re.search(r"```python\n(.*?)```\s*```text\n(.*?)```", section, re.S).groups()
run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
assert run.returncode == 0, run.stderr
assert run.stdout.rstrip("\n") == want.rstrip("\n"), f"printed:\n{run.stdout}\nthe README says:\n{want}"
EOF
step "all passed ($VERSION)"
