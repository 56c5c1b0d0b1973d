"""The optional compiled part of cnfgen-queens; everything else is declared in pyproject.toml.

cnfgen_queens/cnf/_native.c (the generator's literal formatter, the readers' DIMACS body scanner) is
``optional``: where it does not build (no C compiler), the package installs without it and the
pure-Python/numpy path gives the same bytes and verdicts (cnfgen_queens/cnf/native.py).
"""

from setuptools import Extension, setup

setup(ext_modules=[Extension("cnfgen_queens.cnf._native", ["cnfgen_queens/cnf/_native.c"], optional=True)])
