"""Plain-language health findings from telemetry and static device facts.

:func:`diagnose` looks at the static :class:`DeviceInfo` of each GPU and a window of
:class:`Snapshot` s (one is enough for most checks) and returns :class:`Finding` s, each with a
severity and a hint the user can act on. It never talks to NVML; the GUI's Health panel, the
reports and the CLI all call it with what the telemetry layer already produced.

Checks that depend on load look only at samples where the GPU was busy: an idle GPU lowers its
PCIe generation and clocks on purpose, and that is not a fault.
"""

from __future__ import annotations

import importlib.metadata
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from gpuprof.findings import Finding, Severity
from gpuprof.health.activity import check_prof
from gpuprof.i18n import tr
from gpuprof.telemetry.model import DeviceInfo, EccCounts, GpuSample, Snapshot, SystemInfo
from gpuprof.telemetry.reasons import ClockEventReason
from gpuprof.telemetry.reasons import canonical_name as normalize_reason
from gpuprof.units import fmt_bytes, fmt_num, fmt_pct

__all__ = [
    "BUSY_UTIL_PCT",
    "LOW_UTIL_PCT",
    "Finding",
    "Severity",
    "checks_not_run",
    "diagnose",
    "diagnose_series",
    "installed_torch_cuda_version",
    "normalize_reason",
    "torch_cuda_from_version",
]

#: A sample counts as "under load" from this GPU utilization on (percent).
BUSY_UTIL_PCT = 50.0
#: Below this mean utilization while a job runs, the job waits on its input (the seeds' 70% rule).
LOW_UTIL_PCT = 70.0
#: A job is running when processes use the GPU or this share of its memory is in use (percent).
JOB_MEM_USED_PCT = 10.0
#: A throttle reason is reported when seen in at least this share of the busy samples.
THROTTLE_MIN_SHARE = 0.1


def torch_cuda_from_version(version: str) -> str | None:
    """The CUDA version a torch wheel was built for, from its version's local tag.

    ``"2.13.0+cu126"`` -> ``"12.6"``, ``"2.4.1+cu118"`` -> ``"11.8"``; ``"+cpu"``, ``"+rocm6.1"``
    and a version without a CUDA tag -> ``None``.
    """
    m = re.search(r"\+cu(\d+)(\d)\b", version)
    return f"{int(m.group(1))}.{m.group(2)}" if m else None


def installed_torch_cuda_version() -> str | None:
    """``torch.version.cuda`` of the installed torch, read WITHOUT importing torch (seconds).

    Reads the package metadata: the version's ``+cuXYZ`` tag, else ``torch/version.py`` (PyPI's
    Linux wheels carry no tag but are CUDA builds). ``None`` for a CPU/ROCm build or no torch.
    """
    try:
        dist = importlib.metadata.distribution("torch")
    except importlib.metadata.PackageNotFoundError:
        return None
    version = dist.version or ""
    tagged = torch_cuda_from_version(version)
    if tagged is not None or "+" in version:
        return tagged
    try:
        text = Path(str(dist.locate_file("torch/version.py"))).read_text(encoding="utf-8")
    except (OSError, ValueError):
        return None
    m = re.search(r"^cuda\s*(?::[^=]*)?=\s*['\"]([0-9][^'\"]*)['\"]", text, re.MULTILINE)
    return m.group(1) if m else None


def _busy(sample: GpuSample) -> bool:
    return sample.util_gpu_pct is not None and sample.util_gpu_pct >= BUSY_UTIL_PCT


def _version_tuple(text: str | None) -> tuple[int, ...] | None:
    if not text:
        return None
    parts = re.findall(r"\d+", text)
    return tuple(int(p) for p in parts[:2]) if parts else None


def diagnose(
    devices: Sequence[DeviceInfo],
    samples: Sequence[Snapshot] | Snapshot,
    *,
    torch_cuda_version: str | None = None,
    system: SystemInfo | None = None,
) -> list[Finding]:
    """Health findings for ``devices`` over the window ``samples``, most urgent first.

    ``torch_cuda_version`` is ``torch.version.cuda`` of the installed torch (``None`` for a CPU
    build or no torch); it is compared with ``system.cuda_driver_version``, the newest CUDA the
    driver supports (``nvidia-smi`` banner, "CUDA Version").
    """
    series, jobs, times = _series(devices, samples)
    return diagnose_series(
        devices, series, jobs, torch_cuda_version=torch_cuda_version, system=system, times=times
    )


