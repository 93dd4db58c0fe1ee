"""The acceptance check, start to end: inventory, health, performance, active diagnostics.

:class:`CheckRun` is a plain object (no Qt, no terminal): ``run(on_progress, on_item, cancel)``
returns a :class:`~gpuprof.check.model.CheckResult` even when cancelled (the items done so far,
the rest SKIP). The CLI drives it in a thread with a progress bar; the app can do the same in a
worker.
"""

from __future__ import annotations

import importlib.util
import socket
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gpuprof.bench.base import CancelToken, Result
from gpuprof.catalog.specs import GpuSpec
from gpuprof.check.inventory import Expectation, _spec_of, inventory_items
from gpuprof.check.items import ecc_by_gpu, health_items, skip_item
from gpuprof.check.model import CheckItem, CheckResult, Status, Thresholds
from gpuprof.check.perf import grade_runs, perf_cases, perf_runs
from gpuprof.check.plan import WINDOW_POLLS, CheckPlan, check_plan, memtest_bytes
from gpuprof.check.reference import Reference
from gpuprof.devices import CudaMatch, cuda_map
from gpuprof.errors import InputError
from gpuprof.i18n import N_, tr
from gpuprof.telemetry.model import DeviceInfo, Snapshot, SystemInfo, Topology

__all__ = ["GROUPS", "LEVELS", "CheckProgress", "CheckRun", "open_check", "parse_device"]

LEVELS: tuple[str, ...] = ("quick", "standard", "burn-in")
#: The scorecard's order (the health window after the measurements is reported second).
GROUPS: tuple[str, ...] = ("inventory", "health", "performance", "diagnostics")
#: Polls of the health window before and after the measurements, per level.


@dataclass(frozen=True, slots=True)
class CheckProgress:
    """Overall fraction (0..1) and what runs now."""

    fraction: float
    stage: str


def parse_device(text: str | None) -> str:
    """``cuda:N``, ``all`` or ``cpu`` (default ``all``); anything else is an InputError."""
    value = (text or "all").strip().lower()
    if value in ("all", "cpu"):
        return value
    if (
        value.startswith("cuda:")
        and value[5:].isascii()
        and value[5:].isdigit()
        and len(value) <= 8
    ):
        return f"cuda:{int(value[5:])}"
    raise InputError(tr("--device must be cuda:N, all or cpu, got {d!r}", d=text))


def _torch_cuda_count() -> int | None:
    """CUDA devices torch sees; None without torch."""
    try:
        import torch
    except ImportError:
        return None
    return int(torch.cuda.device_count()) if torch.cuda.is_available() else 0


