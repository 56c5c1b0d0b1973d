"""The default solver: what ``solve``, ``enumerate``, ``count``, the API and the docs use when none is named.

A module of its own, importing nothing, so that a command's argument parser reads it without loading
any solver module (:mod:`cnfgen_queens.cli.arg_groups`).
"""

DEFAULT_SOLVER = "pysat:cadical195"  # embedded: no binary to install, writes DRAT proofs, incremental