def _series(
    devices: Sequence[DeviceInfo], samples: Sequence[Snapshot] | Snapshot
) -> tuple[dict[int, list[GpuSample]], dict[int, list[bool]], dict[int, list[float]]]:
    """Per GPU: its samples, whether a process held it at each, and when (oldest first)."""
    snapshots: tuple[Snapshot, ...] = (
        (samples,) if isinstance(samples, Snapshot) else tuple(samples)
    )
    series: dict[int, list[GpuSample]] = {}
    jobs: dict[int, list[bool]] = {}
    times: dict[int, list[float]] = {}
    for device in devices:
        series[device.index] = []
        jobs[device.index] = []
        times[device.index] = []
        for snap in snapshots:
            for g in snap.gpus:
                if g.index == device.index:
                    series[device.index].append(g)
                    jobs[device.index].append(
                        any(p.gpu_index == device.index for p in snap.processes)
                    )
                    times[device.index].append(snap.time_s)
    return series, jobs, times


#: Finding codes of the checks that judge a GPU only under load, and of the ECC check.
_LOAD_CODES = ("pcie_link_degraded", "thermal_throttling", "power_throttling", "hw_slowdown")
_ECC_CODES = (
    "ecc_uncorrectable",
    "ecc_corrected",
    "row_remap_failure",
    "memory_repair_pending",
    "memory_retired",
)


def checks_not_run(
    devices: Sequence[DeviceInfo],
    samples: Sequence[Snapshot] | Snapshot,
    *,
    torch_cuda_version: str | None = None,
    system: SystemInfo | None = None,
) -> dict[str, str]:
    """The checks of :func:`diagnose` (same arguments) that had nothing to judge in this window,
    as ``{finding code: why}``: a check that did not run found nothing, but it did not pass
    either. A check runs when at least one GPU gave it something to judge."""
    series, jobs, _ = _series(devices, samples)
    live = {i: [s for s in ss if not s.lost] for i, ss in series.items()}
    out: dict[str, str] = {}
    if _version_tuple(torch_cuda_version) is None:
        out["driver_too_old"] = tr("no CUDA build of torch is installed: nothing to compare")
    elif system is None or _version_tuple(system.cuda_driver_version) is None:
        out["driver_too_old"] = tr("the CUDA version the driver supports is not known")
    if not any(_busy(s) for ss in live.values() for s in ss):
        why = tr("no GPU was under load (utilization ≥ {p})", p=fmt_pct(BUSY_UTIL_PCT))
        out.update(dict.fromkeys(_LOAD_CODES, why))
    if not any(
        d.power_default_limit_w is not None
        and any(s.power_limit_w is not None for s in live[d.index])
        for d in devices
    ):
        out["power_limit_below_default"] = tr("no power limit and default limit were read")
    if not any(s.ecc is not None for ss in live.values() for s in ss):
        out.update(
            dict.fromkeys(_ECC_CODES, tr("no ECC counters were read (ECC off or not supported)"))
        )
    if not any(_job_seen(d, series[d.index], jobs[d.index]) for d in devices):
        out["low_utilization"] = tr("no job ran on a GPU in this window")
    return out


def _job_seen(device: DeviceInfo, series: list[GpuSample], jobs: list[bool]) -> bool:
    """Whether :func:`_check_utilization` has a sample of ``device`` to judge."""
    if device.mig_mode_current:
        return False
    running = _running(series, jobs)
    return any(
        r and not s.lost and s.util_gpu_pct is not None
        for s, r in zip(series, running, strict=True)
    )


def diagnose_series(
    devices: Sequence[DeviceInfo],
    series: Mapping[int, Sequence[GpuSample]],
    jobs: Mapping[int, Sequence[bool]],
    *,
    torch_cuda_version: str | None = None,
    system: SystemInfo | None = None,
    times: Mapping[int, Sequence[float]] | None = None,
) -> list[Finding]:
    """:func:`diagnose` over per-GPU sample series (oldest first): ``jobs[i][k]`` says whether a
    process ran on GPU ``i`` at its ``k``-th sample, ``times[i][k]`` when (Unix seconds; the
    sustained-pattern checks assume 1 s apart without it). History-backed reports call this."""
    findings: list[Finding] = []
    if system is not None and devices:
        findings.extend(_check_cuda(system, torch_cuda_version))
    for device in devices:
        at = times.get(device.index) if times is not None else None
        findings.extend(
            _check_device(
                device,
                list(series.get(device.index, ())),
                list(jobs.get(device.index, ())),
                None if at is None else list(at),
            )
        )
    findings.sort(
        key=lambda f: (f.severity.rank, -1 if f.gpu_index is None else f.gpu_index, f.code)
    )
    return findings


