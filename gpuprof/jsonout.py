"""The one JSON writer for everything gpuprof prints or saves as JSON: strict JSON only.

Python's :mod:`json` writes ``NaN`` and ``Infinity``, which JSON (RFC 8259) has no words for:
``jq``, JavaScript's ``JSON.parse`` and most other readers refuse the whole document. Here a
float that is not finite becomes ``null`` and, inside an object, gains a sibling
``"<key>_reason"`` saying what it was (unknown, or without bound) unless the caller already gave
that field a reason of its own. ``allow_nan=False`` stays on as the last guard. Text that came
from the system undecoded (lone surrogates), C1 controls and bidi overrides are written as
``\\uXXXX`` escapes (:func:`gpuprof.termtext.json_text`): still valid JSON, and it reads back to
the same strings.

Every ``--json`` output, the JSON report and the benchmark run file go through :func:`dumps`.
"""

from __future__ import annotations

import json
import math
import numbers
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TextIO

from gpuprof.fileio import write_atomic
from gpuprof.i18n import tr
from gpuprof.jsonin import loads_strict  # the reading side, here for the callers it had
from gpuprof.termtext import json_text

__all__ = ["REASON_SUFFIX", "dumps", "loads_strict", "print_json", "strict", "write_json"]

#: A ``null`` that stands for a non-finite number has this sibling: ``"hours_reason": "..."``.
REASON_SUFFIX = "_reason"


def _why(value: float) -> str:
    if math.isnan(value):
        return tr("unknown: could not be computed from what is known")
    return tr("no finite value (without bound)")


#: Values that pass as they are; checked by exact type first, as most values are one of these
#: (the ``numbers`` ABC checks below cost ~1 µs each: a 10,000-row document paid 0.2 s).
_PLAIN = frozenset({str, int, bool, type(None)})


def strict(obj: Any, *, reasons: bool = True) -> Any:
    """``obj`` with every non-finite float replaced by ``None`` (tuples become lists).

    With ``reasons``, an object whose field was replaced gains ``"<field>_reason"``."""
    kind = type(obj)
    if kind in _PLAIN:
        return obj
    if kind is list or kind is tuple:
        return [
            v
            if type(v) in _PLAIN or (type(v) is float and math.isfinite(v))
            else strict(v, reasons=reasons)
            for v in obj
        ]
    if kind is not dict:
        if isinstance(obj, bool) or obj is None or isinstance(obj, (str, int)):
            return obj
        if isinstance(obj, float):
            return obj if math.isfinite(obj) else None
    if kind is dict or isinstance(obj, Mapping):
        out: dict[Any, Any] = {}
        why: dict[str, str] = {}
        for key, value in obj.items():
            value_kind = type(value)
            if value_kind in _PLAIN or (value_kind is float and math.isfinite(value)):
                out[key] = value
                continue
            if isinstance(value, numbers.Real) and not isinstance(value, numbers.Integral):
                value = float(value)  # numpy scalars: float64 is a float, float32 is not
                if not math.isfinite(value):
                    if reasons and isinstance(key, str):
                        why[key + REASON_SUFFIX] = _why(value)
                    value = None
            out[key] = strict(value, reasons=reasons)
        for key, text in why.items():
            out.setdefault(key, text)
        return out
    if isinstance(obj, (list, tuple)):
        return [strict(v, reasons=reasons) for v in obj]
    if isinstance(obj, numbers.Integral):
        return int(obj)
    if isinstance(obj, numbers.Real):
        value = float(obj)
        return value if math.isfinite(value) else None
    return obj


def dumps(
    obj: Any, *, indent: int | None = 1, reasons: bool = True, sort_keys: bool = False
) -> str:
    """Strict JSON text of ``obj``; what :mod:`json` cannot encode is written as its ``str``."""
    text = json.dumps(
        strict(obj, reasons=reasons),
        indent=indent,
        ensure_ascii=False,
        allow_nan=False,
        default=str,
        sort_keys=sort_keys,
    )
    return json_text(text.encode("utf-8", "backslashreplace").decode("utf-8"))


def print_json(
    obj: Any, *, file: TextIO | None = None, indent: int | None = 1, reasons: bool = True
) -> None:
    """Write ``obj`` and a newline to ``file`` (standard output by default)."""
    out = file if file is not None else sys.stdout
    out.write(dumps(obj, indent=indent, reasons=reasons) + "\n")
    out.flush()


def write_json(path: str | Path, obj: Any, *, indent: int | None = 1, reasons: bool = True) -> Path:
    """Write ``obj`` to ``path`` atomically (:func:`gpuprof.fileio.write_atomic`)."""
    return write_atomic(path, dumps(obj, indent=indent, reasons=reasons) + "\n")
