"""Burn-in: a sustained matrix-multiply load while telemetry watches the GPU, then a verdict.

:func:`run_burnin` keeps every device given busy at once with ``torch.matmul``, one worker
thread per device (bf16 on a GPU, fp32 on the CPU), for the given time while one
:class:`~gpuprof.telemetry.session.TelemetrySession` samples the source for all GPUs together
(a whole node under load: its power and cooling are tested, not one GPU's);
:func:`analyse_burnin`, a pure function of the snapshots, the devices' static facts and the XID
events seen, grades each GPU from its own series:

* ``burnin.clock``: the SM clock under load falling more than ``clock_drop_pct`` below its
  early-load median (the first ``early_fraction`` of the load samples) for at least
  ``sustained_samples`` samples in a row: FAIL;
* ``burnin.throttle``: clock-event reasons under load other than the benign ones
  (:data:`gpuprof.telemetry.reasons.BENIGN`): hardware, thermal or power-brake slowdown FAIL;
  software power capping alone is a WARN (a GEMM at full load often sits on its power limit;
  what it costs shows in ``burnin.clock``);
* ``burnin.temperature``: the hottest sample within ``temp_margin_c`` of the GPU's slowdown
  temperature (``DeviceInfo.temp_slowdown_c``): FAIL;
* ``burnin.power``: power drawn above the enforced limit by more than ``power_over_pct``: WARN
  (the sensor or the limit is wrong);
* ``burnin.ecc``: new uncorrected ECC errors, or a page retirement / row remap becoming pending:
  FAIL; new corrected errors: WARN;
* ``burnin.xid``: any XID event on the GPU during the load: FAIL.

A sample counts as under load when its GPU utilization is at least ``min_util_pct`` (or unknown).
The items are :class:`BurnInItem` records: check items of group ``diagnostics``.
"""

from __future__ import annotations

import statistics
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gpuprof.check.model import CheckItem, Status
from gpuprof.i18n import tr
from gpuprof.telemetry.model import DeviceInfo, EccCounts, GpuSample, Snapshot
from gpuprof.telemetry.reasons import BENIGN, ClockEventReason

if TYPE_CHECKING:
    from gpuprof.telemetry.source import TelemetrySource

__all__ = [
    "JOIN_S",
    "BurnInItem",
    "BurnInLimits",
    "BurnInLoad",
    "BurnInRun",
    "analyse_burnin",
    "run_burnin",
]

_FATAL = (
    ClockEventReason.HW_SLOWDOWN
    | ClockEventReason.HW_THERMAL_SLOWDOWN
    | ClockEventReason.HW_POWER_BRAKE_SLOWDOWN
    | ClockEventReason.SW_THERMAL_SLOWDOWN
)


@dataclass(frozen=True, slots=True)
class BurnInLimits:
    clock_drop_pct: float = 10.0
    early_fraction: float = 0.2
    min_early_samples: int = 3
    sustained_samples: int = 2
    temp_margin_c: float = 5.0
    power_over_pct: float = 5.0
    min_util_pct: float = 50.0


@dataclass(frozen=True, slots=True, kw_only=True)
class BurnInItem(CheckItem):
    """One graded line of the burn-in: a check item of group ``diagnostics``; ``status`` is
    PASS, WARN, FAIL or SKIP."""

    group: str = "diagnostics"

    def to_check_item(self) -> CheckItem:
        """This line as the scorecard holds it."""
        return self


def _load_samples(snaps: Sequence[Snapshot], index: int, limits: BurnInLimits) -> list[GpuSample]:
    out = []
    for snap in snaps:
        for g in snap.gpus:
            loaded = g.util_gpu_pct is None or g.util_gpu_pct >= limits.min_util_pct
            if g.index == index and not g.lost and loaded:
                out.append(g)
    return out


