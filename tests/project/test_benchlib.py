"""scripts/benchlib.py, the benchmark scripts' shared timing: what it measures is what the command did.

Nothing here asserts a speed: the figures are the scripts'; these tests check that the medians, the
CPU and memory it reads, the alternation of side-by-side cases and the printed table are right."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
import benchlib

BURN = "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.2: pass\n"
GROW = "b = bytearray(80 * 2**20)\nfor i in range(0, len(b), 4096): b[i] = 1\nimport time; time.sleep(0.3)\n"


def test_cpu_is_the_commands_and_its_childrens() -> None:
    child = f"import subprocess, sys; subprocess.run([sys.executable, '-c', {BURN!r}])"
    sample = benchlib.measure([sys.executable, "-c", child])
    assert sample.cpu >= 0.2  # the grandchild's 0.2 s is counted: it was waited for
    assert sample.wall >= sample.cpu * 0.5
    assert sample.code == 0


def test_peak_is_the_commands_own_and_the_trees() -> None:
    """Measured from a small fresh process, as the benchmark scripts run: wait4's peak of a command counts the
    RSS its launcher had at the exec (a test process may hold hundreds of MB)."""
    code = (
        f"import sys; sys.path.insert(0, {str(Path(benchlib.__file__).parent)!r}); import benchlib\n"
        f"own = benchlib.measure([sys.executable, '-c', {GROW!r}])\n"
        f"spawn = 'import subprocess, sys; subprocess.run([sys.executable, \"-c\", ' + repr({GROW!r}) + '])'\n"
        "parent = benchlib.measure([sys.executable, '-c', spawn])\n"
        "print(own.peak_mb, own.tree_peak_mb, parent.peak_mb, parent.tree_peak_mb)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True).stdout
    own_peak, own_tree, parent_peak, parent_tree = map(float, out.split())
    assert 80 <= own_peak < 200 and 80 <= own_tree < 200
    assert parent_peak < 60  # the coordinator alone, without its worker
    assert parent_tree >= 80


def test_failed_command_ends_the_benchmark_with_its_stderr() -> None:
    with pytest.raises(SystemExit, match=r"(?s)exit 3.*\nboom$"):
        benchlib.measure([sys.executable, "-c", "import sys; print('boom', file=sys.stderr); sys.exit(3)"])
    assert benchlib.measure([sys.executable, "-c", "raise SystemExit(20)"]).code == 20  # UNSAT is no failure
    assert benchlib.measure([sys.executable, "-c", "raise SystemExit(3)"], check=False).code == 3


def test_capture_and_timeout() -> None:
    assert benchlib.measure([sys.executable, "-c", "print('hello')"], capture=True).stdout == "hello\n"
    killed = benchlib.measure([sys.executable, "-c", "import time; time.sleep(30)"], timeout=0.5, check=False)
    assert killed.code == -9 and killed.wall < 10


def test_side_by_side_alternates_and_takes_medians() -> None:
    order: list[str] = []

    def case(name: str, walls: list[float]) -> benchlib.Case:
        def run() -> benchlib.Sample:
            order.append(name)
            return benchlib.Sample(walls[len([o for o in order if o == name]) - 1], 1.0, 10.0, 20.0, 0)

        return run

    got = benchlib.side_by_side({"a": case("a", [3, 1, 2]), "b": case("b", [10, 30, 20])}, 3)
    assert order == ["a", "b", "b", "a", "a", "b"]
    assert got["a"].wall == 2 and got["b"].wall == 20 and got["a"].cpu == 1.0


def test_table_prints_value_reference_ratio_and_load() -> None:
    table = benchlib.Table("issue 33")
    table.add("runs/s", 180.0, "runs/s", reference=90.0, against="before", goal=">= 200")
    table.add("start-up", 0.048, "s", reference=0.024, against="python -c pass")
    text = table.render()
    assert "x2.00" in text and "48 ms" in text and "24 ms (python -c pass)" in text and ">= 200" in text
    assert "load average" in text and "at the start" in text
    md = table.render(markdown=True)
    assert md.splitlines()[0] == "| figure | value | reference | ratio | goal |"  # an empty column is left out
    assert "| runs/s | 180 runs/s | 90 runs/s (before) | x2.00 | >= 200 |" in md


def test_call_times_a_function_in_this_process() -> None:
    sample = benchlib.call(lambda: exec(BURN))
    assert sample.cpu >= 0.2 and sample.wall >= 0.2 * 0.5 and sample.code == 0
    assert benchlib.human(0.9996, "s") == "1 s" and benchlib.human(0.0123, "s") == "12.3 ms"


SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"


def own_harness(text: str) -> list[str]:
    """What a benchmark script does that belongs to benchlib: reading the load, timing its own runs."""
    return [what for what in ("os.getloadavg", "/proc/loadavg", "os.wait4") if what in text]


def test_every_benchmark_times_and_prints_through_benchlib() -> None:
    """Issue 35: one way to time, repeat, record the load and print (a script's inner programs may time
    themselves, inside a child, and hand the figure to the table)."""
    scripts = sorted(SCRIPTS.glob("bench*.py"))
    assert len(scripts) >= 18
    for path in scripts:
        if path.name == "benchlib.py":
            continue
        text = path.read_text(encoding="utf-8")
        assert "import benchlib" in text, path.name
        assert own_harness(text) == [], path.name
    assert own_harness("print(os.getloadavg()[0])") == ["os.getloadavg"]  # the check can fail
