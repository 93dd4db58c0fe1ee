"""Per-poll reads of each GPU (``nvidia-smi dmon``/``pmon``) into frozen samples.

Called by :meth:`~gpuprof.telemetry.nvml.NvmlSource.poll` through a
:class:`~gpuprof.telemetry.nvml.query.Query`; no pynvml here. Counters become rates
(NVLink KiB -> bytes/s), mW and mJ become W and J, and an unchanged NVLink or process sample
is reused rather than rebuilt: per-poll cost is what ``perf/sampler.py`` measures.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from gpuprof.telemetry.host import ProcessInfo, ProcessInfoCache, process_sample
from gpuprof.telemetry.model import EccCounts, GpuSample, NvLinkSample, ProcessSample
from gpuprof.telemetry.nvml.gpm import read_gpm
from gpuprof.telemetry.nvml.query import (
    DeviceState,
    GpuLost,
    MissingFunction,
    Query,
    field_of,
    field_values,
    memory_info,
)
from gpuprof.telemetry.nvml.static import read_links
from gpuprof.telemetry.nvml.values import (
    AGG_RX,
    AGG_TX,
    AGGREGATE_ECC,
    CLOCK_GRAPHICS,
    CLOCK_MEM,
    CLOCK_SM,
    CLOCK_VIDEO,
    ERROR_ARGUMENT_VERSION_MISMATCH,
    ERROR_FUNCTION_NOT_FOUND,
    ERROR_NO_PERMISSION,
    ERROR_NOT_FOUND,
    ERROR_NOT_SUPPORTED,
    FI_DEV_MEMORY_TEMP,
    FI_DEV_NVLINK_THROUGHPUT_DATA_RX,
    FI_DEV_NVLINK_THROUGHPUT_DATA_TX,
    KIB,
    MEMORY_ERROR_CORRECTED,
    MEMORY_ERROR_UNCORRECTED,
    PCIE_UTIL_RX_BYTES,
    PCIE_UTIL_TX_BYTES,
    PSTATE_UNKNOWN,
    RETIRE_CAUSE_DBE,
    RETIRE_CAUSE_MULTIPLE_SBE,
    TEMPERATURE_GPU,
    VOLATILE_ECC,
    count_of,
    counter_rate,
    milli,
    to_flag,
    to_float,
    to_int,
)
from gpuprof.telemetry.procstat import NO_USAGE
from gpuprof.telemetry.reasons import ClockEventReason

__all__ = ["UTIL_FRESH_S", "process_samples", "read_processes", "sample_gpu"]

_NO_INFO = ProcessInfo()
# Clock-event mask -> GpuSample.throttle_reasons: the flag arithmetic costs ~2 µs per GPU and
# poll, and a GPU shows a handful of masks in its life.
_THROTTLE_NAMES: dict[int | None, tuple[str, ...]] = {}


def _throttle_names(mask: int | None) -> tuple[str, ...]:
    names = _THROTTLE_NAMES.get(mask)
    if names is None:
        names = ClockEventReason.from_mask(mask).throttle_names
        if len(_THROTTLE_NAMES) < 4096:  # a driver sending noise cannot grow it for ever
            _THROTTLE_NAMES[mask] = names
    return names


# (EccCounts field, error type, counter) of the four nvmlDeviceGetTotalEccErrors reads.
_ECC_READS = (
    ("volatile_corrected", MEMORY_ERROR_CORRECTED, VOLATILE_ECC),
    ("volatile_uncorrected", MEMORY_ERROR_UNCORRECTED, VOLATILE_ECC),
    ("aggregate_corrected", MEMORY_ERROR_CORRECTED, AGGREGATE_ECC),
    ("aggregate_uncorrected", MEMORY_ERROR_UNCORRECTED, AGGREGATE_ECC),
)


def sample_gpu(q: Query, dev: DeviceState, now: float, slow: bool) -> GpuSample:
    """One GPU's sample; a GPU that falls off the bus now is marked lost, not raised."""
    if dev.lost or dev.handle is None:
        return GpuSample(index=dev.index, uuid=dev.uuid, lost=dev.lost)
    try:
        return _read_sample(q, dev, now, slow)
    except GpuLost:
        dev.lost = True
        return GpuSample(index=dev.index, uuid=dev.uuid, lost=True)


