"""One input budget for every reader: memory follows the bytes read, never a header; bombs, devices and
endless lines are refused with one line (issue 24's reproducers, each in a bounded process of its own)."""

from __future__ import annotations

import bz2
import gzip
import lzma
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import need_module, need_solver, run_cli

from cnfgen_queens.bounds import MAX_RATIO, RATIO_FLOOR
from cnfgen_queens.cli import gen_main
from cnfgen_queens.cnf.gbd_hash import gbd_hash

CODECS: dict[str, Callable[[bytes], bytes]] = {
    ".gz": lambda b: gzip.compress(b, 9, mtime=0),
    ".bz2": lambda b: bz2.compress(b, 9),
    ".xz": lambda b: lzma.compress(b, preset=6),
}
BOMB_MB = 160  # decompressed: past RATIO_FLOOR (64 MiB), at a ratio far above MAX_RATIO


def bomb(folder: Path, suffix: str, piece: bytes, head: bytes = b"p cnf 3 1\n") -> Path:
    """``head`` then BOMB_MB MiB of ``piece`` repeated, as a concatenation of identical compressed members
    (gzip, bzip2 and xz all read concatenated streams): made in well under a second."""
    block = piece * ((1 << 20) // len(piece))
    member = CODECS[suffix](block)
    path = folder / f"bomb{suffix}"
    path.write_bytes(CODECS[suffix](head) + member * BOMB_MB)
    assert MAX_RATIO * path.stat().st_size < (BOMB_MB << 20) and (BOMB_MB << 20) > RATIO_FLOOR
    return path


@pytest.fixture
def cnf(tmp_path: Path) -> Path:
    path = tmp_path / "a.cnf"
    gen_main(["8", "-o", str(path)])
    return path


@pytest.mark.parametrize("variables", [2_000_000_000, 100_000_000])
def test_stats_memory_follows_the_file_not_the_header(tmp_path: Path, variables: int) -> None:
    (tmp_path / "b.cnf").write_text(f"p cnf {variables} 1\n1 0\n")
    ran = run_cli(["stats", "b.cnf", "--json"], tmp_path, memory_mb=1024, timeout=60)
    assert ran.code == 0, ran
    assert f'"variables": {variables}' in ran.out and '"used_variables": 1' in ran.out


def test_stats_of_a_huge_variable_counts_it_apart(tmp_path: Path) -> None:
    (tmp_path / "b.cnf").write_text("p cnf 2000000000 3\n1 -2 0\n-1999999999 2 0\n1999999999 0\n")
    ran = run_cli(["stats", "b.cnf", "--json", "--no-graph"], tmp_path, memory_mb=1024)
    assert ran.code == 0, ran
    assert '"used_variables": 3' in ran.out and '"pure_variables": 1' in ran.out


def test_stats_keeps_no_graph_for_many_unit_clauses(tmp_path: Path) -> None:
    """Unit clauses cost no literal pair, but the graph's literals are bounded too: 30 million of them
    (240 MB as one array) under 1 GB of address space, the graph skipped with a note."""
    reps = 15_000_000
    (tmp_path / "units.cnf").write_bytes(b"p cnf 1 %d\n" % reps + b"1 0\n" * reps)
    ran = run_cli(["stats", "units.cnf", "--json"], tmp_path, memory_mb=1024, timeout=180)
    assert ran.code == 0, ran
    assert f'"clauses": {reps}' in ran.out and "literals > 20,000,000" in ran.out


def test_stats_streams_a_large_body(tmp_path: Path) -> None:
    """A 60 MB body read in chunks under a 1 GB address space: the graph is skipped, with a note."""
    clause = b"1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 0\n"
    reps = (60 << 20) // len(clause)
    (tmp_path / "big.cnf").write_bytes(b"p cnf 20 %d\n" % reps + clause * reps)
    ran = run_cli(["stats", "big.cnf", "--json"], tmp_path, memory_mb=1024, timeout=120)
    assert ran.code == 0, ran
    assert f'"clauses": {reps}' in ran.out and "variable-incidence graph skipped" in ran.out


@pytest.mark.parametrize(
    ("command", "suffix"),
    [
        # .gz and .bz2 are the same reader over another codec (each codec: the test after this one)
        *(pytest.param("stats", suffix, marks=[pytest.mark.slow] * (suffix != ".xz")) for suffix in CODECS),
        *((c, ".xz") for c in ("solve", "merge-base", "merge-blocks", "gen-block")),
    ],
)
def test_a_decompression_bomb_is_refused_naming_ratio_and_size(
    tmp_path: Path, cnf: Path, suffix: str, command: str
) -> None:
    path = bomb(tmp_path, suffix, b"1 2 3 0\n").name
    (tmp_path / "one.txt").write_text("-1 0\n")
    argv, gen = {
        "stats": (["stats", path], False),
        "solve": (["solve", path], False),
        "merge-base": (["merge", path, "one.txt"], False),
        "merge-blocks": (["merge", "a.cnf", path], False),
        "gen-block": (["8", "--block", path], True),
    }[command]
    ran = run_cli(argv, tmp_path, gen=gen, memory_mb=1536, timeout=90)
    ran.one_line(2, path, f"{MAX_RATIO}:1", "64 MiB", "decompression bomb")


@pytest.mark.parametrize("suffix", CODECS)
def test_every_codec_stops_reading_a_bomb_at_the_floor(
    tmp_path: Path, suffix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In this process, with the floor lowered to 1 MiB: each codec's stream is refused once past the floor,
    long before its end (the commands above read past the real 64 MiB floor: 1-7 s of CPU each)."""
    from cnfgen_queens import bounds
    from cnfgen_queens.cnf.compressed import InputError, open_input

    monkeypatch.setattr(bounds, "RATIO_FLOOR", 1 << 20)
    block = b"1 2 3 0\n" * (1 << 17)  # 1 MiB
    path = tmp_path / f"bomb{suffix}"
    path.write_bytes(CODECS[suffix](b"p cnf 3 1\n") + CODECS[suffix](block) * 16)
    assert MAX_RATIO * path.stat().st_size < 16 << 20
    read = 0
    with pytest.raises(InputError) as refused, open_input(path) as f:
        while f.read(1 << 16):
            read += 1 << 16
    assert 1 << 20 <= read < 16 << 20  # refused past the floor, before the end
    assert str(refused.value).startswith(f"{path}: ") and f"{MAX_RATIO}:1 past 1 MiB" in str(refused.value)


def test_merge_of_a_long_compressed_comment_line_is_refused(tmp_path: Path, cnf: Path) -> None:
    path = bomb(tmp_path, ".gz", b" ", head=b"p cnf 3 1\n1 0\nc ").name  # gzip's best ratio: about 1030
    (tmp_path / "one.txt").write_text("-1 0\n")
    run_cli(["merge", path, "one.txt"], tmp_path, memory_mb=1024).one_line(2, "decompression bomb")
    run_cli(["merge", "a.cnf", path], tmp_path, memory_mb=1024).one_line(2, "decompression bomb")


@pytest.mark.slow
def test_merge_reads_a_long_line_of_blanks_in_bounded_memory(tmp_path: Path, cnf: Path) -> None:
    """A body line of 400 MiB of spaces (issue 24: 2 GiB took 6 GB): read in pieces under 640 MB of address
    space (the line read whole took 836 MB)."""
    with open(tmp_path / "blank.cnf", "wb") as f:
        f.write(b"p cnf 2 1\n1 ")
        for _ in range(400):
            f.write(b" " * (1 << 20))
        f.write(b"2 0\n")
    ran = run_cli(["merge", "blank.cnf", "a.cnf", "-o", "m.cnf"], tmp_path, memory_mb=640, timeout=300)
    ran.one_line(2, "exceeds the header's 2")  # a.cnf's literals go beyond blank.cnf's 2 variables
    (tmp_path / "one.txt").write_text("-1 0\n")
    ran = run_cli(["merge", "blank.cnf", "one.txt", "-o", "m.cnf"], tmp_path, memory_mb=640, timeout=300)
    assert ran.code == 0, ran
    assert (tmp_path / "m.cnf").read_bytes().endswith(b"2 0\n-1 0\n")


DEVICE_READERS = [
    (["8", "--holes", "/dev/zero"], True),
    (["8", "--place-file", "/dev/zero"], True),
    (["8", "--block", "/dev/zero"], True),
    (["stats", "/dev/zero"], False),
    (["merge", "a.cnf", "/dev/zero"], False),
    (["merge", "/dev/zero", "a.cnf"], False),
    (["decode", "/dev/zero", "-n", "8"], False),
    (["decode", "ans.txt", "--cnf", "/dev/zero"], False),
    (["block", "/dev/zero", "-n", "8"], False),
    (["solve", "/dev/zero"], False),
    (["batch", "/dev/zero"], False),
    (["solve", "a.cnf", "--solver", "mine", "--solvers-file", "/dev/zero"], False),
]


@pytest.mark.parametrize(("argv", "gen"), DEVICE_READERS, ids=lambda a: " ".join(a) if isinstance(a, list) else "")
def test_an_endless_device_is_refused_at_once(tmp_path: Path, cnf: Path, argv: list[str], gen: bool) -> None:
    (tmp_path / "ans.txt").write_text("s SATISFIABLE\nv 1 0\n")
    ran = run_cli(argv, tmp_path, gen=gen, memory_mb=1024, timeout=120)
    ran.one_line(2, "/dev/zero", "device")


def test_decode_refuses_an_endless_line(tmp_path: Path) -> None:
    """An answer whose line never ends (a FIFO of ones would be one): a v line is read as a stream (issue 30),
    so the token longer than any literal is refused as it is read, never held."""
    with open(tmp_path / "ans.txt", "wb") as f:
        f.write(b"s SATISFIABLE\nv ")
        for _ in range(80):
            f.write(b"1" * (1 << 20))
    run_cli(["decode", "ans.txt", "-n", "8"], tmp_path, memory_mb=1024).one_line(1, "not a literal in a v line")


@pytest.mark.parametrize("solver", ["minisat", "kissat", "cadical", "picosat", "pysat:cadical195"])
def test_a_literal_beyond_the_header_is_refused_before_any_solver_starts(tmp_path: Path, solver: str) -> None:
    if not solver.startswith("pysat:"):
        need_solver(solver)
    (tmp_path / "big.cnf").write_text("p cnf 64 1\n1 -2147483648 0\n")
    ran = run_cli(["solve", "big.cnf", "--solver", solver], tmp_path, timeout=120)
    ran.one_line(2, "big.cnf:2", "variable 2147483648 exceeds the header's 64")
    assert "c solver" not in ran.out


def test_merge_refuses_a_literal_beyond_the_header_of_its_base(tmp_path: Path, cnf: Path) -> None:
    (tmp_path / "big.cnf").write_text("p cnf 64 1\n1 -2147483648 0\n")
    ran = run_cli(["merge", "big.cnf", "a.cnf", "-o", "m.cnf"], tmp_path)
    ran.one_line(2, "big.cnf:2", "exceeds the header's 64")
    assert not (tmp_path / "m.cnf").exists()


@pytest.mark.parametrize("suffix", CODECS)
def test_gbd_hash_of_a_compressed_file_is_the_hash_of_its_cnf(cnf: Path, suffix: str) -> None:
    need_module("gbdc")
    import gbdc

    packed = cnf.with_name(cnf.name + suffix)
    packed.write_bytes(CODECS[suffix](cnf.read_bytes()))
    assert gbd_hash(packed) == gbd_hash(cnf) == gbdc.gbdhash(str(packed)) == gbdc.gbdhash(str(cnf))


def test_gbd_hash_of_a_compressed_file_pinned(tmp_path: Path) -> None:
    """Pinned where gbdc is absent too: MD5 of "1 -2 0 2 3 0" (tests/cnf/test_instance_hash.py; gbdc agrees)."""
    for suffix, pack in CODECS.items():
        path = tmp_path / f"x.cnf{suffix}"
        path.write_bytes(pack(b"c x\np cnf 3 2\n1 -2 0\n2 3 0\n"))
        assert gbd_hash(path) == "5c199826eee734c6484e691f3c129214", suffix


def test_report_refuses_a_device_as_runs_csv(tmp_path: Path) -> None:
    (tmp_path / "zero.csv").symlink_to("/dev/zero")
    run_cli(["report", "zero.csv"], tmp_path, memory_mb=1024, timeout=120).one_line(2, "zero.csv", "device")
