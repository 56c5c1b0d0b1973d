"""Records for the modules a command's start-up loads: :func:`dataclasses.dataclass` without importing it (and
:class:`cached`, :func:`functools.cached_property` without functools: with contextlib and collections, a
quarter of Python's own start-up).

``import dataclasses`` loads ``inspect`` (``ast``, ``dis``, ``tokenize``, ``enum``) and ``re``: about as
long as Python's own start-up, on every ``gen-queens N``.  :func:`record` makes the same class from the
same declaration (``__init__`` with its defaults and ``__post_init__``, ``__repr__``, ``__eq__``,
``__hash__``, frozen attributes, ``__match_args__``) with nothing but ``exec``; type checkers see
:func:`dataclasses.dataclass` itself.  The functions of :mod:`dataclasses` (``replace``, ``fields``,
``asdict``, ``is_dataclass``) work on a record too: its ``__dataclass_fields__`` are made by
:func:`dataclasses.make_dataclass` the first time one of them asks.  Only what the package uses is
supported: a keyword argument :func:`record` does not know is an error, not ignored.

>>> @record(frozen=True)
... class Point:
...     x: int
...     y: int = 0
...     tags: tuple[str, ...] = field(default=(), repr=False)
>>> p = Point(1)
>>> p, p == Point(1, 0), hash(p) == hash(Point(1)), Point.__match_args__
(Point(x=1, y=0), True, True, ('x', 'y', 'tags'))
>>> import dataclasses
>>> dataclasses.replace(p, y=2), [f.name for f in dataclasses.fields(p)], dataclasses.asdict(p)
(Point(x=1, y=2), ['x', 'y', 'tags'], {'x': 1, 'y': 0, 'tags': ()})
>>> p.x = 3
Traceback (most recent call last):
...
dataclasses.FrozenInstanceError: cannot assign to field 'x'
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: it is not loaded at start-up (mypy takes the name as always true)
if TYPE_CHECKING:
    from collections.abc import Callable
    from dataclasses import dataclass as record
    from dataclasses import field
    from functools import cached_property as cached
    from typing import Any


class _Field:
    """What :func:`field` records: a default (or a factory) and whether the field is in ``repr``/``eq``."""

    __slots__ = ("compare", "default", "default_factory", "repr")

    def __init__(self, default: object, default_factory: object, repr: bool, compare: bool) -> None:
        self.default, self.default_factory, self.repr, self.compare = default, default_factory, repr, compare


_MISSING = object()  # no default


def _field(*, default: Any = _MISSING, default_factory: Any = _MISSING, repr: bool = True, compare: bool = True) -> Any:
    """:func:`dataclasses.field`'s ``default``, ``default_factory``, ``repr`` and ``compare``."""
    return _Field(default, default_factory, repr, compare)