def _check_device(
    device: DeviceInfo, series: list[GpuSample], jobs: list[bool], times: list[float] | None
) -> Iterable[Finding]:
    i = device.index
    gpu = tr("GPU {i}", i=i)
    if any(s.lost for s in series):
        yield Finding(
            "gpu_lost",
            Severity.CRITICAL,
            tr("{gpu} fell off the bus", gpu=gpu),
            tr(
                "The driver reports {gpu} ({name}) as lost; its readings stopped.",
                gpu=gpu,
                name=device.name,
            ),
            tr(
                "Check the kernel log (dmesg) for Xid 79, then reset the GPU or reboot; "
                "repeated losses point at power, cooling or the riser."
            ),
            i,
        )
    live = [s for s in series if not s.lost]
    yield from _check_pcie(device, live, gpu)
    yield from _check_power_limit(device, live, gpu)
    yield from _check_throttle(device, live, gpu)
    ecc = next((s.ecc for s in reversed(live) if s.ecc is not None), None)
    if ecc is not None:
        yield from _check_ecc(ecc, i, gpu)
    yield from _check_utilization(device, series, jobs, gpu)
    yield from check_prof(i, series, _running(series, jobs), times, gpu)
    if device.persistence_mode is False:
        yield Finding(
            "persistence_off",
            Severity.INFO,
            tr("{gpu}: persistence mode is off", gpu=gpu),
            tr(
                "The driver unloads its state when no client holds the GPU, so every new CUDA "
                "process pays the initialisation again (often seconds) and clocks reset."
            ),
            tr(
                "Enable the persistence daemon (systemctl enable --now nvidia-persistenced) or run "
                "`sudo nvidia-smi -pm 1`."
            ),
            i,
        )
    if device.mig_mode_current:
        yield Finding(
            "mig_enabled",
            Severity.INFO,
            tr("{gpu}: MIG is enabled ({n} instances)", gpu=gpu, n=len(device.mig_devices)),
            tr(
                "The GPU is split into MIG instances: each process sees only its slice, whole-GPU "
                "utilization is not reported, and benchmarks measure one instance."
            ),
            tr(
                "Disable MIG for whole-GPU work: `sudo nvidia-smi -i {i} -mig 0` and reset the GPU.",
                i=i,
            ),
            i,
        )
    elif device.mig_mode_pending and not device.mig_mode_current:
        yield Finding(
            "mig_pending",
            Severity.INFO,
            tr("{gpu}: MIG is enabled but not active yet", gpu=gpu),
            tr("The MIG mode change waits for a GPU reset."),
            tr("Reset the GPU (`sudo nvidia-smi -i {i} -r`) or reboot.", i=i),
            i,
        )


def _check_pcie(device: DeviceInfo, live: list[GpuSample], gpu: str) -> Iterable[Finding]:
    busy = [s for s in live if _busy(s)]
    if not busy:
        return  # idle links downshift on purpose; nothing to judge
    gens = [s.pcie_gen for s in busy if s.pcie_gen is not None]
    widths = [s.pcie_width for s in busy if s.pcie_width is not None]
    gen, width = (max(gens) if gens else None), (max(widths) if widths else None)
    low_gen = gen is not None and device.pcie_gen_max is not None and gen < device.pcie_gen_max
    low_width = (
        width is not None and device.pcie_width_max is not None and width < device.pcie_width_max
    )
    if not (low_gen or low_width):
        return
    yield Finding(
        "pcie_link_degraded",
        Severity.WARNING,
        tr("{gpu}: PCIe link below its maximum under load", gpu=gpu),
        tr(
            "Under load the link ran at Gen{g} x{w}; the GPU supports Gen{mg} x{mw}. Host-device "
            "copies (data loading, checkpoints) get proportionally slower.",
            g=gen if gen is not None else "?",
            w=width if width is not None else "?",
            mg=device.pcie_gen_max if device.pcie_gen_max is not None else "?",
            mw=device.pcie_width_max if device.pcie_width_max is not None else "?",
        ),
        tr(
            "Check that the card sits in a full x16 slot wired to the CPU, the riser and BIOS PCIe "
            "settings; a slot of an older generation caps the link."
        ),
        device.index,
    )