class CheckRun:
    """One acceptance check. ``source`` is a TelemetrySource (NVML) or None (CPU only).

    ``bench_results`` replaces running the benchmarks (tests; a result file): a function of the
    device string returning its results, called once per run (:func:`perf_runs`: a CPU's
    cases are run three times).
    """

    def __init__(
        self,
        *,
        level: str = "quick",
        device: str = "all",
        expect: Expectation | None = None,
        thresholds: Thresholds | None = None,
        source: Any = None,
        golden: Mapping[tuple[str, str], Reference] | None = None,
        minutes: float = 10.0,
        wall_clock: Callable[[], float] = time.time,
        poll_interval_s: float = 0.2,
        bench_results: Callable[[str], Sequence[Result]] | None = None,
        xid_watch: Callable[[], Sequence[tuple[int, int]] | None] | None = None,
    ) -> None:
        if level not in LEVELS:
            raise InputError(tr("unknown level {s}; choose from {c}", s=level, c=", ".join(LEVELS)))
        self.level = level
        self.device = parse_device(device)
        self.expect = expect or Expectation(source=N_("each GPU's own spec row"))
        self.thresholds = thresholds or Thresholds()
        self.source = source
        self.golden = golden
        self.minutes = minutes
        self._wall = wall_clock
        self._interval_s = poll_interval_s
        self._bench_results = bench_results
        self._xid_watch = xid_watch
        self._cuda: dict[int, CudaMatch] | None = None

    # -- helpers -----------------------------------------------------------------------------

    def _static(self) -> tuple[tuple[DeviceInfo, ...], SystemInfo, Topology | None]:
        if self.source is None or self.device == "cpu":
            return (), SystemInfo(hostname=socket.gethostname()), None
        devices = tuple(self.source.devices())
        system = self.source.system_info()
        topology = self.source.topology() if len(devices) > 1 else None
        return devices, system, topology

    def _window(self, cancel: CancelToken) -> list[Snapshot]:
        snaps: list[Snapshot] = []
        if self.source is None or self.device == "cpu":
            return snaps
        for i in range(WINDOW_POLLS[self.level]):
            if cancel.cancelled:
                break
            snaps.append(self.source.poll())
            if i + 1 < WINDOW_POLLS[self.level]:
                cancel.wait(self._interval_s)
        return snaps

    def _selected(self, devices: Sequence[DeviceInfo]) -> list[DeviceInfo]:
        if self.device == "all":
            return list(devices)
        if self.device == "cpu":
            return []
        index = int(self.device.split(":")[1])
        chosen = [d for d in devices if d.index == index]
        if devices and not chosen:
            raise InputError(tr("{d}: no such GPU (found {n})", d=self.device, n=len(devices)))
        return chosen

    def _cuda_of(self, selected: Sequence[DeviceInfo]) -> list[tuple[DeviceInfo, CudaMatch]]:
        """Each selected NVML GPU with its torch device (:func:`gpuprof.devices.cuda_map`):
        ``--device cuda:N`` and the items name NVML GPUs, torch's ``cuda:N`` may be another."""
        if not selected:
            return []
        if self._cuda is None:
            self._cuda = cuda_map(selected)
        return [
            (d, self._cuda.get(d.index) or CudaMatch(d.index, None, reason=N_("not mapped")))
            for d in selected
        ]

    def _identity(self, devices: Sequence[DeviceInfo], system: SystemInfo) -> dict[str, Any]:
        return {
            "hostname": system.hostname or socket.gethostname(),
            "os": system.os,
            "driver_version": system.driver_version,
            "cuda_driver_version": system.cuda_driver_version,
            "cpu_model": system.cpu_model,
            "gpus": [
                {
                    "index": d.index,
                    "name": d.name,
                    "uuid": d.uuid,
                    "serial": d.serial,
                    "pci_bus_id": d.pci_bus_id,
                    "vbios_version": d.vbios_version,
                }
                for d in devices
            ],
        }

    def plan(self) -> CheckPlan:
        """The estimated wall time of this check (:mod:`gpuprof.check.plan`), per item."""
        devices, _system, _topology = self._static()
        selected = self._selected(devices)
        # The GPUs CUDA sees are measured; one it does not is only skipped.
        visible = [d for d, m in self._cuda_of(selected) if m.device is not None]
        selected = visible or selected
        first = selected[0] if selected else None
        return check_plan(
            self.level,
            len(selected),
            _spec_of(first) if first is not None else None,
            minutes=self.minutes,
            memory_bytes=first.memory_total_bytes if first is not None else None,
            gpu_model=first.name if first is not None else None,
        )

    # -- the run -----------------------------------------------------------------------------

    def run(
        self,
        on_progress: Callable[[CheckProgress], None] | None = None,
        on_item: Callable[[CheckItem], None] | None = None,
        cancel: CancelToken | None = None,
    ) -> CheckResult:
        cancel = cancel or CancelToken()
        started = self._wall()
        items: list[CheckItem] = []

        def report(fraction: float, stage: str) -> None:
            if on_progress:
                on_progress(CheckProgress(fraction, stage))

        def add(new: Sequence[CheckItem]) -> None:
            for item in new:
                items.append(item)
                if on_item:
                    on_item(item)

        report(0.0, N_("inventory"))
        devices, system, topology = self._static()
        selected = self._selected(devices)
        before = self._window(cancel)
        if self.device == "cpu" or self.source is None:
            add(
                [
                    skip_item(
                        "inventory",
                        "inventory",
                        N_("CPU only: no GPU inventory (--device cpu or no NVML)"),
                    )
                ]
            )
        else:
            samples = [g for s in before for g in s.gpus]
            inv = inventory_items(devices, system, topology, samples, self.expect, self.thresholds)
            picked = {d.index for d in selected}
            add([i for i in inv if i.gpu_index is None or i.gpu_index in picked])
        report(0.1, N_("performance"))
        if cancel.cancelled:
            add([skip_item("performance", "performance", N_("cancelled"))])
        else:
            add(self._performance(selected, cancel, report))
        report(0.7, N_("diagnostics"))
        if cancel.cancelled:
            add([skip_item("diagnostics", "diagnostics", N_("cancelled"))])
        else:
            add(self._diagnostics(selected, devices, cancel, report))
        report(0.95, N_("health"))
        if self.device == "cpu" or self.source is None:
            add([skip_item("health", "health", N_("CPU only: no GPU health counters"))])
        else:
            after = [] if cancel.cancelled else self._window(cancel)
            last = after[-1] if after else (before[-1] if before else None)
            xids = self._xid_watch() if self._xid_watch else None
            add(
                health_items(
                    selected,
                    system,
                    before + after,
                    ecc_by_gpu(before[0] if before else None),
                    ecc_by_gpu(last),
                    xids,
                )
            )
        report(1.0, N_("done"))
        items.sort(key=lambda i: GROUPS.index(i.group) if i.group in GROUPS else len(GROUPS))
        return CheckResult(
            level=self.level,
            device=self.device,
            started_s=started,
            ended_s=self._wall(),
            items=tuple(items),
            identity=self._identity(devices, system),
            expectation=self.expect.source,
            cancelled=cancel.cancelled,
            thresholds=self.thresholds,
        )

    def _performance(
        self,
        selected: Sequence[DeviceInfo],
        cancel: CancelToken,
        report: Callable[[float, str], None],
    ) -> list[CheckItem]:
        hidden: list[CheckItem] = []
        if self.device == "cpu" or not selected:
            targets: list[tuple[str, DeviceInfo | None]] = [("cpu", None)]
        else:
            mapped = self._cuda_of(selected)
            targets = [(m.device, d) for d, m in mapped if m.device is not None]
            hidden = [
                _hidden_item(f"performance.gpu{d.index}", "performance", d, m)
                for d, m in mapped
                if m.device is None
            ]
            if not targets:
                return hidden
        gpus_torch_sees = None if self._bench_results is not None else _torch_cuda_count()
        if self._bench_results is None and gpus_torch_sees is None:
            return [
                skip_item(
                    "performance",
                    "performance",
                    N_("benchmarks need PyTorch, which is not installed here"),
                )
            ]
        if gpus_torch_sees == 0 and any(dev != "cpu" for dev, _info in targets):
            # A CPU-only torch beside visible GPUs: torch.cuda would raise on the first case.
            return [
                skip_item(
                    "performance",
                    "performance",
                    N_(
                        "this PyTorch sees no GPU (a CPU-only build): install a CUDA build for "
                        "NVIDIA or a ROCm build (torch.version.hip) for AMD GPUs"
                    ),
                )
            ]
        out: list[CheckItem] = []
        for n, (dev, info) in enumerate(targets):
            if cancel.cancelled:
                out.append(skip_item(f"performance.{dev}", "performance", N_("cancelled")))
                continue
            report(0.1 + 0.6 * n / len(targets), N_("performance") + " " + dev)
            spec: GpuSpec | None = _spec_of(info) if info is not None else None
            runs = self._measure(dev, len(targets) if n == 0 else 1, cancel)
            pcie = (info.pcie_gen_max, info.pcie_width_max) if info is not None else (None, None)
            graded = grade_runs(
                runs,
                device=dev if dev == "cpu" else "cuda",
                spec=spec,
                thresholds=self.thresholds,
                golden=self.golden,
                pcie=pcie,
            )
            for item in graded:
                out.append(item if info is None else _with_gpu(item, info.index))
        return out + hidden

    def _measure(self, device: str, gpu_count: int, cancel: CancelToken) -> list[Sequence[Result]]:
        """The results of each run of the cases on ``device`` (a cancel ends the runs)."""
        runs: list[Sequence[Result]] = []
        for _ in range(perf_runs(device)):
            if runs and cancel.cancelled:
                break
            if self._bench_results is not None:
                runs.append(self._bench_results(device))
                continue
            from gpuprof.bench.runner import Runner

            runner = Runner(
                device=device,
                cases=perf_cases(device, self.level, gpu_count),
                telemetry_interval_s=None,
                capture_env=False,
            )
            runs.append(runner.run(cancel=cancel).results)
        return runs

    def _xids_from_now(self) -> Callable[[], Sequence[tuple[int, int]]] | None:
        """The XIDs the burn-in should judge: those seen after it starts (the check's watch)."""
        if self._xid_watch is None:
            return None
        return _xids_after(self._xid_watch, len(self._xid_watch() or ()))

    def _diagnostics(
        self,
        selected: Sequence[DeviceInfo],
        devices: Sequence[DeviceInfo],
        cancel: CancelToken,
        report: Callable[[float, str], None],
    ) -> list[CheckItem]:
        out: list[CheckItem] = []
        hidden: list[tuple[DeviceInfo, CudaMatch]] = []
        if self.device == "cpu" or not selected:
            targets = ["cpu"]
            nvml_of: dict[str, int | None] = {"cpu": None}
        else:
            mapped = self._cuda_of(selected)
            shown = [(d, m) for d, m in mapped if m.device is not None]
            hidden = [(d, m) for d, m in mapped if m.device is None]
            targets = [str(m.device) for _d, m in shown]
            nvml_of = {str(m.device): d.index for d, m in shown}
        out.extend(_hidden_item("diag.memtest", "diagnostics", d, m) for d, m in hidden)
        if self.level == "burn-in":
            out.extend(_hidden_item("diag.burnin", "diagnostics", d, m) for d, m in hidden)
        if not targets:
            return out
        have_memtest = importlib.util.find_spec("gpuprof.check.memtest") is not None
        gpus_torch_sees = None if self._bench_results is not None else _torch_cuda_count()
        no_torch = self._bench_results is None and gpus_torch_sees is None
        for dev in targets:
            cpu_only_torch = gpus_torch_sees == 0 and dev != "cpu"
            if not have_memtest or no_torch or cpu_only_torch or self._bench_results is not None:
                why = (
                    N_("the memory test needs PyTorch")
                    if no_torch
                    else N_("this PyTorch sees no GPU (a CPU-only build)")
                    if cpu_only_torch
                    else N_("memory test not available")
                )
                out.append(_on_gpu(skip_item("diag.memtest", "diagnostics", why), nvml_of[dev]))
                continue
            from gpuprof.check.memtest import run_memtest

            report(0.75, N_("memory test") + " " + dev)
            # The size the plan assumed (gpuprof.check.plan): capped at quick, else 90% free.
            size = memtest_bytes(self.level, dev)
            chunk = min(size or 0, 8 << 20) if dev == "cpu" else 256 << 20
            res = run_memtest(
                dev, size_bytes=size, chunk_bytes=chunk, cancel=lambda: cancel.cancelled
            )
            out.append(_on_gpu(_memtest_item(res, dev), nvml_of[dev]))
        if self.level != "burn-in":
            out.append(
                skip_item("diag.burnin", "diagnostics", N_("burn-in runs with --level burn-in"))
            )
            return out
        if importlib.util.find_spec("gpuprof.check.burnin") is None or no_torch:
            out.append(skip_item("diag.burnin", "diagnostics", N_("burn-in not available here")))
            return out
        if cancel.cancelled:
            out.append(skip_item("diag.burnin", "diagnostics", N_("cancelled")))
            return out
        from gpuprof.check.burnin import run_burnin

        # Every selected GPU at once (a node under full load), one shared telemetry watch.
        report(0.8, N_("burn-in") + " " + ", ".join(targets))
        cpu = targets == ["cpu"]
        run = run_burnin(
            targets,
            seconds=self.minutes * 60.0,
            source=None if cpu else self.source,
            devices=devices,
            xids=self._xids_from_now(),
            cancel=lambda: cancel.cancelled,
            gpu_indices=None if cpu else [i for t in targets if (i := nvml_of[t]) is not None],
            nvml_indices=[nvml_of[t] for t in targets],
            progress=lambda f, stage: report(0.8 + 0.15 * f, stage),
        )
        for load in run.loads:
            graded = [i.to_check_item() for i in run.items if i.gpu_index == load.gpu_index]
            out.extend(graded)
            out.append(_burnin_item(load, run.cancelled, graded))
        return out