def _clock_item(load: list[GpuSample], index: int, limits: BurnInLimits) -> BurnInItem:
    clocks = [g.clock_sm_mhz for g in load]
    n_early = max(limits.min_early_samples, int(len(clocks) * limits.early_fraction))
    early = [c for c in clocks[:n_early] if c is not None]
    late = clocks[n_early:]
    if not early or not [c for c in late if c is not None]:
        return BurnInItem(
            item_id="burnin.clock",
            status=Status.SKIP,
            reason=tr("too few SM clock samples under load to compare"),
            gpu_index=index,
        )
    base = statistics.median(early)
    floor = base * (1.0 - limits.clock_drop_pct / 100.0)
    run = longest = 0
    for c in late:
        run = run + 1 if c is not None and c < floor else 0
        longest = max(longest, run)
    low = min(c for c in late if c is not None)
    ratio = low / base if base else None
    fell = longest >= limits.sustained_samples
    return BurnInItem(
        item_id="burnin.clock",
        status=Status.FAIL if fell else Status.PASS,
        measured=low,
        expected=base,
        ratio=ratio,
        unit="MHz",
        reason=tr(
            "SM clock fell to {low:.0f} MHz under load, {pct:.0f}% below its early-load "
            "median of {base:.0f} MHz, for {n} samples",
            low=low,
            pct=100.0 * (1.0 - low / base),
            base=base,
            n=longest,
        )
        if fell
        else "",
        hint=tr("check cooling, airflow and the power supply; see the throttle reasons")
        if fell
        else "",
        gpu_index=index,
    )


def _throttle_item(load: list[GpuSample], index: int) -> BurnInItem:
    seen = ClockEventReason(0)
    for g in load:
        seen |= g.clock_events
    bad = ClockEventReason(int(seen) & ~int(BENIGN))
    if not bad:
        return BurnInItem(
            item_id="burnin.throttle", status=Status.PASS, measured="", gpu_index=index
        )
    names = ", ".join(bad.names)
    fatal = bool(bad & _FATAL)
    return BurnInItem(
        item_id="burnin.throttle",
        status=Status.FAIL if fatal else Status.WARN,
        measured=names,
        reason=tr("clocks slowed under load: {r}", r=names),
        hint=tr("hardware or thermal slowdown: check cooling, fans and the power brake signal")
        if fatal
        else tr("power capping under full load; compare the power limit with the spec"),
        gpu_index=index,
    )


def _temp_item(
    load: list[GpuSample], info: DeviceInfo | None, index: int, limits: BurnInLimits
) -> BurnInItem:
    temps = [g.temp_gpu_c for g in load if g.temp_gpu_c is not None]
    slowdown = info.temp_slowdown_c if info is not None else None
    if not temps or slowdown is None:
        return BurnInItem(
            item_id="burnin.temperature",
            status=Status.SKIP,
            measured=max(temps) if temps else None,
            unit="°C",
            reason=tr("no temperature or no slowdown temperature known"),
            gpu_index=index,
        )
    hottest = max(temps)
    margin = slowdown - hottest
    ok = margin > limits.temp_margin_c
    return BurnInItem(
        item_id="burnin.temperature",
        status=Status.PASS if ok else Status.FAIL,
        measured=hottest,
        expected=slowdown,
        unit="°C",
        reason=""
        if ok
        else tr(
            "reached {t:.0f} °C under load, {m:.0f} °C from the slowdown temperature {s:.0f} °C",
            t=hottest,
            m=margin,
            s=slowdown,
        ),
        hint="" if ok else tr("check airflow, fan curves and the inlet temperature"),
        gpu_index=index,
    )


def _power_item(load: list[GpuSample], index: int, limits: BurnInLimits) -> BurnInItem:
    pairs = [
        (g.power_w, g.power_enforced_limit_w or g.power_limit_w)
        for g in load
        if g.power_w is not None and (g.power_enforced_limit_w or g.power_limit_w)
    ]
    if not pairs:
        return BurnInItem(
            item_id="burnin.power",
            status=Status.SKIP,
            unit="W",
            reason=tr("no power reading or limit"),
            gpu_index=index,
        )
    top, limit = max(pairs, key=lambda p: p[0] / float(p[1] or 1.0))
    assert limit is not None
    over = top > limit * (1.0 + limits.power_over_pct / 100.0)
    return BurnInItem(
        item_id="burnin.power",
        status=Status.WARN if over else Status.PASS,
        measured=top,
        expected=limit,
        ratio=top / limit,
        unit="W",
        reason=tr("drew {p:.0f} W against a limit of {l:.0f} W", p=top, l=limit) if over else "",
        gpu_index=index,
    )