def _read_sample(q: Query, dev: DeviceState, now: float, slow: bool) -> GpuSample:
    g = q.get
    if slow:
        _read_slow(q, dev)
    util = g(dev, "util", "nvmlDeviceGetUtilizationRates")
    enc = g(dev, "util_enc", "nvmlDeviceGetEncoderUtilization")
    dec = g(dev, "util_dec", "nvmlDeviceGetDecoderUtilization")
    mem = memory_info(q, dev)
    pstate = g(dev, "pstate", "nvmlDeviceGetPerformanceState")
    reasons = g(dev, "clock_event_reasons", "nvmlDeviceGetCurrentClocksEventReasons")
    if reasons is None and "clock_event_reasons" in dev.skip:
        reasons = g(dev, "clock_throttle_reasons", "nvmlDeviceGetCurrentClocksThrottleReasons")
    events_mask = to_int(reasons)
    energy = g(dev, "energy", "nvmlDeviceGetTotalEnergyConsumption")
    rx = g(dev, "pcie_rx", "nvmlDeviceGetPcieThroughput", PCIE_UTIL_RX_BYTES)
    tx = g(dev, "pcie_tx", "nvmlDeviceGetPcieThroughput", PCIE_UTIL_TX_BYTES)
    fans = tuple(
        to_float(g(dev, f"fan{i}", "nvmlDeviceGetFanSpeed_v2", i)) for i in range(dev.num_fans)
    )

    # Per-link counters every poll only where the all-links sum is not available.
    per_link = bool(dev.links) and (slow or AGG_TX not in dev.field_ids)
    ids = dev.field_ids + dev.link_field_ids if per_link else dev.field_ids
    values = dict(field_values(q, dev, "field_values", ids)) if ids else {}
    nvlinks, link_rx, link_tx = _nvlink_samples(dev, now, values, per_link)
    # SM / tensor / DRAM activity (Hopper and newer): read_gpm is not even entered before the
    # next sample is due, nor where GPM is absent for good.
    gpm = dev.gpm
    prof = gpm.last if gpm is not None and now < gpm.due_s else read_gpm(q, dev, now)
    slow_values = dev.slow
    return GpuSample(
        index=dev.index,
        uuid=dev.uuid,
        util_gpu_pct=None if util is None else float(field_of(util, "gpu")),
        util_mem_pct=None if util is None else float(field_of(util, "memory")),
        util_enc_pct=None if enc is None else float(enc[0]),
        util_dec_pct=None if dec is None else float(dec[0]),
        mem_total_bytes=None if mem is None else int(field_of(mem, "total")),
        mem_used_bytes=None if mem is None else int(field_of(mem, "used")),
        mem_free_bytes=None if mem is None else int(field_of(mem, "free")),
        mem_reserved_bytes=to_int(getattr(mem, "reserved", None)) if mem is not None else None,
        clock_graphics_mhz=to_float(
            g(dev, "clock_graphics", "nvmlDeviceGetClockInfo", CLOCK_GRAPHICS)
        ),
        clock_sm_mhz=to_float(g(dev, "clock_sm", "nvmlDeviceGetClockInfo", CLOCK_SM)),
        clock_mem_mhz=to_float(g(dev, "clock_mem", "nvmlDeviceGetClockInfo", CLOCK_MEM)),
        clock_video_mhz=to_float(g(dev, "clock_video", "nvmlDeviceGetClockInfo", CLOCK_VIDEO)),
        clock_app_graphics_mhz=slow_values.get("clock_app_graphics_mhz"),
        clock_app_mem_mhz=slow_values.get("clock_app_mem_mhz"),
        pstate=None if pstate is None or int(pstate) == PSTATE_UNKNOWN else int(pstate),
        power_w=milli(g(dev, "power", "nvmlDeviceGetPowerUsage")),
        power_limit_w=milli(g(dev, "power_limit", "nvmlDeviceGetPowerManagementLimit")),
        power_enforced_limit_w=milli(
            g(dev, "power_enforced_limit", "nvmlDeviceGetEnforcedPowerLimit")
        ),
        energy_total_j=milli(energy),
        temp_gpu_c=to_float(g(dev, "temp_gpu", "nvmlDeviceGetTemperature", TEMPERATURE_GPU)),
        temp_mem_c=to_float(values.get((FI_DEV_MEMORY_TEMP, 0))),
        fan_speed_pct=fans,
        throttle_mask=events_mask,
        throttle_reasons=_throttle_names(events_mask),
        pcie_gen=to_int(g(dev, "pcie_gen", "nvmlDeviceGetCurrPcieLinkGeneration")),
        pcie_width=to_int(g(dev, "pcie_width", "nvmlDeviceGetCurrPcieLinkWidth")),
        pcie_rx_bytes_s=None if rx is None else float(rx) * KIB,
        pcie_tx_bytes_s=None if tx is None else float(tx) * KIB,
        pcie_replay_count=slow_values.get("pcie_replay_count"),
        nvlinks=nvlinks,
        nvlink_rx_bytes_s=link_rx,
        nvlink_tx_bytes_s=link_tx,
        ecc=slow_values.get("ecc"),
        **prof,
    )


