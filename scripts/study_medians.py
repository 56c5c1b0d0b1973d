"""Medians with 95% intervals over repeats *and* shuffled copies, for the study (docs/results/study.md).

Usage: ``python scripts/study_medians.py DB [--time cpu] [--where FIELD=VALUE ...] > medians.md``

``report --spread`` takes a cell as one configuration on one instance, and a shuffled copy is another
instance (another GBD hash), so with 3 copies run twice each it has 2 times per cell and no 95% interval
(it needs 6). Here the copies of one instance are one cell: each line is a solver and encoding at one N,
over its shuffled copies and repeats (3 x 2 = 6 times in the study), with the spread's own statistics
(:func:`cnfgen_queens.experiments.spread.cells`: the median, its interquartile range and the order-statistics
95% interval of the median, an unsolved run counting as slower than any solved one), printed by the same
writer as ``report --spread``: the ``seed`` column is empty, as the copies are pooled.
"""

from __future__ import annotations

import dataclasses
import sys


def main(argv: list[str]) -> int:
    import argparse

    from cnfgen_queens.experiments import spread
    from cnfgen_queens.experiments.report import load_rows, shown_rows, where

    parser = argparse.ArgumentParser(prog="study_medians.py", allow_abbrev=False)
    parser.add_argument("db")
    parser.add_argument("--time", choices=("wall", "cpu"), default="cpu")
    parser.add_argument("--where", action="append", default=[], metavar="FIELD=VALUE")
    args = parser.parse_args(argv)
    rows = where(shown_rows(load_rows(args.db)), args.where)
    pooled = [dataclasses.replace(r, shuffle_seed=None) for r in rows]
    text = spread.markdown(spread.cells(pooled, args.time), time=args.time)
    sys.stdout.write(text.replace("spread over repeats:", "spread over shuffled copies and repeats:", 1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