def _ecc_of(snaps: Sequence[Snapshot], index: int) -> list[EccCounts]:
    return [g.ecc for s in snaps for g in s.gpus if g.index == index and g.ecc is not None]


def _grew(first: int | None, last: int | None) -> int:
    return max(0, (last or 0) - (first or 0)) if last is not None else 0


def _ecc_item(snaps: Sequence[Snapshot], index: int) -> BurnInItem:
    counts = _ecc_of(snaps, index)
    if not counts:
        return BurnInItem(
            item_id="burnin.ecc",
            status=Status.SKIP,
            reason=tr("no ECC counters (ECC off or not supported)"),
            gpu_index=index,
        )
    first, last = counts[0], counts[-1]
    dbe = _grew(first.volatile_uncorrected, last.volatile_uncorrected)
    sbe = _grew(first.volatile_corrected, last.volatile_corrected)
    pending = [
        what
        for what, before, after in (
            ("retired_pages_pending", first.retired_pages_pending, last.retired_pages_pending),
            ("remapped_rows_pending", first.remapped_rows_pending, last.remapped_rows_pending),
            ("remapped_rows_failure", first.remapped_rows_failure, last.remapped_rows_failure),
        )
        if after and not before
    ]
    if dbe or pending:
        status = Status.FAIL
    elif sbe:
        status = Status.WARN
    else:
        return BurnInItem(item_id="burnin.ecc", status=Status.PASS, measured=0, gpu_index=index)
    return BurnInItem(
        item_id="burnin.ecc",
        status=status,
        measured=dbe + sbe,
        reason=tr(
            "new ECC errors under load: {u} uncorrected, {c} corrected{p}",
            u=dbe,
            c=sbe,
            p=(" (" + ", ".join(pending) + ")") if pending else "",
        ),
        hint=tr("reset the GPU to retire or remap the rows; repeated errors mean an RMA"),
        gpu_index=index,
    )


def _xid_item(xids: Sequence[tuple[int, int]], index: int) -> BurnInItem:
    mine = sorted({x for i, x in xids if i == index})
    if not mine:
        return BurnInItem(item_id="burnin.xid", status=Status.PASS, measured="", gpu_index=index)
    codes = ", ".join(str(x) for x in mine)
    return BurnInItem(
        item_id="burnin.xid",
        status=Status.FAIL,
        measured=codes,
        reason=tr("XID errors during the load: {x}", x=codes),
        hint=tr("look the XID codes up in NVIDIA's XID catalog; check dmesg"),
        gpu_index=index,
    )


def analyse_burnin(
    snapshots: Sequence[Snapshot],
    devices: Sequence[DeviceInfo] = (),
    *,
    xids: Sequence[tuple[int, int]] = (),
    gpu_indices: Sequence[int] | None = None,
    limits: BurnInLimits = BurnInLimits(),
) -> tuple[BurnInItem, ...]:
    """The burn-in items of each GPU (``gpu_indices``, default every GPU in the snapshots),
    in GPU order. ``xids`` are ``(gpu index, xid code)`` events seen during the load."""
    infos: Mapping[int, DeviceInfo] = {d.index: d for d in devices}
    if gpu_indices is None:
        gpu_indices = sorted({g.index for s in snapshots for g in s.gpus})
    items: list[BurnInItem] = []
    for index in gpu_indices:
        load = _load_samples(snapshots, index, limits)
        if not load:
            items.append(
                BurnInItem(
                    item_id="burnin.clock",
                    status=Status.SKIP,
                    reason=tr("the GPU was never seen under load"),
                    gpu_index=index,
                )
            )
        else:
            items.append(_clock_item(load, index, limits))
            items.append(_throttle_item(load, index))
            items.append(_temp_item(load, infos.get(index), index, limits))
            items.append(_power_item(load, index, limits))
        items.append(_ecc_item(snapshots, index))
        items.append(_xid_item(xids, index))
    return tuple(items)


# --- the load -------------------------------------------------------------------------------------

#: How long the end of a burn-in waits for its workers to leave their loops (a batch of products
#: is milliseconds; a worker still inside the driver after this is reported, not waited for).
JOIN_S = 30.0


