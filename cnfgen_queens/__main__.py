"""``python -m cnfgen_queens SUBCOMMAND ...``"""

from .cli import entry

entry()