def _read_slow(q: Query, dev: DeviceState) -> None:
    """Fields that change rarely: ECC, retirement/remapping, app clocks, replays, links."""
    g = q.get
    vc, vu, ac, au = (
        to_int(g(dev, f"ecc_{name}", "nvmlDeviceGetTotalEccErrors", error_type, counter))
        for name, error_type, counter in _ECC_READS
    )
    ecc = EccCounts(
        volatile_corrected=vc,
        volatile_uncorrected=vu,
        aggregate_corrected=ac,
        aggregate_uncorrected=au,
        retired_pages_sbe=count_of(
            g(dev, "retired_pages_sbe", "nvmlDeviceGetRetiredPages", RETIRE_CAUSE_MULTIPLE_SBE)
        ),
        retired_pages_dbe=count_of(
            g(dev, "retired_pages_dbe", "nvmlDeviceGetRetiredPages", RETIRE_CAUSE_DBE)
        ),
        retired_pages_pending=to_flag(
            g(dev, "retired_pages_pending", "nvmlDeviceGetRetiredPagesPendingStatus")
        ),
    )
    rows = g(dev, "remapped_rows", "nvmlDeviceGetRemappedRows")
    if rows is not None:
        ecc = replace(
            ecc,
            remapped_rows_correctable=int(rows[0]),
            remapped_rows_uncorrectable=int(rows[1]),
            remapped_rows_pending=bool(rows[2]),
            remapped_rows_failure=bool(rows[3]),
        )
    dev.slow = {
        "ecc": None if ecc == EccCounts() else ecc,
        "clock_app_graphics_mhz": to_float(
            g(dev, "clock_app_graphics", "nvmlDeviceGetApplicationsClock", CLOCK_GRAPHICS)
        ),
        "clock_app_mem_mhz": to_float(
            g(dev, "clock_app_mem", "nvmlDeviceGetApplicationsClock", CLOCK_MEM)
        ),
        "pcie_replay_count": to_int(g(dev, "pcie_replay", "nvmlDeviceGetPcieReplayCounter")),
    }
    if dev.links:
        read_links(q, dev)


