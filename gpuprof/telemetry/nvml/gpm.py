"""Profiling activity from NVML GPM (Hopper and newer): how busy the SMs, tensor cores and DRAM
really were, per GPU and per MIG GPU instance (``nvidia-smi dmon --gpm-metrics``; DCGM's
``DCGM_FI_PROF_*`` fields).

GPM works on pairs of samples. Each device keeps two sample buffers, allocated once when its
support is first checked: a poll reads the counters into the spare buffer (``nvmlGpmSampleGet``,
``nvmlGpmMigSampleGet`` for a GPU instance), computes the metrics over (previous, new) with
``nvmlGpmMetricsGet`` and swaps the two. The first poll has no previous sample, so its values
are absent with the reason :data:`PROF_FIRST_SAMPLE`. Cadence: while nobody watches (no live
view shows the values) a GPU is sampled every :data:`GPM_INTERVAL_S` (5 s;
``NvmlSource(gpm_interval_s=)``), so each value is the mean over the last such span and the
polls in between repeat it without a driver call; while watched, at every poll. The second
sample of a pair (after the first, or after a failed poll) is taken at the next poll, at least
:data:`GPM_MIN_INTERVAL_S` later (NVML refreshes its counters every 100 ms and refuses samples
closer together). Support is asked once per device (``nvmlGpmQueryDeviceSupport``):
before Hopper, on GeForce, vGPU or without permission the values stay absent with a reason,
never zero. A failure mid-session costs that poll's values (a metric that fails costs only its
field), a GPU that falls off the bus raises :class:`GpuLost` like any other read, and
:func:`release_gpm` frees the buffers when the device is lost or the source shuts down.

No pynvml here: the calls go through the :class:`~gpuprof.telemetry.nvml.query.Query` of
``nvml.py``, which also builds ``nvmlGpmMetricsGet``'s struct.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any

from gpuprof.i18n import N_
from gpuprof.telemetry.model import MigProfSample
from gpuprof.telemetry.nvml.query import DeviceState, GpuLost, Query, error_kind, kind_from_code
from gpuprof.telemetry.nvml.values import (
    ERROR_FUNCTION_NOT_FOUND,
    ERROR_GPU_IS_LOST,
    ERROR_NO_PERMISSION,
    ERROR_NOT_SUPPORTED,
    GPM_ANY_TENSOR_UTIL,
    GPM_DFMA_TENSOR_UTIL,
    GPM_DRAM_BW_UTIL,
    GPM_ENGINES,
    GPM_FP16_UTIL,
    GPM_FP32_UTIL,
    GPM_FP64_UTIL,
    GPM_HMMA_TENSOR_UTIL,
    GPM_IMMA_TENSOR_UTIL,
    GPM_NVDEC_0_UTIL,
    GPM_NVJPG_0_UTIL,
    GPM_NVLINK_TOTAL_RX_PER_SEC,
    GPM_NVLINK_TOTAL_TX_PER_SEC,
    GPM_PCIE_RX_PER_SEC,
    GPM_PCIE_TX_PER_SEC,
    GPM_SM_OCCUPANCY,
    GPM_SM_UTIL,
    MIB,
    PERMANENT_ERRORS,
)

__all__ = [
    "GPM_INTERVAL_S",
    "GPM_MIN_INTERVAL_S",
    "PROF_ERROR",
    "PROF_FIRST_SAMPLE",
    "PROF_MIG_ONLY",
    "PROF_NOT_PERMITTED",
    "PROF_NOT_SUPPORTED",
    "PROF_OLD_DRIVER",
    "GpmState",
    "read_gpm",
    "release_gpm",
]

#: NVML refreshes the GPM counters every 100 ms; samples closer than this are refused.
GPM_MIN_INTERVAL_S = 0.1
#: How often a GPU's GPM counters are sampled while no live view shows them (seconds; at every
#: poll while one does, ``NvmlSource.watch_gpm``): each value is the mean over this span,
#: repeated by the polls in between without a driver call (perf/sampler.py).
GPM_INTERVAL_S = 5.0
#: After a transient failure of the support check or the buffers, ask again this much later.
RETRY_S = 10.0

# Why the prof_* values are absent (GpuSample.prof_unavailable): English, translated where shown
# (gpuprof.telemetry.prof); N_ keeps them in the catalog.
PROF_NOT_SUPPORTED = N_("not supported on this GPU")  # before Hopper, GeForce, vGPU
PROF_NOT_PERMITTED = N_("not permitted to read the profiling counters")
PROF_OLD_DRIVER = N_("not supported by this driver or nvidia-ml-py")
PROF_FIRST_SAMPLE = N_("first sample")  # GPM needs two samples: values from the next poll on
PROF_MIG_ONLY = N_("per MIG instance only")  # MIG mode: the GPU as a whole is not sampled
PROF_ERROR = N_("GPM error")  # "GPM error: <kind>": this poll failed, the next one tries again

_PCT, _MIB_S, _DEC, _JPG = 0, 1, 2, 3  # a metric's unit: percent 0-100, MiB/s, an engine's %
_MAX = 1.7976931348623157e308  # ``0 <= v <= _MAX`` is False for NaN, infinities, negatives
_OK, _FIRST = 0, -2  # what a sample read gave besides an NVML error code

#: metric id -> (GpuSample field, unit) for the whole GPU.
_DEVICE_METRICS: dict[int, tuple[str, int]] = {
    GPM_SM_UTIL: ("prof_sm_active_pct", _PCT),
    GPM_SM_OCCUPANCY: ("prof_sm_occupancy_pct", _PCT),
    GPM_ANY_TENSOR_UTIL: ("prof_tensor_active_pct", _PCT),
    GPM_HMMA_TENSOR_UTIL: ("prof_tensor_hmma_pct", _PCT),
    GPM_IMMA_TENSOR_UTIL: ("prof_tensor_imma_pct", _PCT),
    GPM_DFMA_TENSOR_UTIL: ("prof_tensor_dfma_pct", _PCT),
    GPM_DRAM_BW_UTIL: ("prof_dram_active_pct", _PCT),
    GPM_FP64_UTIL: ("prof_fp64_active_pct", _PCT),
    GPM_FP32_UTIL: ("prof_fp32_active_pct", _PCT),
    GPM_FP16_UTIL: ("prof_fp16_active_pct", _PCT),
    GPM_PCIE_RX_PER_SEC: ("prof_pcie_rx_bytes_s", _MIB_S),
    GPM_PCIE_TX_PER_SEC: ("prof_pcie_tx_bytes_s", _MIB_S),
    GPM_NVLINK_TOTAL_RX_PER_SEC: ("prof_nvlink_rx_bytes_s", _MIB_S),
    GPM_NVLINK_TOTAL_TX_PER_SEC: ("prof_nvlink_tx_bytes_s", _MIB_S),
}
# One metric per video engine; the sample carries the mean over the engines NVML reports.
_NVDEC = frozenset(range(GPM_NVDEC_0_UTIL, GPM_NVDEC_0_UTIL + GPM_ENGINES))
_NVJPG = frozenset(range(GPM_NVJPG_0_UTIL, GPM_NVJPG_0_UTIL + GPM_ENGINES))
_DEVICE_IDS = (*_DEVICE_METRICS, *sorted(_NVDEC), *sorted(_NVJPG))
#: metric id -> (field, unit): what a poll does with each answer.
_DEVICE_PLAN: dict[int, tuple[str, int]] = {
    **_DEVICE_METRICS,
    **dict.fromkeys(_NVDEC, ("prof_nvdec_pct", _DEC)),
    **dict.fromkeys(_NVJPG, ("prof_nvjpg_pct", _JPG)),
}

#: metric id -> MigProfSample field, per GPU instance.
_MIG_METRICS: dict[int, str] = {
    GPM_SM_UTIL: "prof_sm_active_pct",
    GPM_SM_OCCUPANCY: "prof_sm_occupancy_pct",
    GPM_ANY_TENSOR_UTIL: "prof_tensor_active_pct",
    GPM_DRAM_BW_UTIL: "prof_dram_active_pct",
    GPM_FP64_UTIL: "prof_fp64_active_pct",
    GPM_FP32_UTIL: "prof_fp32_active_pct",
    GPM_FP16_UTIL: "prof_fp16_active_pct",
}

# Answers that will not change by asking again, and what they mean for the user.
_GIVE_UP = {
    ERROR_NOT_SUPPORTED: PROF_NOT_SUPPORTED,
    ERROR_NO_PERMISSION: PROF_NOT_PERMITTED,
    ERROR_FUNCTION_NOT_FOUND: PROF_OLD_DRIVER,
}


@dataclass(slots=True)
class _Pair:
    """Two GPM sample buffers: ``prev`` holds the last sample (``ready``: one was taken and is
    usable), ``spare`` receives the next one."""

    prev: Any
    spare: Any
    ready: bool = False


@dataclass(slots=True)
class GpmState:
    """What one GPU's GPM reads keep between polls (``DeviceState.gpm``)."""

    checked: bool = False  # support was asked (and the buffers allocated, when supported)
    reason: str | None = None  # GPM is absent on this GPU, and why
    # Until then the poll takes ``last`` without calling read_gpm (inf: absent for good).
    due_s: float = -math.inf
    retry_s: float | None = None  # a transient failure: ask again from this time on
    pair: _Pair | None = None  # the whole GPU's buffers; None: the GPU is not sampled
    device_reason: str | None = None  # why the whole GPU is not sampled (MIG only, given up)
    metric_ids: tuple[int, ...] = _DEVICE_IDS
    plan: _Plan | None = None  # how to read the answers to metric_ids
    mig: dict[int, _Pair] = field(default_factory=dict)  # GPU instance id -> its buffers
    mig_ids: tuple[int, ...] = tuple(_MIG_METRICS)
    interval_s: float = GPM_MIN_INTERVAL_S  # the cadence (GPM_INTERVAL_S from NvmlSource)
    sampled_s: float | None = None  # when the last poll sampled
    soon: bool = False  # a pair lacks its second sample, or a poll failed: sample next poll
    last: dict[str, Any] = field(default_factory=dict)  # the fields that poll produced

    def pairs(self) -> list[_Pair]:
        return ([self.pair] if self.pair is not None else []) + list(self.mig.values())


