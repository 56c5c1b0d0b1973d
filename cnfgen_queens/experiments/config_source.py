"""Reading a config file: YAML composed once, with the line of every key path and bounded alias expansion.

YAML aliases share one node, so a 444-byte file can name 9^9 values (the
"billion laughs" bomb).  Nothing here expands an alias: the expanded size is
counted over the node graph (memoized, linear in the file) and refused above
:data:`MAX_NODES` before anything walks the data; a self-referencing alias is
refused too.
"""

from __future__ import annotations

import functools
import os
import re
import sys
from pathlib import Path
from typing import Any

from ..bounds import read_text
from ..errors import UsageError

MAX_NODES = 100_000  # values after expanding aliases; a hand-written 10 KB config has a few thousand
MAX_BYTES = 1_000_000  # a config file larger than this is not a hand-written config
NAME_MAX, PATH_MAX = 255, 4096  # bytes in one file name, in a path (Linux)


class SourceError(UsageError):
    """A config file that cannot be read; the message is one line naming the file (and line, key)."""


def read(path: Path) -> tuple[Any, dict[str, int]]:
    """(the YAML value of ``path``, the line of every key path); duplicate keys are errors."""
    import yaml

    source = str(path)
    try:
        text = read_text(path, MAX_BYTES, "config file", SourceError)  # a device or FIFO: bounded too
    except (OSError, UnicodeDecodeError) as e:
        raise SourceError(f"cannot read {source}: {getattr(e, 'strerror', None) or e}") from None
    loader = None
    try:
        loader = _loader()(text)  # a NUL or other control character is refused here (ReaderError)
        node = loader.get_single_node()
        lines: dict[str, int] = {}
        if node is None:
            return None, lines
        _Walk(source, lines)._bounded(node, "")
        return loader.construct_document(node), lines
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f"{source}:{mark.line + 1}" if mark is not None else source
        problem = getattr(e, "problem", None) or str(e).splitlines()[0]
        raise SourceError(f"{where}: not valid YAML: {problem}") from None
    except RecursionError:
        raise SourceError(f"{source}: nested too deeply") from None
    finally:
        if loader is not None:
            loader.dispose()


@functools.cache
def _loader() -> Any:
    """PyYAML's SafeLoader (YAML 1.1) that also reads as numbers the floats of YAML 1.2 it reads as text
    (``5.5e0``, ``1e3``: 1.1 wants a dot and a signed exponent); the values 1.1 reads otherwise than 1.2 are
    refused by :func:`yaml_1_1`."""
    import yaml

    class Loader(yaml.SafeLoader):
        pass

    exponent = re.compile(r"^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$")
    Loader.add_implicit_resolver(_YAML + "float", exponent, list("-+0123456789."))
    return Loader


class _Walk:
    """One pass over the node graph: lines, duplicate keys, expanded sizes (each node visited once)."""

    def __init__(self, source: str, lines: dict[str, int]) -> None:
        self.source, self.lines = source, lines
        self.sizes: dict[int, int] = {}  # id(node) -> values it expands to
        self.open: set[int] = set()  # nodes on the current path (an alias to one of them is a cycle)

    def fail(self, node: Any, path: str, message: str) -> None:
        raise SourceError(f"{self.source}:{node.start_mark.line + 1}: {path or '(top level)'}: {message}")

    def node(self, node: Any, path: str) -> int:
        """The expanded size of ``node`` (at key path ``path``); refuses more than MAX_NODES."""
        import yaml

        self.lines.setdefault(path, node.start_mark.line + 1)
        if id(node) in self.sizes:  # an alias of a node already counted: its size, no second walk
            return self.sizes[id(node)]
        if id(node) in self.open:
            self.fail(node, path, "a YAML alias refers to itself")
        if isinstance(node, yaml.ScalarNode) and node.style is None and (why := yaml_1_1(node.tag, node.value)):
            self.fail(node, path, why)
        self.open.add(id(node))
        size = 1
        if isinstance(node, yaml.MappingNode):
            seen: set[str] = set()
            for key, value in node.value:
                name = str(key.value)
                sub = f"{path}.{name}" if path else name
                if name in seen:
                    raise SourceError(f"{self.source}:{key.start_mark.line + 1}: {sub}: duplicate key")
                seen.add(name)
                self.lines[sub] = key.start_mark.line + 1  # the key's line, also for a value on the next lines
                size += 1 + self._bounded(value, sub)
        elif isinstance(node, yaml.SequenceNode):
            for i, item in enumerate(node.value):
                size += self._bounded(item, f"{path}[{i}]")
        self.open.discard(id(node))
        self.sizes[id(node)] = size
        return size

    def _bounded(self, node: Any, path: str) -> int:
        size = self.node(node, path)
        if size > MAX_NODES:
            self.fail(node, path, f"{size} values (YAML aliases expanded), over the limit of {MAX_NODES}")
        return size


_YAML = "tag:yaml.org,2002:"


def yaml_1_1(tag: str, value: str) -> str | None:
    """Why a plain (unquoted) scalar that YAML 1.1 (PyYAML) resolves to ``tag`` cannot be read as written, or
    None: a value YAML 1.1 and YAML 1.2 read differently (a date, a base-60 number, underscores in a number,
    a leading 0, ``yes``/``on``), or an integer of more digits than Python converts.  Each is refused, so a
    config means what it says under either version."""
    quote = f"quote it ('{value}') to mean the text"
    if tag == _YAML + "timestamp":
        return f"{value} is a date in YAML 1.1 (text in YAML 1.2), not a number: write a number, or {quote}"
    if tag == _YAML + "bool" and value.lower() not in ("true", "false"):
        return f"{value} is a boolean in YAML 1.1 (text in YAML 1.2): write true or false, or {quote}"
    if tag not in (_YAML + "int", _YAML + "float"):
        return None
    digits = sum(c.isdigit() for c in value)
    if digits > (limit := sys.get_int_max_str_digits()):
        kind = "an integer" if tag == _YAML + "int" else "a number"
        return f"{kind} of {digits} digits, more than {limit}"
    if ":" in value:
        return f"{value} is a base-60 number in YAML 1.1 (text in YAML 1.2): write the number, or {quote}"
    if "_" in value:
        return f"{value} is a number with underscores in YAML 1.1 (text in YAML 1.2): write it without, or {quote}"
    if re.fullmatch(r"[-+]?0[0-9_]+|[-+]?0b[01_]+", value):
        return f"{value} is octal or binary in YAML 1.1 (a decimal or text in YAML 1.2): write the decimal number"
    return None


def path_problem(path: Path) -> str | None:
    """Why the file system would refuse ``path`` (a NUL, a name or the path too long); None if nothing."""

    raw = os.fsencode(path)
    longest = max((len(os.fsencode(part)) for part in path.parts), default=0)
    if b"\0" in raw:
        return "a file name cannot contain a NUL character"
    if longest > NAME_MAX:
        return f"a name of {longest} bytes in the path: the file system allows {NAME_MAX}"
    if len(raw) >= PATH_MAX:
        return f"a path of {len(raw)} bytes: the file system allows {PATH_MAX - 1}"
    return None