def _check_power_limit(device: DeviceInfo, live: list[GpuSample], gpu: str) -> Iterable[Finding]:
    default = device.power_default_limit_w
    limit = next((s.power_limit_w for s in reversed(live) if s.power_limit_w is not None), None)
    if default is None or limit is None:
        return
    if limit >= default - max(1.0, 0.01 * default):
        return
    yield Finding(
        "power_limit_below_default",
        Severity.WARNING,
        tr("{gpu}: power limit is below the default", gpu=gpu),
        tr(
            "The power limit is {l} but the default is {d} ({p} of it); under heavy load the "
            "clocks will be capped earlier.",
            l=fmt_num(limit, "W"),
            d=fmt_num(default, "W"),
            p=fmt_pct(100.0 * limit / default),
        ),
        tr(
            "If nobody capped it on purpose, restore it with `sudo amd-smi set -g {i} --power-cap {d:.0f}`.",
            i=device.index,
            d=default,
        )
        if device.vendor == "amd"
        else tr(
            "If nobody capped it on purpose, restore it with `sudo nvidia-smi -i {i} -pl {d:.0f}`.",
            i=device.index,
            d=default,
        ),
        device.index,
    )


_THROTTLE: dict[ClockEventReason, tuple[str, Severity]] = {
    # the slowdowns a finding reports -> (code, severity); the rest are benign or unexplained
    ClockEventReason.HW_THERMAL_SLOWDOWN: ("thermal_throttling", Severity.CRITICAL),
    ClockEventReason.SW_THERMAL_SLOWDOWN: ("thermal_throttling", Severity.WARNING),
    ClockEventReason.HW_POWER_BRAKE_SLOWDOWN: ("power_throttling", Severity.CRITICAL),
    ClockEventReason.HW_SLOWDOWN: ("hw_slowdown", Severity.CRITICAL),
    ClockEventReason.SW_POWER_CAP: ("power_throttling", Severity.WARNING),
}


def _check_throttle(device: DeviceInfo, live: list[GpuSample], gpu: str) -> Iterable[Finding]:
    busy = [s for s in live if _busy(s)]
    if not busy:
        return
    counts: dict[ClockEventReason, int] = {}
    for s in busy:
        events = s.clock_events
        for reason in _THROTTLE:
            if events & reason:
                counts[reason] = counts.get(reason, 0) + 1
    by_code: dict[str, list[tuple[ClockEventReason, float]]] = {}
    for reason, n in counts.items():
        share = n / len(busy)
        if share >= THROTTLE_MIN_SHARE:
            by_code.setdefault(_THROTTLE[reason][0], []).append((reason, share))
    for code, hits in sorted(by_code.items()):
        severity = min((_THROTTLE[r][1] for r, _ in hits), key=lambda s: s.rank)
        what = ", ".join(
            tr("{w} in {p} of busy samples", w=r.label, p=fmt_pct(100.0 * share))
            for r, share in sorted(hits, key=lambda hit: hit[0].severity)
        )
        if code == "thermal_throttling":
            title = tr("{gpu}: thermal throttling under load", gpu=gpu)
            hint = tr(
                "Improve cooling: airflow, fan curve, dust, ambient temperature; check the "
                "fans and that the GPU is not starved by a neighbour's exhaust."
            )
        elif code == "power_throttling":
            title = tr("{gpu}: clocks limited by power under load", gpu=gpu)
            hint = tr(
                "A software power cap at full load is normal for compute-bound work; if the "
                "limit is below default raise it, and check the PSU and power cables for a "
                "power brake."
            )
        else:
            title = tr("{gpu}: hardware slowdown under load", gpu=gpu)
            hint = tr(
                "Hardware slowdown means overheating or a power-supply fault: check the "
                "temperatures, PSU capacity and the power connectors."
            )
        temps = [s.temp_gpu_c for s in busy if s.temp_gpu_c is not None]
        detail = tr("Clocks were reduced: {what}.", what=what)
        if temps:
            detail += " " + tr("Peak GPU temperature {t}.", t=fmt_num(max(temps), "°C"))
        yield Finding(code, severity, title, detail, hint, device.index)