_WORST = (Status.FAIL, Status.WARN)


def open_check(*, device: str, **kw: Any) -> tuple[CheckRun, Callable[[], None]]:
    """A :class:`CheckRun` as ``gpuprof check`` and the Check tab build it, and the function that
    closes what it opened: NVML (and its XID watch) unless ``device`` is cpu; no GPU with
    ``all`` falls back to the CPU, with ``cuda:N`` it is an :class:`InputError`. ``kw`` goes to
    :class:`CheckRun`."""
    source = None
    if device != "cpu":
        from gpuprof.bench.runner import open_run_telemetry

        source = open_run_telemetry(device)
    if source is None and device.startswith("cuda"):
        raise InputError(tr("{d}: no NVIDIA GPU or driver here; use --device cpu", d=device))
    if source is None:
        device = "cpu"
    watch = None
    if source is not None:
        from gpuprof.telemetry.nvml.events import XidWatch

        watch = XidWatch()
        watch.start()  # when it cannot watch, events() is None and the XID item says so

    def close() -> None:
        if watch is not None:
            watch.close()
        if source is not None:
            source.close()

    xid_watch = watch.events if watch is not None else None
    return CheckRun(device=device, source=source, xid_watch=xid_watch, **kw), close


def _burnin_item(load: Any, cancelled: bool, graded: Sequence[CheckItem]) -> CheckItem:
    """One device's load: how much ran, and its verdict: FAIL when its loop failed, else the
    worst of its ``burnin.*`` items (judged from its own telemetry), SKIP when cancelled."""
    bad = [i for s in _WORST for i in graded if i.status is s]
    if load.error:
        status, reason = Status.FAIL, str(load.error)
    elif cancelled:
        status, reason = Status.SKIP, N_("cancelled")
    elif bad:
        status = bad[0].status
        reason = ", ".join(f"{i.item_id} {i.status.value}" for i in bad)
    else:
        status = Status.PASS
        reason = (
            N_("no telemetry on the CPU: clocks and throttling not watched")
            if load.gpu_index is None
            else ""
        )
    rate = f", {load.tflops:.3g} TFLOPS" if load.tflops else ""
    return CheckItem(
        item_id="diag.burnin",
        group="diagnostics",
        status=status,
        measured=f"{load.iterations} × {load.n}² {load.dtype} in {load.seconds:.0f} s{rate}",
        reason=reason,
        gpu_index=load.gpu_index,
    )