@dataclass(frozen=True, slots=True)
class BurnInLoad:
    """One device's share of the load: the products its worker did and when it ran
    (``time.monotonic`` seconds: from its first product to leaving its loop), or its error."""

    device: str
    dtype: str
    n: int
    iterations: int
    started_s: float | None = None
    ended_s: float | None = None
    error: str | None = None
    #: The NVML index of the GPU this load ran on (its telemetry and grading); None for the CPU.
    #: Not read from ``device``: torch's ``cuda:N`` is not NVML GPU N under
    #: CUDA_VISIBLE_DEVICES or CUDA's default device order (:mod:`gpuprof.devices`).
    gpu_index: int | None = None

    @property
    def seconds(self) -> float:
        if self.started_s is None or self.ended_s is None:
            return 0.0
        return max(0.0, self.ended_s - self.started_s)

    @property
    def tflops(self) -> float | None:
        s = self.seconds
        return 2.0 * self.n**3 * self.iterations / s / 1e12 if s > 0 and self.iterations else None


@dataclass(frozen=True, slots=True)
class BurnInRun:
    """What ran: matrix products done (all devices together), their mean rate, the snapshots
    taken and the items; ``loads`` has each device's own share, in the order given."""

    device: str
    dtype: str
    n: int
    seconds: float
    iterations: int
    tflops: float | None
    snapshots: tuple[Snapshot, ...]
    items: tuple[BurnInItem, ...]
    cancelled: bool = False
    error: str | None = None
    notes: tuple[str, ...] = field(default=())
    loads: tuple[BurnInLoad, ...] = field(default=())


class _Worker:
    """The mutable state of one device's loop (written by its thread, read at the end)."""

    def __init__(self, device: str, n: int, gpu_index: int | None = None) -> None:
        self.device = device
        self.gpu_index = gpu_index
        self.n = n
        self.dtype = "bf16" if device.startswith("cuda") else "fp32"
        self.done = 0
        self.started: float | None = None
        self.ended: float | None = None
        self.error: str | None = None
        self.thread: threading.Thread | None = None

    def load(self) -> BurnInLoad:
        error = self.error
        if error is None and self.thread is not None and self.thread.is_alive():
            error = f"{self.device}: still running {JOIN_S:g} s after the stop"
        return BurnInLoad(
            device=self.device,
            dtype=self.dtype,
            n=self.n,
            iterations=self.done,
            started_s=self.started,
            ended_s=self.ended if self.ended is not None else time.monotonic(),
            error=error,
            gpu_index=self.gpu_index,
        )


def _gemm_loop(
    worker: _Worker, stop: threading.Event, tensor_device: Callable[[str], str] | None
) -> None:
    try:
        import torch

        dev = torch.device(tensor_device(worker.device) if tensor_device else worker.device)
        on_gpu = dev.type == "cuda"
        if on_gpu:
            torch.cuda.set_device(dev)  # this thread's current device (thread-local)
        dtype = torch.bfloat16 if on_gpu else torch.float32
        worker.dtype = "bf16" if on_gpu else "fp32"
        n = worker.n
        a = torch.randn(n, n, device=dev, dtype=dtype)
        b = torch.randn(n, n, device=dev, dtype=dtype)
        c = torch.empty(n, n, device=dev, dtype=dtype)
        worker.started = time.monotonic()
        while not stop.is_set():
            for _ in range(8):
                torch.matmul(a, b, out=c)
            if on_gpu:
                torch.cuda.synchronize(dev)
            worker.done += 8
    except Exception as exc:  # reported in the run, never lost in the thread
        worker.error = f"{worker.device}: {type(exc).__name__}: {exc}"
    finally:
        worker.ended = time.monotonic()


def _nvml_indices(names: Sequence[str], devices: Sequence[DeviceInfo]) -> list[int | None]:
    from gpuprof.devices import nvml_index_of

    out: list[int | None] = []
    for name in names:
        head, _, tail = name.partition(":")
        if head != "cuda":
            out.append(None)
            continue
        ordinal = int(tail) if tail.isdigit() else 0
        out.append(nvml_index_of(ordinal, devices))
    return out