def _check_ecc(ecc: EccCounts, i: int, gpu: str) -> Iterable[Finding]:
    uncorrected = max(ecc.volatile_uncorrected or 0, ecc.aggregate_uncorrected or 0)
    corrected = max(ecc.volatile_corrected or 0, ecc.aggregate_corrected or 0)
    if uncorrected:
        yield Finding(
            "ecc_uncorrectable",
            Severity.CRITICAL,
            tr("{gpu}: uncorrectable ECC errors", gpu=gpu),
            tr(
                "{n} uncorrectable memory errors were counted; a job that touched the memory may "
                "have crashed or produced wrong results.",
                n=uncorrected,
            ),
            tr(
                "Drain the GPU, reset it, and run a diagnostic (dcgmi diag -r 3); if errors return, "
                "ask for an RMA."
            ),
            i,
        )
    elif corrected:
        yield Finding(
            "ecc_corrected",
            Severity.INFO,
            tr("{gpu}: corrected ECC errors", gpu=gpu),
            tr("{n} single-bit errors were corrected by ECC.", n=corrected),
            tr("Nothing to do unless the count keeps growing; then watch for row remapping."),
            i,
        )
    if ecc.remapped_rows_failure:
        yield Finding(
            "row_remap_failure",
            Severity.CRITICAL,
            tr("{gpu}: memory row remapping failed", gpu=gpu),
            tr("The GPU ran out of spare rows to replace failing memory."),
            tr("Take the GPU out of service and ask for an RMA."),
            i,
        )
    pending = bool(ecc.retired_pages_pending) or bool(ecc.remapped_rows_pending)
    if pending:
        yield Finding(
            "memory_repair_pending",
            Severity.WARNING,
            tr("{gpu}: memory repair waits for a reset", gpu=gpu),
            tr(
                "Pages or rows are marked for retirement/remapping, which takes effect at the next "
                "GPU reset."
            ),
            tr("Reset the GPU when it is idle (`sudo nvidia-smi -i {i} -r`) or reboot.", i=i),
            i,
        )
    retired = (ecc.retired_pages_sbe or 0) + (ecc.retired_pages_dbe or 0)
    remapped = (ecc.remapped_rows_correctable or 0) + (ecc.remapped_rows_uncorrectable or 0)
    if retired or remapped:
        yield Finding(
            "memory_retired",
            Severity.WARNING
            if (ecc.retired_pages_dbe or ecc.remapped_rows_uncorrectable)
            else Severity.INFO,
            tr("{gpu}: memory was retired or remapped", gpu=gpu),
            tr("{p} retired pages and {r} remapped rows so far.", p=retired, r=remapped),
            tr(
                "A few are normal over a GPU's life; a growing count means failing memory — "
                "plan a replacement."
            ),
            i,
        )


def _running(series: list[GpuSample], jobs: list[bool]) -> list[bool]:
    """Whether a job held the GPU at each sample: a process on it, or memory in use."""
    out = []
    for k, s in enumerate(series):
        used = s.mem_used_pct
        has_process = jobs[k] if k < len(jobs) else False
        out.append(has_process or (used is not None and used >= JOB_MEM_USED_PCT))
    return out


def _check_utilization(
    device: DeviceInfo, series: list[GpuSample], jobs: list[bool], gpu: str
) -> Iterable[Finding]:
    if device.mig_mode_current:
        return  # whole-GPU utilization is meaningless with MIG
    running: list[float] = []
    mem_used: list[int] = []
    for s, has_process in zip(series, jobs, strict=True):
        if s.lost or s.util_gpu_pct is None:
            continue
        used_pct = s.mem_used_pct
        if has_process or (used_pct is not None and used_pct >= JOB_MEM_USED_PCT):
            running.append(s.util_gpu_pct)
            if s.mem_used_bytes is not None:
                mem_used.append(s.mem_used_bytes)
    if not running:
        return
    mean = sum(running) / len(running)
    if mean >= LOW_UTIL_PCT:
        return
    yield Finding(
        "low_utilization",
        Severity.WARNING,
        tr("{gpu}: low utilization while a job runs", gpu=gpu),
        tr(
            "A job holds the GPU ({m} in use) but it was busy only {u} of the time on average "
            "over {n} samples; the GPU waits for data.",
            m=fmt_bytes(max(mem_used)) if mem_used else tr("memory"),
            u=fmt_pct(mean),
            n=len(running),
        ),
        tr(
            "Fix the input pipeline before buying a bigger GPU: more DataLoader workers, "
            "pin_memory, prefetching, faster storage, larger batches."
        ),
        device.index,
    )


def _check_cuda(system: SystemInfo, torch_cuda: str | None) -> Iterable[Finding]:
    driver = _version_tuple(system.cuda_driver_version)
    wanted = _version_tuple(torch_cuda)
    if driver is None or wanted is None or driver >= wanted:
        return
    major_gap = driver[0] < wanted[0]
    yield Finding(
        "driver_too_old",
        Severity.CRITICAL if major_gap else Severity.WARNING,
        tr("The NVIDIA driver is too old for the installed torch"),
        tr(
            "torch was built for CUDA {t}; the driver {d} supports CUDA up to {c}.",
            t=torch_cuda,
            d=system.driver_version or "?",
            c=system.cuda_driver_version,
        ),
        tr(
            "Update the NVIDIA driver, or install a torch build for CUDA {c} or older.",
            c=system.cuda_driver_version,
        )
        if major_gap
        else tr(
            "Minor-version compatibility usually lets it run, but kernels needing newer PTX "
            "fail; update the driver or install a torch build for CUDA {c}.",
            c=system.cuda_driver_version,
        ),
        None,
    )
