"""The contract between the NVML readers and the one query helper in :mod:`.nvml`.

The readers (:mod:`.static`, :mod:`.poll`) never touch pynvml: they name the NVML
function they want and a :class:`Query` (implemented in ``nvml.py``, the only module that
imports pynvml) makes the call, turns an ``NVMLError`` into ``None`` and records it once.

Shutdown discipline, after nvitop's ``libnvml``: every locked span of NVML work (the start,
a poll, a static read) passes through the process-wide :class:`QueryGate`, which counts the
spans in flight. Closing sets a flag that makes the next query raise :class:`Closed`, waits a
bounded time for the spans already in flight, and reports the calls still stuck so that
``nvmlShutdown`` can be skipped rather than wait for ever behind a driver in trouble.
"""

from __future__ import annotations

import ctypes
import itertools
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from gpuprof.telemetry.diagnostics import Diagnostics
from gpuprof.telemetry.model import DeviceInfo, NvLinkSample, ProcessSample
from gpuprof.telemetry.nvml.values import (
    ERROR_ARGUMENT_VERSION_MISMATCH,
    ERROR_FUNCTION_NOT_FOUND,
    ERROR_GPU_IS_LOST,
    ERROR_NOT_SUPPORTED,
    MEMORY_V2,
    PERMANENT_ERRORS,
    VALUE_MEMBERS,
    field_name,
)
from gpuprof.telemetry.polling import Closed  # the readers raise it; the skeleton catches it

__all__ = [
    "Closed",
    "DeviceState",
    "GpuLost",
    "LinkStatic",
    "MissingFunction",
    "Query",
    "QueryGate",
    "error_kind",
    "field_of",
    "field_values",
    "kind_from_code",
    "memory_info",
]


#: A field of a pynvml struct, read past pynvml's Python-level ``__getattribute__`` (which only
#: turns bytes into str, never a number): a third of the time, and a poll reads some 40 per GPU.
field_of = object.__getattribute__


class GpuLost(Exception):
    """The device fell off the bus; abandon this device's poll."""


class MissingFunction(Exception):
    """This pynvml has no such function (an older nvidia-ml-py)."""


def error_kind(exc: BaseException) -> str:
    """``NVMLError_NotSupported`` -> ``"NotSupported"``; other exceptions by class name."""
    if isinstance(exc, MissingFunction):
        return "FunctionNotFound"
    name = type(exc).__name__
    if name.startswith("NVMLError_"):
        return name[len("NVMLError_") :]
    if name == "NVMLError":
        return f"NVMLError{getattr(exc, 'value', '')}"
    return name


def kind_from_code(error_cls: Any, code: int) -> str:
    """The error kind of an ``nvmlReturn_t`` code, through pynvml's own class for it."""
    try:
        return error_kind(error_cls(code))
    except Exception:
        return f"NVMLError{code}"


# --- per-device state ------------------------------------------------------------------------


@dataclass(slots=True)
class LinkStatic:
    link: int
    active: bool | None = None
    version: int | None = None
    remote_type: str | None = None
    remote_pci_bus_id: str | None = None
    read: bool = False  # version and far end read (again when the state changes)
    names: tuple[str, ...] = ()  # the diagnostics' field names of its four reads


@dataclass(slots=True)
class DeviceState:
    """One GPU's handle and what the readers keep between polls."""

    index: int
    handle: Any
    uuid: str | None = None
    bus_id: str | None = None
    lost: bool = False
    process_denied: bool = False  # listing its processes answered NoPermission
    skip: set[str] = field(default_factory=set)  # fields that will never work here
    info: DeviceInfo | None = None
    num_fans: int = 0
    links: list[LinkStatic] = field(default_factory=list)
    memory_v2: bool = True
    field_ids: list[tuple[int, int]] = field(default_factory=list)  # read every poll
    link_field_ids: list[tuple[int, int]] = field(default_factory=list)  # per-link counters
    nvlink_prev: tuple[float, dict[int, tuple[int | None, int | None]]] | None = None
    nvlink_total_prev: tuple[float, int | None, int | None] | None = None
    link_rates: dict[int, tuple[float | None, float | None]] = field(default_factory=dict)  # rx, tx
    link_samples: tuple[NvLinkSample, ...] | None = None  # reused until a per-link read
    slow: dict[str, Any] = field(default_factory=dict)
    proc_util_ts: int = 0  # the newest sample's NVML timestamp (µs): the next read's cursor
    # pid -> (NVML timestamp µs, SM %, memory-controller %, poll clock when it arrived)
    proc_util: dict[int, tuple[int, float | None, float | None, float]] = field(
        default_factory=dict
    )
    # pid -> (what its sample was built from, the sample): reused while unchanged
    proc_samples: dict[int, tuple[tuple[Any, ...], ProcessSample]] = field(default_factory=dict)
    gpm: Any = None  # the GPM sample pair and what it knows (gpm.GpmState), once polled