def read_gpm(q: Query, dev: DeviceState, now: float) -> dict[str, Any]:
    """The ``prof_*`` fields (and ``mig_prof``) of one GPU, for ``GpuSample(**...)``.

    ``now`` is the source's monotonic clock in seconds. Raises :class:`GpuLost` when the GPU
    fell off the bus; every other failure leaves the values absent with the reason.
    """
    st: GpmState | None = dev.gpm
    if st is None:
        st = dev.gpm = GpmState()
    if not st.checked:
        if st.retry_s is not None and now < st.retry_s:
            return st.last
        if not _start(q, dev, st, now):
            return st.last
    if st.reason is not None:
        return st.last
    if st.sampled_s is not None and now - st.sampled_s < (
        GPM_MIN_INTERVAL_S if st.soon else max(st.interval_s, GPM_MIN_INTERVAL_S)
    ):
        return st.last  # not due: the values of the last sample still hold
    st.sampled_s = now
    st.soon = False  # set again below by a first sample or a failed one
    out: dict[str, Any] = {} if st.pair is None else _device_values(q, dev, st, st.pair)
    if st.pair is None:  # not sampled, or given up just now
        out["prof_unavailable"] = st.device_reason
    if st.mig:
        out["mig_prof"] = _mig_values(q, dev, st)
    elif st.pair is None and st.device_reason is not None:
        st.reason = st.device_reason  # nothing left to sample on this GPU
    st.due_s = (
        math.inf
        if st.reason is not None
        else now + (GPM_MIN_INTERVAL_S if st.soon else max(st.interval_s, GPM_MIN_INTERVAL_S))
    )
    st.last = out
    return out


