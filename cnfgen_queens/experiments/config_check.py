"""The batch config's checker: :class:`ConfigError` and the :class:`Check` that raises it.

Every error names the file, the line, the key path and what was expected
(``configs/x.yaml:7: instances.n[2]: expected a positive integer, got 'ten'``); :mod:`.config` and its
sections (:mod:`.instance_config`, :mod:`.variant_config`, :mod:`.executor_config`) check through it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NoReturn

from ..errors import UsageError

MAX_RUNS = 1_000_000  # runs in the grid, computed as a product of its factors (what the coordinator holds)
MAX_INT = 2**63 - 1  # what SQLite stores


class ConfigError(UsageError):
    """A config that cannot be used; the message is one line naming file, line and key path."""


class Check:
    """Raises :class:`ConfigError` with file, line and key path."""

    def __init__(self, source: str, lines: dict[str, int]) -> None:
        self.source, self.lines = source, lines

    def fail(self, path: str, message: str) -> NoReturn:
        line = self.line(path)
        where = f"{self.source}:{line}" if line else self.source
        raise ConfigError(f"{where}: {path or '(top level)'}: {message}")

    def line(self, path: str) -> int | None:
        """The line of ``path``, or of its nearest parent present in the file."""
        while path and path not in self.lines:
            path = path[: path.rindex("[")] if path.endswith("]") else path.rpartition(".")[0]
        return self.lines.get(path)

    def expected(self, path: str, what: str, got: Any) -> NoReturn:
        self.fail(path, f"expected {what}, got {_show(got)}")

    def mapping(self, value: Any, path: str, allowed: tuple[str, ...]) -> dict[str, Any]:
        if not isinstance(value, dict):
            self.expected(path, f"a mapping with keys {', '.join(allowed)}", value)
        for key in value:
            if key not in allowed:
                sub = f"{path}.{key}" if path else str(key)
                self.fail(sub, f"unknown key {key!r}; valid: {', '.join(allowed)}")
        return value

    def integer(self, value: Any, path: str, minimum: int = 1, maximum: int = MAX_INT) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            what = "a positive integer" if minimum == 1 else f"an integer >= {minimum}"
            self.expected(path, what, value)
        if value > maximum:
            self.fail(path, f"{value} is over the limit of {maximum}")
        return value

    def number(self, value: Any, path: str) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < float("inf"):
            self.expected(path, "a positive finite number", value)
        return float(value)

    def string(self, value: Any, path: str) -> str:
        if not isinstance(value, str) or not value.strip():
            self.expected(path, "a non-empty string", value)
        return value

    def unique_list(self, value: Any, path: str, item: Callable[[Any, str], Any], what: str) -> tuple[Any, ...]:
        if not isinstance(value, list):
            self.expected(path, f"a list of {what}", value)
        if not value:
            self.fail(path, f"empty list: the grid would have no runs (expected at least one {what[:-1]})")
        if len(value) > MAX_RUNS:  # every entry multiplies the grid
            self.fail(path, f"{len(value)} entries: the grid would have over {MAX_RUNS} runs (the limit)")
        first: dict[Any, int] = {}
        for i, v in enumerate(value):
            checked = item(v, f"{path}[{i}]")
            if first.setdefault(checked, i) != i:
                self.fail(f"{path}[{i}]", f"duplicate entry {_show(v)}")
        return tuple(first)


def _show(value: Any) -> str:
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if value is None:
        return "nothing (null)"
    return repr(value)
