"""A generic, exact dataclass <-> JSON-ready dict codec for the frozen model records.

``to_jsonable(obj)`` turns dataclasses, enums, tuples and dicts into plain dicts, lists, strings and
numbers; ``from_jsonable(cls, data)`` rebuilds ``cls`` from that, guided by the dataclass type hints,
so that ``from_jsonable(type(x), to_jsonable(x)) == x`` for every model record (nested records,
``tuple[X, ...]``, fixed tuples, ``X | None``, enums). Fields equal to their default are left out
to keep recordings small; unknown keys (from a newer gpuprof) are ignored on decode.

Decoding checks the JSON types against the hints, so that a file of the wrong shape (a list where
a name is expected, text where a number is) is a ``TypeError`` here, not a crash far away in a
renderer: ``str`` takes text only, ``int`` and ``float`` take numbers (and ``float`` the strings
Python's ``float()`` reads, e.g. ``"nan"``), ``bool`` takes booleans and 0 / 1.

The session store, the benchmark results database and the JSON reports share this codec.
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import json
import types
import typing
from collections.abc import Callable
from typing import Any, TypeVar, Union

__all__ = ["dumps", "from_jsonable", "loads", "to_jsonable"]

T = TypeVar("T")

_MISSING = dataclasses.MISSING


def _field_defaults(cls: type) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if f.default is not _MISSING:
            out[f.name] = f.default
        elif f.default_factory is not _MISSING:
            out[f.name] = f.default_factory()
    return out


_DEFAULTS: dict[type, dict[str, Any]] = {}


def to_jsonable(obj: Any, *, keep_defaults: bool = False) -> Any:
    """``obj`` as JSON-ready data: dataclass -> dict, enum -> value, tuple -> list."""
    if obj is None or isinstance(obj, (bool, int, float, str)):
        if isinstance(obj, enum.Enum):  # str/int enums are instances of str/int
            return obj.value
        return obj
    if isinstance(obj, enum.Enum):
        return obj.value
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        cls = type(obj)
        defaults = _DEFAULTS.get(cls)
        if defaults is None:
            defaults = _DEFAULTS[cls] = _field_defaults(cls)
        out: dict[str, Any] = {}
        for f in dataclasses.fields(obj):
            value = getattr(obj, f.name)
            if not keep_defaults and f.name in defaults:
                default = defaults[f.name]
                if value is default or (type(value) is type(default) and value == default):
                    continue
            out[f.name] = to_jsonable(value, keep_defaults=keep_defaults)
        return out
    if isinstance(obj, (tuple, list)):
        return [to_jsonable(v, keep_defaults=keep_defaults) for v in obj]
    if isinstance(obj, dict):
        return {str(k): to_jsonable(v, keep_defaults=keep_defaults) for k, v in obj.items()}
    raise TypeError(f"cannot encode {type(obj).__name__} as JSON")


Decoder = Callable[[Any], Any]
_DECODERS: dict[Any, Decoder] = {}


def _identity(value: Any) -> Any:
    return value


def _decoder_for(tp: Any) -> Decoder:
    """A function that turns JSON data into a value of type ``tp`` (cached per type)."""
    try:
        cached = _DECODERS.get(tp)
    except TypeError:  # unhashable annotation
        cached = None
    if cached is not None:
        return cached
    dec = _build_decoder(tp)
    with contextlib.suppress(TypeError):
        _DECODERS[tp] = dec
    return dec


def _optional(inner: Decoder) -> Decoder:
    def decode(v: Any) -> Any:
        return None if v is None else inner(v)

    return decode


def _kind(v: Any) -> str:
    return "null" if v is None else type(v).__name__


def _float(v: Any) -> Any:
    if v is None:
        return None
    if isinstance(v, (int, float, str)):
        return float(v)
    raise TypeError(f"expected a number, got {_kind(v)}")


def _int(v: Any) -> Any:
    # Floats stay as they are: some int-annotated values are computed and land as 3.0.
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return v
    raise TypeError(f"expected an integer, got {_kind(v)}")


def _str(v: Any) -> Any:
    if isinstance(v, str):
        return v
    raise TypeError(f"expected text, got {_kind(v)}")


def _bool(v: Any) -> Any:
    if isinstance(v, bool) or (isinstance(v, int) and v in (0, 1)):
        return v
    raise TypeError(f"expected true or false, got {_kind(v)}")


def _none(v: Any) -> Any:
    if v is None:
        return v
    raise TypeError(f"expected null, got {_kind(v)}")


def _scalar(v: Any) -> Any:
    if v is None or isinstance(v, (int, float, str)):
        return v
    raise TypeError(f"expected a number or text, got {_kind(v)}")


def _array(v: Any) -> list[Any]:
    if isinstance(v, (list, tuple)):
        return list(v)
    raise TypeError(f"expected a list, got {_kind(v)}")


def _tuple_of(item: Decoder) -> Decoder:
    def decode(v: Any) -> Any:
        return tuple(item(x) for x in _array(v))

    return decode


def _fixed_tuple(items: list[Decoder]) -> Decoder:
    def decode(v: Any) -> Any:
        return tuple(d(x) for d, x in zip(items, _array(v), strict=True))

    return decode


def _list_of(item: Decoder) -> Decoder:
    def decode(v: Any) -> Any:
        return [item(x) for x in _array(v)]

    return decode


def _dict_of(val: Decoder) -> Decoder:
    def decode(v: Any) -> Any:
        if not isinstance(v, dict):
            raise TypeError(f"expected an object, got {_kind(v)}")
        return {k: val(x) for k, x in v.items()}

    return decode


def _build_decoder(tp: Any) -> Decoder:
    if tp is Any or tp is object:
        return _identity
    if tp is float:
        return _float
    if tp is int:
        return _int
    if tp is str:
        return _str
    if tp is bool:
        return _bool
    if tp is type(None):
        return _none
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return _optional(tp)
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return _dataclass_decoder(tp)
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin is Union or origin is types.UnionType:
        non_none = [a for a in args if a is not type(None)]
        if len(non_none) == 1:
            return _optional(_decoder_for(non_none[0]))
        # int | float and similar: keep the JSON scalar as it is.
        if all(a in (int, float, str, bool) for a in non_none):
            return _scalar
        raise TypeError(f"cannot decode ambiguous union {tp!r}")
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return _tuple_of(_decoder_for(args[0]))
        if not args:
            return _tuple_of(_identity)
        return _fixed_tuple([_decoder_for(a) for a in args])
    if origin is list:
        return _list_of(_decoder_for(args[0]) if args else _identity)
    if origin is dict:
        return _dict_of(_decoder_for(args[1]) if len(args) == 2 else _identity)
    if tp is tuple:
        return _tuple_of(_identity)
    if tp is list:
        return _list_of(_identity)
    if tp is dict:
        return _dict_of(_identity)
    raise TypeError(f"cannot decode type {tp!r}")


def _dataclass_decoder(cls: type) -> Decoder:
    hints = typing.get_type_hints(cls)
    field_decoders: dict[str, Decoder] = {}
    # Build lazily so that self-referencing dataclasses do not recurse forever.

    def decode(data: Any) -> Any:
        if isinstance(data, cls):
            return data
        if not isinstance(data, dict):
            raise TypeError(f"expected an object for {cls.__name__}, got {type(data).__name__}")
        if not field_decoders:
            for f in dataclasses.fields(cls):
                if f.init:
                    field_decoders[f.name] = _decoder_for(hints[f.name])
        kwargs = {
            name: field_decoders[name](value)
            for name, value in data.items()
            if name in field_decoders
        }
        return cls(**kwargs)

    return decode


def from_jsonable(cls: type[T], data: Any) -> T:
    """Rebuild a ``cls`` (a dataclass or any supported type hint) from :func:`to_jsonable` data."""
    result: T = _decoder_for(cls)(data)
    return result


def dumps(obj: Any) -> str:
    """Compact JSON text of ``obj`` (NaN and infinities allowed, as Python's json writes them)."""
    return json.dumps(to_jsonable(obj), separators=(",", ":"), ensure_ascii=False)


def loads(cls: type[T], text: str | bytes) -> T:
    """Inverse of :func:`dumps`."""
    return from_jsonable(cls, json.loads(text))