def release_gpm(dev: DeviceState, free: Callable[[Any], Any] | None) -> int:
    """Free every GPM sample buffer of ``dev`` with ``free`` (``nvmlGpmSampleFree``; ``None``:
    the library has none) and forget them, so nothing is freed twice. Returns how many were."""
    st: GpmState | None = dev.gpm
    if st is None:
        return 0
    freed = 0
    for pair in st.pairs():
        freed += _free_pair(free, pair)
    st.pair = None
    st.mig.clear()
    return freed


def _free_pair(free: Callable[[Any], Any] | None, pair: _Pair) -> int:
    freed = 0
    for handle in (pair.prev, pair.spare):
        if free is None:
            continue
        try:
            free(handle)
            freed += 1
        except Exception:  # a driver in trouble: nothing more to do for this buffer
            pass
    return freed


# --- support and buffers ---------------------------------------------------------------------


def _start(q: Query, dev: DeviceState, st: GpmState, now: float) -> bool:
    """Ask once whether the GPU has GPM and allocate its buffers; ``False``: it has not (yet)."""
    st.reason = None
    try:
        support = q.fn("nvmlGpmQueryDeviceSupport")(dev.handle)
        supported = bool(int(getattr(support, "isSupportedDevice", 0)))
    except Exception as exc:
        _absent(st, _reason(q.failed(dev, "gpm_support", exc), exc), now)
        return False
    if not supported:
        _absent(st, PROF_NOT_SUPPORTED, now)
        return False
    info = dev.info
    migs = info.mig_devices if info is not None and info.mig_mode_current else ()
    instances = sorted({m.gpu_instance_id for m in migs if m.gpu_instance_id is not None})
    free = q.fn("nvmlGpmSampleFree")
    try:
        st.pair = _alloc_pair(q, free)
        for gi in instances:
            st.mig[gi] = _alloc_pair(q, free)
    except Exception as exc:
        code = q.failed(dev, "gpm_alloc", exc)
        release_gpm(dev, free)
        _absent(st, _reason(code, exc), now)
        return False
    st.checked = True
    st.retry_s = None
    return True