def run_burnin(
    device: str | Sequence[str] = "cpu",
    *,
    seconds: float,
    source: TelemetrySource | None = None,
    interval_s: float = 1.0,
    n: int | None = None,
    devices: Sequence[DeviceInfo] = (),
    xids: Callable[[], Sequence[tuple[int, int]]] | None = None,
    gpu_indices: Sequence[int] | None = None,
    progress: Callable[[float, str], None] | None = None,
    cancel: Callable[[], bool] | None = None,
    limits: BurnInLimits = BurnInLimits(),
    tensor_device: Callable[[str], str] | None = None,
    nvml_indices: Sequence[int | None] | None = None,
) -> BurnInRun:
    """Load every device of ``device`` (one, or several: all at once, one worker thread each;
    torch releases the GIL inside its kernels) for ``seconds`` with matrix products of size
    ``n`` (8192 on a GPU, 512 on the CPU) while ``source`` (if any) is sampled every
    ``interval_s`` for all GPUs together; then grade each GPU of ``gpu_indices`` from its series.

    ``xids()`` is called at the end for the XID events seen meanwhile (the check's NVML event
    set). ``cancel()`` is polled about ten times a second and stops every worker. A device whose
    loop fails keeps its error in its :class:`BurnInLoad`; the others run on.
    ``tensor_device(name)`` places a device's tensors elsewhere (tests: CPU tensors standing in
    for GPUs); it is called in the worker, so what it raises is that device's error.
    ``nvml_indices`` (one per device, in order) are the NVML GPUs the devices are, for each
    load's ``gpu_index``; by default each torch ordinal is matched to ``devices`` by
    :func:`gpuprof.devices.cuda_map` (UUID, PCI bus id or CUDA_VISIBLE_DEVICES).
    """
    from gpuprof.telemetry.session import TelemetrySession

    names = [device] if isinstance(device, str) else list(device)
    if not names:
        raise ValueError("run_burnin needs at least one device")
    is_gpu = names[0].startswith("cuda")
    size = n if n is not None else (8192 if is_gpu else 512)
    snaps: list[Snapshot] = []
    session = None
    if source is not None:
        session = TelemetrySession(source, interval_s=interval_s, history_capacity=4096)
        session.subscribe(snaps.append)
        session.start()
    stop = threading.Event()
    if nvml_indices is not None and len(nvml_indices) != len(names):
        raise ValueError("run_burnin needs one NVML index per device")
    indices = list(nvml_indices) if nvml_indices is not None else _nvml_indices(names, devices)
    workers = [_Worker(name, size, index) for name, index in zip(names, indices, strict=True)]
    for w in workers:
        w.thread = threading.Thread(
            target=_gemm_loop, args=(w, stop, tensor_device), name=f"burnin {w.device}", daemon=True
        )
    started = time.monotonic()
    for w in workers:
        assert w.thread is not None
        w.thread.start()
    cancelled = False

    def products() -> int:
        return sum(w.done for w in workers)

    try:
        while any(w.thread is not None and w.thread.is_alive() for w in workers):
            elapsed = time.monotonic() - started
            if elapsed >= seconds:
                break
            if cancel is not None and cancel():
                cancelled = True
                break
            if progress is not None:
                progress(min(1.0, elapsed / seconds), tr("burn-in: {n} products", n=products()))
            time.sleep(min(0.1, max(0.0, seconds - elapsed)))
    finally:
        stop.set()
        deadline = time.monotonic() + JOIN_S
        for w in workers:
            assert w.thread is not None
            w.thread.join(max(0.0, deadline - time.monotonic()))
        elapsed = time.monotonic() - started
        if session is not None:
            session.close(close_source=False)
    loads = tuple(w.load() for w in workers)
    done = sum(x.iterations for x in loads)
    items = analyse_burnin(
        tuple(snaps),
        devices,
        xids=tuple(xids()) if xids is not None else (),
        gpu_indices=gpu_indices,
        limits=limits,
    )
    if progress is not None:
        progress(1.0, tr("burn-in: {n} products", n=done))
    errors = [x.error for x in loads if x.error]
    rates = [x.tflops for x in loads if x.tflops]
    return BurnInRun(
        device=", ".join(names),
        dtype=loads[0].dtype,
        n=size,
        seconds=elapsed,
        iterations=done,
        tflops=sum(rates) if rates else None,
        snapshots=tuple(snaps),
        items=items,
        cancelled=cancelled,
        error=errors[0] if errors else None,
        loads=loads,
    )