# --- the query helper's interface ------------------------------------------------------------


class Query(Protocol):
    """Calls into NVML by function name; implemented in ``nvml.py``.

    ``fn`` and ``get`` raise :class:`Closed` once ``closing`` is set; ``call`` names the NVML
    function called last, for the warning when one never returns.
    """

    diagnostics: Diagnostics
    error_cls: type[BaseException]
    closing: bool
    call: str | None

    def fn(self, name: str) -> Callable[..., Any]:
        """The NVML function ``name`` (one that raises :class:`MissingFunction` if absent)."""
        ...

    def get(self, dev: DeviceState, field: str, fn_name: str, *args: Any) -> Any:
        """``<fn_name>(handle, *args)``, or ``None`` when it fails (recorded once)."""
        ...

    def system(self, field: str, fn_name: str, *args: Any) -> Any:
        """``<fn_name>(*args)`` for a system-wide value, or ``None`` when it fails."""
        ...

    def failed(self, dev: DeviceState | None, field: str, exc: BaseException) -> int | None:
        """Record ``exc`` for ``field``; raise :class:`GpuLost` when the GPU is gone."""
        ...

    def gpm_metrics(
        self, sample1: Any, sample2: Any, metric_ids: Sequence[int]
    ) -> tuple[list[int], list[float]]:
        """``nvmlGpmMetricsGet`` over two GPM samples: each metric's ``nvmlReturn`` and value,
        in the order of ``metric_ids``. Raises what the call raises (an ``NVMLError``,
        :class:`MissingFunction`)."""
        ...


#: Answers of ``nvmlDeviceGetFieldValues`` read through numpy when there are at least this many:
#: the slow poll's per-link NVLink counters (36 on an H100), not the 3 of every poll.
_MANY_FIELDS = 8
_ULL = 3  # NVML_VALUE_TYPE_UNSIGNED_LONG_LONG, the type of every counter gpuprof reads
_FIELD_VIEWS: dict[type, np.dtype[Any] | None] = {}


def _field_dtype(struct: type) -> np.dtype[Any] | None:
    """(value type, return, value as uint64) of a ``c_nvmlFieldValue_t`` as a numpy dtype."""
    if struct not in _FIELD_VIEWS:
        try:
            dtype: np.dtype[Any] | None = np.dtype(
                {
                    "names": ["type", "ret", "ull"],
                    "formats": ["=u4", "=u4", "=u8"],
                    "offsets": [
                        getattr(struct, "valueType").offset,  # noqa: B009 (ctypes fields)
                        getattr(struct, "nvmlReturn").offset,  # noqa: B009
                        getattr(struct, "value").offset,  # noqa: B009
                    ],
                    "itemsize": ctypes.sizeof(struct),
                }
            )
        except (AttributeError, TypeError, ValueError):
            dtype = None
        _FIELD_VIEWS[struct] = dtype
    return _FIELD_VIEWS[struct]


def _all_answered(raw: Any, n: int) -> list[int] | None:
    """The values of a ctypes array of ``c_nvmlFieldValue_t`` (what pynvml returns) when all
    ``n`` answered with an unsigned long long, read through numpy; else ``None`` (then field
    by field, each through pynvml's Python-level attribute access)."""
    struct = getattr(raw, "_type_", None)
    if not isinstance(raw, ctypes.Array) or not isinstance(struct, type) or len(raw) != n:
        return None
    dtype = _field_dtype(struct)
    if dtype is None:
        return None
    view = np.frombuffer(memoryview(raw).cast("B"), dtype)
    if view["ret"].any() or not (view["type"] == _ULL).all():
        return None
    values: list[int] = view["ull"].tolist()
    return values