def _alloc_pair(q: Query, free: Callable[[Any], Any]) -> _Pair:
    alloc = q.fn("nvmlGpmSampleAlloc")
    first = alloc()
    try:
        return _Pair(prev=first, spare=alloc())
    except Exception:
        with contextlib.suppress(Exception):  # nothing more to do for it
            free(first)
        raise


def _reason(code: int | None, exc: BaseException) -> str:
    """The user's reason for a failed GPM call: permanent ones by name, else the error kind."""
    if code in _GIVE_UP:
        return _GIVE_UP[code]
    return f"{PROF_ERROR}: {error_kind(exc)}"


def _absent(st: GpmState, reason: str, now: float) -> None:
    """GPM is absent on this GPU: for good, or for :data:`RETRY_S` when the reason is a
    transient error."""
    st.reason = reason
    st.last = {"prof_unavailable": reason}
    if reason.startswith(PROF_ERROR):
        st.retry_s = st.due_s = now + RETRY_S
    else:
        st.checked = True  # asked once: never again
        st.retry_s = None
        st.due_s = math.inf


# --- per poll -----------------------------------------------------------------------------------


def _sample(q: Query, dev: DeviceState, pair: _Pair, fn_name: str, *args: Any) -> int:
    """Take a sample into ``pair.spare`` and swap the buffers. :data:`_OK`: there are two to
    compute over (the older in ``spare``, the newer in ``prev``); :data:`_FIRST`: a first
    sample; else the NVML error code (-1: not an NVML error). Raises :class:`GpuLost`."""
    try:
        q.fn(fn_name)(dev.handle, *args, pair.spare)
    except Exception as exc:
        pair.ready = False  # the next good sample starts a new pair
        code = q.failed(dev, "gpm_sample", exc)
        return -1 if code is None else code
    had_prev = pair.ready
    pair.prev, pair.spare, pair.ready = pair.spare, pair.prev, True
    return _OK if had_prev else _FIRST


def _metrics(
    q: Query, dev: DeviceState, pair: _Pair, ids: tuple[int, ...]
) -> tuple[list[int], list[float]] | int:
    """``nvmlGpmMetricsGet`` over the pair: (returns, values), or the error code (-1: not an
    NVML error) of a failed call."""
    if not ids:  # every metric turned out unsupported here: nothing to ask
        return [], []
    try:
        return q.gpm_metrics(pair.spare, pair.prev, ids)
    except Exception as exc:
        code = q.failed(dev, "gpm_metrics", exc)
        return -1 if code is None else code


def _transient(q: Query, code: int) -> str | None:
    """The reason shown for a failed sample or metrics call; ``None`` when the error is
    permanent and the buffers should be given up."""
    if code in _GIVE_UP:
        return None
    return f"{PROF_ERROR}: {kind_from_code(q.error_cls, code) if code >= 0 else 'Error'}"