class _LazyDataclassAttr:
    """``__dataclass_fields__`` / ``__dataclass_params__`` of a record, made when first read (by a function of
    :mod:`dataclasses`): the fields of :func:`dataclasses.make_dataclass` on the same declaration."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, obj: object, cls: type) -> object:
        import dataclasses

        spec = []
        for name, annotation, f in cls.__record_fields__:  # type: ignore[attr-defined]
            kwargs: dict[str, object] = {"repr": f.repr, "compare": f.compare}
            if f.default is not _MISSING:
                kwargs["default"] = f.default
            if f.default_factory is not _MISSING:
                kwargs["default_factory"] = f.default_factory
            spec.append((name, annotation, dataclasses.field(**kwargs)))  # type: ignore[call-overload]
        shadow = dataclasses.make_dataclass(cls.__name__, spec, frozen=cls.__record_frozen__)  # type: ignore[attr-defined]
        for attr in ("__dataclass_fields__", "__dataclass_params__"):
            setattr(cls, attr, getattr(shadow, attr))
        return getattr(cls, self.name)


def _frozen_setattr(self: object, name: str, value: object) -> None:
    import dataclasses

    raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")


def _frozen_delattr(self: object, name: str) -> None:
    import dataclasses

    raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")


def _make(cls: type, frozen: bool) -> type:
    fields = []
    for name, annotation in cls.__dict__.get("__annotations__", {}).items():  # noqa: RUF063 (inspect: not at start-up)
        if str(annotation).startswith(("ClassVar", "typing.ClassVar")):
            continue
        value = cls.__dict__.get(name, _MISSING)
        f = value if isinstance(value, _Field) else _Field(value, _MISSING, True, True)
        fields.append((name, annotation, f))
        if isinstance(value, _Field):  # the class attribute is the default, as dataclass leaves it
            if f.default is _MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, f.default)
    names = tuple(name for name, _, _ in fields)
    methods = {
        "__init__": _init(cls.__qualname__, fields, frozen, "__post_init__" in cls.__dict__),
        "__repr__": _repr(tuple(name for name, _, f in fields if f.repr)),
        **_eq_hash(tuple(name for name, _, f in fields if f.compare)),
    }
    for name, function in methods.items():  # a method the class defines itself is kept, as dataclass keeps it
        function.__qualname__ = f"{cls.__qualname__}.{name}"
        if name not in cls.__dict__ and (name != "__hash__" or frozen):
            setattr(cls, name, function)
    added: dict[str, object] = {
        "__match_args__": names,
        "__record_fields__": tuple(fields),
        "__record_frozen__": frozen,
    }
    if not frozen and "__hash__" not in cls.__dict__:
        added["__hash__"] = None  # as a dataclass with eq and not frozen
    if frozen:
        added |= {"__setattr__": _frozen_setattr, "__delattr__": _frozen_delattr}
    for name in ("__dataclass_fields__", "__dataclass_params__"):
        added[name] = _LazyDataclassAttr(name)
    for name, value in added.items():
        setattr(cls, name, value)
    return cls


def _init(
    qualname: str, fields: list[tuple[str, object, _Field]], frozen: bool, post_init: bool
) -> Callable[..., None]:
    """``__init__`` as dataclass writes it (positional or keyword arguments, defaults, factories), without
    compiling source: about 0.3 ms a class at start-up otherwise."""
    names = tuple(name for name, _, _ in fields)
    defaults = {name: f for name, _, f in fields if f.default is not _MISSING or f.default_factory is not _MISSING}
    where = f"{qualname}.__init__()"

    def __init__(self: object, *args: object, **kwargs: object) -> None:
        if len(args) > len(names):
            raise TypeError(f"{where} takes {len(names) + 1} positional arguments but {len(args) + 1} were given")
        values = dict(zip(names, args, strict=False))
        for key, value in kwargs.items():
            if key not in names:
                raise TypeError(f"{where} got an unexpected keyword argument {key!r}")
            if key in values:
                raise TypeError(f"{where} got multiple values for argument {key!r}")
            values[key] = value
        if len(values) < len(names):
            for name in names:
                if name not in values:
                    f = defaults.get(name)
                    if f is None:
                        raise TypeError(f"{where} missing 1 required positional argument: {name!r}")
                    values[name] = f.default if f.default is not _MISSING else f.default_factory()  # type: ignore[operator]
        if frozen:
            for name in names:
                object.__setattr__(self, name, values[name])
        else:
            self.__dict__.update(values)
        if post_init:
            self.__post_init__()  # type: ignore[attr-defined]

    return __init__


def _repr(shown: tuple[str, ...]) -> Callable[[object], str]:
    def __repr__(self: object) -> str:
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in shown)
        return f"{self.__class__.__qualname__}({inner})"

    return __repr__


def _eq_hash(compared: tuple[str, ...]) -> dict[str, Callable[..., object]]:
    def key(obj: object) -> tuple[object, ...]:
        return tuple(getattr(obj, name) for name in compared)

    def __eq__(self: object, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return key(self) == key(other)

    def __hash__(self: object) -> int:
        return hash(key(self))

    return {"__eq__": __eq__, "__hash__": __hash__}


def _record(cls: type | None = None, /, *, frozen: bool = False) -> Any:
    """:func:`dataclasses.dataclass` with its defaults (``init``, ``repr``, ``eq``) and ``frozen``."""
    if cls is None:
        return lambda c: _make(c, frozen)
    return _make(cls, frozen)


class _Cached:
    """:func:`functools.cached_property`: the method's value, computed once and kept in the instance's
    ``__dict__`` (a frozen record's too), where later reads find it before this descriptor."""

    def __init__(self, method: Callable[[Any], Any]) -> None:
        self.method, self.name, self.__doc__ = method, method.__name__, method.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, obj: object, cls: type | None = None) -> Any:
        if obj is None:
            return self
        value = obj.__dict__[self.name] = self.method(obj)
        return value


if not TYPE_CHECKING:
    record, field, cached = _record, _field, _Cached

__all__ = ["cached", "field", "record"]