def field_values(
    q: Query, dev: DeviceState, field: str, ids: Sequence[tuple[int, int]], *, prune: bool = True
) -> list[tuple[tuple[int, int], float | int | None]]:
    """``nvmlDeviceGetFieldValues`` in one call; a failing field is ``None``.

    With ``prune``, a field that can never work here is dropped from ``dev.field_ids``.
    """
    ids = list(ids)
    raw = q.get(dev, field, "nvmlDeviceGetFieldValues", ids)
    if raw is None:
        return [(i, None) for i in ids]
    if len(ids) >= _MANY_FIELDS and (answered := _all_answered(raw, len(ids))) is not None:
        return list(zip(ids, answered, strict=True))
    out: list[tuple[tuple[int, int], float | int | None]] = []
    for fid, entry in zip(ids, raw, strict=False):
        ret = int(field_of(entry, "nvmlReturn"))
        if ret != 0:
            if ret == ERROR_GPU_IS_LOST:
                raise GpuLost(dev.index)
            kind = kind_from_code(q.error_cls, ret)
            q.diagnostics.record(dev.index, field_name(fid), kind, "")
            if prune and ret in PERMANENT_ERRORS:
                for kept in (dev.field_ids, dev.link_field_ids):
                    if fid in kept:
                        kept.remove(fid)
            out.append((fid, None))
            continue
        member = VALUE_MEMBERS.get(int(field_of(entry, "valueType")), "ullVal")
        out.append((fid, field_of(field_of(entry, "value"), member)))
    return out


def memory_info(q: Query, dev: DeviceState, field_prefix: str = "") -> Any:
    """``nvmlDeviceGetMemoryInfo_v2`` (with reserved memory) where the driver has it, else v1."""
    name = field_prefix + "memory"
    if dev.memory_v2 and name not in dev.skip:
        try:
            return q.fn("nvmlDeviceGetMemoryInfo")(dev.handle, MEMORY_V2)
        except GpuLost:
            raise
        except Exception as exc:
            code = getattr(exc, "value", None)
            if isinstance(exc, TypeError | MissingFunction) or code in (
                ERROR_FUNCTION_NOT_FOUND,
                ERROR_ARGUMENT_VERSION_MISMATCH,
                ERROR_NOT_SUPPORTED,
            ):
                dev.memory_v2 = False  # old driver or old pynvml: v1 below
            else:
                q.failed(dev, name, exc)
                return None
    return q.get(dev, name, "nvmlDeviceGetMemoryInfo")


# --- shutdown: what is in flight -------------------------------------------------------------


class _InFlight(Protocol):
    call: str | None


class QueryGate:
    """Spans of NVML work in flight, process-wide, and the bounded wait for them to end.

    One NVML library serves every source in the process, and a call stuck in the driver may
    hold its lock: ``nvmlShutdown`` from any source could then block as well. So a close
    waits for every span in flight when it began, not only its own source's.
    """

    def __init__(self) -> None:
        self._cond = threading.Condition(threading.Lock())
        self._inside: dict[int, _InFlight] = {}
        self._tokens = itertools.count()

    def enter(self, query: _InFlight) -> int:
        """A span of work through ``query`` begins; pass the token to :meth:`leave`."""
        with self._cond:
            token = next(self._tokens)
            self._inside[token] = query
        return token

    def leave(self, token: int) -> None:
        with self._cond:
            del self._inside[token]
            self._cond.notify_all()

    def in_flight(self) -> int:
        """Spans in flight now."""
        with self._cond:
            return len(self._inside)

    def wait(self, timeout_s: float) -> tuple[str, ...]:
        """Wait at most ``timeout_s`` for the spans in flight now; the calls still stuck.

        Spans that begin during the wait are not waited for: they are not stuck, only new.
        """
        with self._cond:
            horizon = next(self._tokens)

            def stuck() -> list[_InFlight]:
                return [q for token, q in self._inside.items() if token < horizon]

            self._cond.wait_for(lambda: not stuck(), max(0.0, timeout_s))
            return tuple(q.call or "an NVML call" for q in stuck())