@dataclass(frozen=True, slots=True)
class _Plan:
    """Where the answers to a metrics request go: the percentages' and the MiB/s rates' fields
    with a getter of their values, and getters of the NVDEC and NVJPG engines' values (each
    kind averaged into one field)."""

    ids: tuple[int, ...]
    pct_names: tuple[str, ...]
    pct: Callable[[list[float]], tuple[float, ...]]
    mib_names: tuple[str, ...]
    mib: Callable[[list[float]], tuple[float, ...]]
    dec: Callable[[list[float]], tuple[float, ...]]
    jpg: Callable[[list[float]], tuple[float, ...]]

    @classmethod
    def of(cls, ids: tuple[int, ...]) -> _Plan:
        units = [(i, *_DEVICE_PLAN[mid]) for i, mid in enumerate(ids)]

        def pick(unit: int) -> tuple[tuple[str, ...], Callable[[list[float]], tuple[float, ...]]]:
            chosen = [(name, i) for i, name, u in units if u == unit]
            names = tuple(name for name, _i in chosen)
            at = [i for _name, i in chosen]
            if len(at) > 1:
                return names, itemgetter(*at)
            return names, (lambda values: (values[at[0]],)) if at else (lambda _values: ())

        pct_names, pct = pick(_PCT)
        mib_names, mib = pick(_MIB_S)
        return cls(ids, pct_names, pct, mib_names, mib, pick(_DEC)[1], pick(_JPG)[1])


def _round2(v: float) -> float:
    """``v`` to 0.01, as ``round(v, 2)`` but without its decimal conversion (5x the time); the
    two can differ by 0.01 only where ``v * 100`` lies within a rounding error of a half."""
    return round(v * 100.0) / 100.0


def _plain(values: tuple[float, ...]) -> bool:
    """Every value a percentage as it should be (0 <= v < 100): the common case, checked in C
    (a NaN or an infinity makes the sum fail its test) rather than value by value."""
    return 0.0 <= sum(values) <= _MAX and min(values) >= 0.0 and max(values) < 100.0


def _pcts(values: tuple[float, ...]) -> list[float | None]:
    """Percentages rounded to 0.01 and clipped to 100; ``None`` for NaN, infinities and
    negatives."""
    if values and _plain(values):
        return [round(v * 100.0) / 100.0 for v in values]  # _round2, inlined
    return [(_round2(v) if v < 100.0 else 100.0) if 0.0 <= v <= _MAX else None for v in values]


def _engines_pct(values: tuple[float, ...]) -> float | None:
    """The mean activity of a kind of engine (clipped to 100 %), over those that answered."""
    if values and _plain(values):
        return _round2(sum(values) / len(values))
    ok = [v if v < 100.0 else 100.0 for v in values if 0.0 <= v <= _MAX]
    return _round2(sum(ok) / len(ok)) if ok else None


def _device_values(q: Query, dev: DeviceState, st: GpmState, pair: _Pair) -> dict[str, Any]:
    code = _sample(q, dev, pair, "nvmlGpmSampleGet")
    if code == _FIRST:
        st.soon = True  # the pair's second sample at the next poll
        return {"prof_unavailable": PROF_FIRST_SAMPLE}
    results = _metrics(q, dev, pair, st.metric_ids) if code == _OK else code
    if isinstance(results, int):
        reason = _transient(q, results)
        if reason is None:  # never works here: stop sampling the whole GPU
            st.device_reason = PROF_MIG_ONLY if st.mig else _GIVE_UP[results]
            _drop_pair(q, st, None)
            return {}
        st.soon = True  # this poll failed: the next one tries again
        return {"prof_unavailable": reason}
    rets, values = results
    if any(rets):
        ids, values = _failed_metrics(q, dev, st, rets, values)
        plan = _Plan.of(ids)
        st.soon = st.soon or len(ids) < len(st.metric_ids)  # one failed for now: ask again
    elif st.plan is not None and st.plan.ids is st.metric_ids:
        plan = st.plan
    else:
        plan = st.plan = _Plan.of(st.metric_ids)
    # Every GPU at every sample: kept to comprehensions and C builtins (perf/sampler.py).
    out: dict[str, Any] = dict(zip(plan.pct_names, _pcts(plan.pct(values)), strict=True))
    rates = [v * MIB for v in plan.mib(values)]  # a huge rate overflows to inf: refused
    out.update(
        zip(
            plan.mib_names,
            [float(round(b)) if 0.0 <= b <= _MAX else None for b in rates],
            strict=True,
        )
    )
    if (dec := _engines_pct(plan.dec(values))) is not None:
        out["prof_nvdec_pct"] = dec
    if (jpg := _engines_pct(plan.jpg(values))) is not None:
        out["prof_nvjpg_pct"] = jpg
    return out