def _xids_after(
    watch: Callable[[], Sequence[tuple[int, int]] | None], skip: int
) -> Callable[[], Sequence[tuple[int, int]]]:
    return lambda: list(watch() or ())[skip:]


def _hidden_item(item_id: str, group: str, info: DeviceInfo, match: CudaMatch) -> CheckItem:
    """SKIP for a GPU NVML sees and CUDA does not (never run on another GPU in its place)."""
    return _with_gpu(skip_item(item_id, group, match.reason), info.index)


def _on_gpu(item: CheckItem, index: int | None) -> CheckItem:
    return item if index is None else _with_gpu(item, index)


def _with_gpu(item: CheckItem, index: int) -> CheckItem:
    from dataclasses import replace

    return replace(item, gpu_index=index)


def _memtest_item(res: Any, device: str) -> CheckItem:
    if res.cancelled:
        return CheckItem(
            item_id="diag.memtest", group="diagnostics", status=Status.SKIP, reason=N_("cancelled")
        )
    shown = ", ".join(f"0x{a:x}" for a in res.bad_addresses[:8])
    return CheckItem(
        item_id="diag.memtest",
        group="diagnostics",
        status=Status.PASS if res.ok else Status.FAIL,
        measured=(
            N_("{n} bad words in {m} MiB: {a}") if shown else N_("{n} bad words in {m} MiB")
        ).format(n=res.errors, m=res.bytes_tested >> 20, a=shown),
        expected="0",
        unit="",
        reason=f"{device}: " + ", ".join(res.patterns),
        hint="" if res.ok else N_("memory errors: drain the GPU and ask for a replacement"),
    )
