"""cnfgen-queens: DIMACS generator and solver-agnostic SAT toolchain for N-queens."""

__version__ = "0.1.0"