def _failed_metrics(
    q: Query, dev: DeviceState, st: GpmState, rets: list[int], values: list[float]
) -> tuple[tuple[int, ...], list[float]]:
    """The metrics that answered, with their values; a metric that never works here is
    dropped from the device's request (recorded once), one that failed now is asked again."""
    ids: list[int] = []
    good: list[float] = []
    keep: list[int] = []
    for mid, ret, value in zip(st.metric_ids, rets, values, strict=True):
        if ret == 0:
            ids.append(mid)
            good.append(value)
            keep.append(mid)
        elif not _metric_failed(q, dev, mid, ret):
            keep.append(mid)
    if len(keep) != len(st.metric_ids):
        st.metric_ids = tuple(keep)
    return tuple(ids), good


def _mig_values(q: Query, dev: DeviceState, st: GpmState) -> tuple[MigProfSample, ...]:
    out: list[MigProfSample] = []
    for gi, pair in list(st.mig.items()):
        code = _sample(q, dev, pair, "nvmlGpmMigSampleGet", gi)
        if code == _FIRST:
            st.soon = True  # the pair's second sample at the next poll
            out.append(MigProfSample(gpu_instance_id=gi))  # no values yet
            continue
        results = _metrics(q, dev, pair, st.mig_ids) if code == _OK else code
        if isinstance(results, int):
            if _transient(q, results) is None:
                _drop_pair(q, st, gi)  # this instance cannot be sampled: stop asking
            else:
                st.soon = True  # this poll failed: the next one tries again
                out.append(MigProfSample(gpu_instance_id=gi))
            continue
        values: dict[str, float | None] = {}
        keep: list[int] = []
        for mid, ret, value in zip(st.mig_ids, *results, strict=True):
            if ret != 0:
                if not _metric_failed(q, dev, mid, ret):
                    keep.append(mid)
                continue
            keep.append(mid)
            values[_MIG_METRICS[mid]] = _pct(value)
        if len(keep) != len(st.mig_ids):
            st.mig_ids = tuple(keep)
        st.soon = st.soon or len(values) < len(keep)  # one failed for now: ask again
        out.append(MigProfSample(gpu_instance_id=gi, **values))
    return tuple(out)


def _metric_failed(q: Query, dev: DeviceState, mid: int, ret: int) -> bool:
    """Record a metric's own error; ``True`` when it will never work here (drop it)."""
    if ret == ERROR_GPU_IS_LOST:
        raise GpuLost(dev.index)
    if ret == ERROR_NOT_SUPPORTED and (mid in _NVDEC or mid in _NVJPG):
        return True  # an engine this GPU does not have (H100: 7 of the 8 slots): not a failure
    q.diagnostics.record(dev.index, f"gpm_metric{mid}", kind_from_code(q.error_cls, ret), "")
    return ret in PERMANENT_ERRORS


def _drop_pair(q: Query, st: GpmState, gi: int | None) -> None:
    """Free one pair of buffers (the whole GPU's, or GPU instance ``gi``'s) and forget it."""
    free = q.fn("nvmlGpmSampleFree")  # raises Closed before anything is forgotten
    pair = st.pair if gi is None else st.mig.pop(gi, None)
    if gi is None:
        st.pair = None
    if pair is not None:
        _free_pair(free, pair)


def _pct(value: float) -> float | None:
    """A GPM percentage, rounded to 0.01 and clipped to 0-100; ``None`` when not a number."""
    if not math.isfinite(value) or value < 0.0:
        return None
    return _round2(min(value, 100.0))
