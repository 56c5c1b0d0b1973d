"""Every error is a sentence with exit 2 (usage) or 1 (environment), never the catch-all (issue 24, item 7)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import run_cli

from cnfgen_queens.cli import gen_main, main

CATCH_ALL = "CNFGEN_QUEENS_DEBUG"


def one_sentence(err: str) -> str:
    assert err.count("\n") == 1 and CATCH_ALL not in err and "Traceback" not in err, err
    return err


def test_a_nul_byte_in_a_yaml_config_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 24: "ReaderError: unacceptable character #x0000 ..." on two lines, exit 1."""
    cfg = tmp_path / "c.yaml"
    text = b"instances:\n  n: [6]\x00\n  encodings: [pairwise]\nsolvers: [pysat:cadical195]\nlimits: {time: 5}\n"
    cfg.write_bytes(text)
    assert main(["batch", str(cfg), "--dry-run"]) == 2
    assert "not valid YAML" in one_sentence(capsys.readouterr().err)


def test_a_broken_shuffle_comment_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 24: "ShuffleError: ... (set CNFGEN_QUEENS_DEBUG=1 for a traceback)", exit 1."""
    cnf, answer = tmp_path / "s.cnf", tmp_path / "a.txt"
    assert gen_main(["6", "--shuffle", "3", "-o", str(cnf)]) == 0
    cnf.write_text(cnf.read_text().replace("seed=3 vars=36", "seed=3 vars=35"))
    answer.write_text("s SATISFIABLE\nv 1 0\n")
    for command in ("decode", "block"):
        assert main([command, str(answer), "--cnf", str(cnf)]) == 2
        assert "shuffle comment says 35 variables" in one_sentence(capsys.readouterr().err)


def test_out_of_memory_is_an_environment_error(tmp_path: Path) -> None:
    """Issue 24: MemoryError came through the catch-all.  A real one: 1 GB of address space for a shuffle
    that holds every clause of N = 6000 in memory."""
    command = ["gen", "6000", "-e", "sequential", "--shuffle", "1", "--allow-large", "-o", "/dev/null"]
    done = run_cli(command, tmp_path, memory_mb=1024, timeout=120)
    assert done.code == 1
    assert "out of memory" in one_sentence(done.err)


def test_version_args_does_what_configs_solvers_yaml_says(tmp_path: Path) -> None:
    """configs/solvers.yaml said "version_args ... (default: none)" while the code asked ``--version`` (issue
    24); the file now says what the code does: ``--version`` by default, ``null`` asks nothing."""
    from cnfgen_queens.solvers import resolve

    text = (Path(__file__).resolve().parents[2] / "configs" / "solvers.yaml").read_text()
    assert "default: --version" in text and "null: ask nothing" in text
    marker = tmp_path / "asked"
    wrapper = tmp_path / "w.sh"
    wrapper.write_text(f'#!/bin/sh\n[ "$1" = --version ] && touch {marker} && echo "w 9.9.9"\nexit 0\n')
    wrapper.chmod(0o755)
    for i, (version_args, asked) in enumerate((("", True), ("    version_args: null\n", False))):
        profiles = tmp_path / f"solvers{i}.yaml"
        profiles.write_text(f"solvers:\n  w{i}:\n    command: '{wrapper} {{cnf}}'\n{version_args}")
        marker.unlink(missing_ok=True)
        version = resolve(f"w{i}", solvers_file=profiles).version
        assert marker.exists() == asked and (version == "9.9.9") == asked, version


HUGE = "9" * 5000  # more digits than Python converts (4300): its "Exceeds the limit" text before


def batch_config(tmp_path: Path, instances: str = "n: [6]", limits: str = "{time: 5}") -> Path:
    cfg = tmp_path / "c.yaml"
    cfg.write_text(
        f"instances:\n  {instances}\n  encodings: [pairwise]\nsolvers: [pysat:cadical195]\n"
        f"limits: {limits}\nresults: {tmp_path / 'r.sqlite'}\n"
    )
    return cfg


@pytest.mark.parametrize(
    ("instances", "limits", "words"),
    [
        ("n: [6]", "{time: 2001-12-14}", "limits.time: 2001-12-14 is a date in YAML 1.1"),  # datetime.date(...)
        ("n: [1:0]", "{time: 5}", "instances.n[0]: 1:0 is a base-60 number in YAML 1.1"),  # read as 60
        ("n: [6]", "{time: '1:30'}", "limits.time"),  # quoted: text, refused by the check as before
        ("n: [6]", "{time: 1_0}", "limits.time: 1_0 is a number with underscores in YAML 1.1"),
        (f"n: [{HUGE}]", "{time: 5}", "instances.n[0]: an integer of 5000 digits, more than 4300"),
        ("n: [6]", f"{{time: {HUGE}.5}}", "limits.time: a number of 5001 digits, more than 4300"),
    ],
)
def test_yaml_surprises_are_refused_in_one_sentence(
    tmp_path: Path, instances: str, limits: str, words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["batch", str(batch_config(tmp_path, instances, limits)), "--dry-run"]) == 2
    err = one_sentence(capsys.readouterr().err)
    assert words in err and "datetime" not in err and "Exceeds the limit" not in err, err


def test_yaml_booleans_and_numbers_of_yaml_1_2_still_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["batch", str(batch_config(tmp_path, "n: [6, 0x7]", "{time: 5.5e0}")), "--dry-run"]) == 0


def test_a_huge_integer_in_a_place_file_names_its_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    squares = tmp_path / "squares.txt"
    squares.write_text(f"1,1\n2,{HUGE}\n")
    assert gen_main(["8", "--place-file", str(squares), "-o", str(tmp_path / "q.cnf")]) == 2
    err = one_sentence(capsys.readouterr().err)
    assert f"{squares}:2:" in err and "5000 digits" in err and "Exceeds" not in err, err


def test_a_huge_integer_given_to_place_is_a_sentence(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """argparse's "invalid _cell value" before (the function's name, not the user's words)."""
    assert gen_main(["8", "--place", f"1,{HUGE}", "-o", str(tmp_path / "q.cnf")]) == 2
    err = one_sentence(capsys.readouterr().err)
    assert "_cell" not in err and "5000 digits" in err, err