def _nvlink_samples(
    dev: DeviceState, now: float, values: dict[tuple[int, int], Any], per_link: bool
) -> tuple[tuple[NvLinkSample, ...], float | None, float | None]:
    """NVLink rx/tx bytes/s from the cumulative KiB data counters, differenced over polls.

    The per-GPU totals come from the all-links counters on every poll; the per-link
    rates are averages since the previous per-link read (the slow cadence), or per poll
    on drivers without the all-links counters (``nvidia-smi nvlink -gt d``).
    """
    if not dev.links:
        return (), None, None
    rates = dev.link_rates
    if per_link:
        prev = dev.nvlink_prev
        dt = 0.0 if prev is None else now - prev[0]
        before = prev[1] if prev is not None and dt > 0 else {}  # {}: no rates this time
        current: dict[int, tuple[int | None, int | None]] = {}
        for link in dev.links:
            n = link.link
            tx = to_int(values.get((FI_DEV_NVLINK_THROUGHPUT_DATA_TX, n)))
            rx = to_int(values.get((FI_DEV_NVLINK_THROUGHPUT_DATA_RX, n)))
            current[n] = (tx, rx)
            old_tx, old_rx = before.get(n, (None, None))
            rates[n] = (counter_rate(old_rx, rx, dt, KIB), counter_rate(old_tx, tx, dt, KIB))
        dev.nvlink_prev = (now, current)
        dev.link_samples = None
    if dev.link_samples is None:
        # Immutable, so one tuple serves every snapshot until the next per-link read.
        none = (None, None)
        dev.link_samples = tuple(
            NvLinkSample(
                link=link.link,
                active=link.active,
                version=link.version,
                remote_type=link.remote_type,
                remote_pci_bus_id=link.remote_pci_bus_id,
                rx_bytes_s=(rx_tx := rates.get(link.link, none))[0],
                tx_bytes_s=rx_tx[1],
            )
            for link in dev.links
        )
    samples = dev.link_samples
    if AGG_TX in dev.field_ids or AGG_RX in dev.field_ids:
        agg_tx, agg_rx = to_int(values.get(AGG_TX)), to_int(values.get(AGG_RX))
        prev_total = dev.nvlink_total_prev
        dev.nvlink_total_prev = (now, agg_tx, agg_rx)
        if prev_total is None or now <= prev_total[0]:
            return samples, None, None
        dt_total = now - prev_total[0]
        total_rx = counter_rate(prev_total[2], agg_rx, dt_total, KIB)
        total_tx = counter_rate(prev_total[1], agg_tx, dt_total, KIB)
        return samples, total_rx, total_tx
    rxs = [s.rx_bytes_s for s in samples if s.rx_bytes_s is not None]
    txs = [s.tx_bytes_s for s in samples if s.tx_bytes_s is not None]
    return samples, (sum(rxs) if rxs else None), (sum(txs) if txs else None)


# --- processes -------------------------------------------------------------------------------


def read_processes(q: Query, dev: DeviceState, now: float) -> dict[int, tuple[str, int | None]]:
    """pid -> (kind, GPU memory bytes) from the compute and graphics process lists; ``now`` is
    the poll's monotonic time (seconds), which ages the per-process utilization samples."""
    out: dict[int, tuple[str, int | None]] = {}
    for kind, fn_name in (
        ("compute", "nvmlDeviceGetComputeRunningProcesses"),
        ("graphics", "nvmlDeviceGetGraphicsRunningProcesses"),
    ):
        field_name = f"{kind}_processes"
        if field_name in dev.skip:
            continue
        try:
            procs = q.fn(fn_name)(dev.handle)
        except Exception as exc:
            try:
                code = q.failed(dev, field_name, exc)
            except GpuLost:
                dev.lost = True
                return {}
            if code == ERROR_NO_PERMISSION:
                dev.process_denied = True
            continue
        for p in procs or ():
            pid = int(p.pid)
            used = getattr(p, "usedGpuMemory", None)
            used = None if used is None else int(used)
            if pid in out:
                old_kind, old_used = out[pid]
                merged = "compute+graphics" if old_kind != kind else old_kind
                out[pid] = (merged, old_used if old_used is not None else used)
            else:
                out[pid] = (kind, used)
    if out:
        _process_util(q, dev, now)
    return out


#: A process's utilization sample is shown this long after it arrived (``pmon`` shows "-" for a
#: process without a recent sample: NVML samples only the processes that ran).
UTIL_FRESH_S = 5.0
_UTIL_FRESH_US = int(UTIL_FRESH_S * 1e6)
# The newer call's answers that mean "use the older call": absent from this driver or pynvml.
_NO_NEWER_CALL = frozenset(
    {ERROR_FUNCTION_NOT_FOUND, ERROR_NOT_SUPPORTED, ERROR_ARGUMENT_VERSION_MISMATCH}
)


