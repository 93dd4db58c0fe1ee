"""A job profile whose every value has the type its field says, finite where it is a number.

A profile read back from a recording can hold what its type hints forbid: the codec writes NaN
and infinities as ``null`` and reads ``null`` back as ``None`` even for a plain ``float`` field,
reads ``"nan"`` as NaN, keeps ``3.5`` in an ``int`` field; a hostile file can hold anything the
codec accepts. :func:`sane_profile` repairs all of it in one place, driven by the type hints, so
that every consumer (projection, report, app) can do arithmetic on what it reads:

* a number that is not finite (or not a number) is ``None`` where the field is optional, the
  field's default where it has one; an ``int`` field keeps integral values only;
* a record missing a required value is dropped from the tuple holding it (a phase without an
  end, a share without a time), or becomes ``None`` where the field is optional (the steps, the
  breakdown);
* a string where a number belongs (or the reverse) counts as missing.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import math
import types
import typing
from typing import Any, TypeVar, Union

from gpuprof.profile.model import JobProfile

__all__ = ["sane_profile"]

T = TypeVar("T")
_BAD = object()
#: Larger integers are not counts or sizes of anything real (and overflow SQLite and numpy).
_INT_LIMIT = 2**63


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _optional_inner(tp: Any) -> Any | None:
    """``X`` for ``X | None``; None for any other type."""
    if typing.get_origin(tp) in (Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        if len(args) == 1 and len(typing.get_args(tp)) == 2:
            return args[0]
    return None


def _value(v: Any, tp: Any) -> Any:
    if tp is float:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            return _BAD
        if not math.isfinite(v):
            return _BAD
        return v if type(v) is float else float(v)
    if tp is int:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            return _BAD
        if isinstance(v, float) and not (math.isfinite(v) and v.is_integer()):
            return _BAD
        i = v if type(v) is int else int(v)
        return i if -_INT_LIMIT < i < _INT_LIMIT else _BAD
    if tp is str:
        return v if isinstance(v, str) else _BAD
    if tp is bool:
        return v if isinstance(v, bool) else _BAD
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return v if isinstance(v, tp) else _BAD
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return _record(v, tp) if isinstance(v, tp) else _BAD
    inner = _optional_inner(tp)
    if inner is not None:
        return None if v is None else _value(v, inner)
    if typing.get_origin(tp) is tuple:
        if not isinstance(v, (tuple, list)):
            return _BAD
        args = typing.get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            items = [_value(x, args[0]) for x in v]
            if isinstance(v, tuple) and all(a is b for a, b in zip(items, v, strict=True)):
                return v
            return tuple(x for x in items if x is not _BAD)
        if len(args) != len(v):
            return _BAD
        fixed = tuple(_value(x, a) for x, a in zip(v, args, strict=True))
        if any(x is _BAD for x in fixed):
            return _BAD
        if isinstance(v, tuple) and all(a is b for a, b in zip(fixed, v, strict=True)):
            return v
        return fixed
    return v  # unions of scalars, Any: as they are


def _record(obj: Any, cls: type) -> Any:
    """``obj`` repaired, or ``_BAD`` when a required field has no usable value."""
    changes: dict[str, Any] = {}
    hints = _hints(cls)
    for f in dataclasses.fields(cls):
        if not f.init:
            continue
        tp = hints[f.name]
        value = getattr(obj, f.name)
        new = _value(value, tp)
        if new is _BAD:
            if _optional_inner(tp) is not None:
                new = None
            elif f.default is not dataclasses.MISSING:
                new = f.default
            elif f.default_factory is not dataclasses.MISSING:
                new = f.default_factory()
            else:
                return _BAD
        if new is not value:
            changes[f.name] = new
    return dataclasses.replace(obj, **changes) if changes else obj


def sane_profile(profile: JobProfile) -> JobProfile:
    """``profile`` with every value of its declared type and finite (see the module's rules);
    the same object when nothing needed repair. Start and end times that are not numbers
    become NaN, which :func:`gpuprof.profile.storage.read_job_profile` refuses and every
    consumer shows as unknown."""
    fixed = _record(profile, JobProfile)
    if fixed is _BAD:  # only the times and the pid are required without a default
        started = _value(profile.started_s, float)
        ended = _value(profile.ended_s, float)
        base = dataclasses.replace(
            profile,
            started_s=math.nan if started is _BAD else started,
            ended_s=math.nan if ended is _BAD else ended,
            pid=0 if _value(profile.pid, int) is _BAD else profile.pid,
            name=profile.name if isinstance(profile.name, str) else "",
            command=profile.command if isinstance(profile.command, tuple) else (),
        )
        checked = _record(dataclasses.replace(base, started_s=0.0, ended_s=0.0), JobProfile)
        if checked is _BAD:
            return dataclasses.replace(base, command=())
        fixed = dataclasses.replace(checked, started_s=base.started_s, ended_s=base.ended_s)
    assert isinstance(fixed, JobProfile)
    return fixed