def _util_samples(q: Query, dev: DeviceState) -> list[Any] | None:
    """Samples newer than the cursor ``dev.proc_util_ts`` (``[]``: none; ``None``: failed).

    ``nvmlDeviceGetProcessesUtilizationInfo`` (drivers 550+) where present, else
    ``nvmlDeviceGetProcessUtilization``: the same samples (pid, timestamp µs, SM %, memory %).
    Both answer NOT_FOUND when nothing is newer than the cursor; pynvml's wrappers raise
    ``NVMLError(0)`` when NVML reports success with no samples.
    """
    for field_name, fn_name in (
        ("process_util_info", "nvmlDeviceGetProcessesUtilizationInfo"),
        ("process_util", "nvmlDeviceGetProcessUtilization"),
    ):
        if field_name in dev.skip:
            continue
        try:
            return list(q.fn(fn_name)(dev.handle, dev.proc_util_ts) or ())
        except Exception as exc:
            code = getattr(exc, "value", None)
            if isinstance(exc, MissingFunction):
                code = ERROR_FUNCTION_NOT_FOUND
            if code in (ERROR_NOT_FOUND, 0):
                return []
            if field_name == "process_util_info" and code in _NO_NEWER_CALL:
                dev.skip.add(field_name)  # an older driver: not an error worth reporting
                continue
            try:
                code = q.failed(dev, field_name, exc)
            except GpuLost:
                dev.lost = True
                return None
            if code == ERROR_NO_PERMISSION:
                dev.process_denied = True
            return None
    return None


def _process_util(q: Query, dev: DeviceState, now: float) -> None:
    """Per-process SM / memory-controller utilization (``nvidia-smi pmon``), newest per pid.

    The cursor makes each read return only samples newer than the last one seen, so every
    sample is taken once; a pid keeps its newest sample, which is shown for
    :data:`UTIL_FRESH_S` after it arrived. The first read returns what the driver still
    holds: samples older than :data:`UTIL_FRESH_S` before the newest are dropped.
    """
    samples = _util_samples(q, dev)
    if not samples:
        return
    # One pass over the driver's structs (pynvml reads each field through a Python
    # __getattribute__): the newest sample of each pid, and the newest of all.
    newest = dev.proc_util_ts
    best: dict[int, tuple[int, Any, Any]] = {}
    for s in samples:
        ts, pid = int(field_of(s, "timeStamp")), int(field_of(s, "pid"))
        if ts > newest:
            newest = ts
        old_best = best.get(pid)
        if old_best is None or ts >= old_best[0]:
            best[pid] = (ts, field_of(s, "smUtil"), field_of(s, "memUtil"))
    horizon = newest - _UTIL_FRESH_US
    util = dev.proc_util
    for pid, (ts, sm, mem) in best.items():
        old = util.get(pid)
        if ts >= horizon and (old is None or ts >= old[0]):
            util[pid] = (ts, to_float(sm), to_float(mem), now)
    dev.proc_util_ts = newest


def process_samples(
    cache: ProcessInfoCache,
    raw: list[tuple[DeviceState, dict[int, tuple[str, int | None]]]],
    now: float,
) -> tuple[ProcessSample, ...]:
    """Frozen samples of every GPU process: name, user, command line, start time and container
    from ``cache`` (read once per process), host CPU % and RSS from it at its cadence.

    A process's sample is reused while what it is built from is unchanged: the key compares
    the cached ProcessInfo and HostUsage objects, the same objects between readings."""
    pids = [pid for _dev, procs in raw for pid in procs]
    infos = cache.lookup(pids) if pids else {}
    usage = cache.host_usage(pids)
    out: list[ProcessSample] = []
    for dev, procs in raw:
        util_of = dev.proc_util
        # Forget processes that left; a utilization sample that arrived long ago is stale.
        for pid in [p for p in util_of if p not in procs]:
            del util_of[pid]
        previous, built = dev.proc_samples, {}
        for pid, (kind, used) in procs.items():
            info = infos.get(pid) or _NO_INFO
            host = usage.get(pid) or NO_USAGE
            util = util_of.get(pid)
            if util is not None and now - util[3] <= UTIL_FRESH_S:
                sm, mem = util[1], util[2]
            else:
                sm = mem = None
            key = (kind, used, sm, mem, host, info)
            seen = previous.get(pid)
            if seen is not None and seen[0] == key:
                sample = seen[1]
            else:
                sample = process_sample(
                    pid,
                    dev.index,
                    info,
                    host,
                    kind=kind,
                    gpu_mem_bytes=used,
                    sm_util_pct=sm,
                    mem_util_pct=mem,
                )
            built[pid] = (key, sample)
            out.append(sample)
        dev.proc_samples = built
    return tuple(out)
