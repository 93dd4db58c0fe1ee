"""NVML backend: the only module of gpuprof that talks to pynvml.

Style after nvitop's ``libnvml``: pynvml is imported lazily, ``nvmlInit`` runs once under a
lock on first use and ``nvmlShutdown`` at close or exit; every call goes through one query
helper (:class:`_Query`) that turns an ``NVMLError`` into ``None`` and records the failure once
per (device, field, error kind) in a :class:`Diagnostics` registry. A poll never raises because
one field failed. What is read lives beside this module, free of pynvml: static facts in
:mod:`.static`, per-poll samples in :mod:`.poll`, the profiling activity of NVML GPM
(SM, tensor-core, DRAM) in :mod:`.gpm`, NVML's numbers in :mod:`.values`. GPM's
sample buffers are freed when a GPU is lost and before ``nvmlShutdown``.

Shutdown never hangs, also after nvitop: closing sets a flag that makes every further query
fail fast, waits at most ``timeout_s`` (1 s) for the NVML work in flight (the process-wide
:class:`~gpuprof.telemetry.nvml.query.QueryGate`), and when a call has not returned by then,
skips ``nvmlShutdown`` with a warning naming the call: a driver in trouble would keep
``nvmlShutdown`` waiting too. The same at interpreter exit.

Tests swap the driver: assign a fake module to :data:`pynvml` (or pass ``nvml=`` to
:class:`NvmlSource`) and the production code runs against it unchanged.

Units: NVML reports power in mW, energy in mJ, PCIe throughput in KB/s (KiB, as nvitop reads
it) and NVLink data counters in KiB; everything leaves this module in W, J and bytes.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import logging
import math
import time
import weakref
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from gpuprof.telemetry.diagnostics import Diagnostics, Failure, failed_status
from gpuprof.telemetry.model import (
    GpuSample,
    ProcessSample,
    SourceKind,
    SourceState,
    SourceStatus,
    SystemInfo,
    Topology,
)
from gpuprof.telemetry.nvml.gpm import (
    GPM_INTERVAL_S,
    GPM_MIN_INTERVAL_S,
    GpmState,
    release_gpm,
)
from gpuprof.telemetry.nvml.poll import process_samples, read_processes, sample_gpu
from gpuprof.telemetry.nvml.query import (
    Closed,
    DeviceState,
    GpuLost,
    MissingFunction,
    QueryGate,
    error_kind,
)
from gpuprof.telemetry.nvml.static import build_topology, open_device
from gpuprof.telemetry.nvml.values import (
    CLOCK_EVENT_REASONS,
    ERROR_DRIVER_NOT_LOADED,
    ERROR_FUNCTION_NOT_FOUND,
    ERROR_GPU_IS_LOST,
    ERROR_LIB_RM_VERSION_MISMATCH,
    ERROR_LIBRARY_NOT_FOUND,
    ERROR_NO_PERMISSION,
    PERMANENT_ERRORS,
    decode_clock_event_reasons,
    text,
    topology_label,
)
from gpuprof.telemetry.polling import PolledSource, PollOptions
from gpuprof.telemetry.procstat import PROCESS_HOST_INTERVAL_S

if TYPE_CHECKING:
    from typing import Unpack

__all__ = [
    "CLOCK_EVENT_REASONS",
    "CLOSE_TIMEOUT_S",
    "Diagnostics",
    "Failure",
    "NvmlSource",
    "decode_clock_event_reasons",
    "load_pynvml",
    "pynvml",
    "topology_label",
]

log = logging.getLogger("gpuprof.telemetry.nvml")

#: The pynvml module in use; ``None`` until first needed. Tests assign a fake here.
pynvml: Any = None

#: How long a close waits for NVML work in flight before it skips ``nvmlShutdown``.
CLOSE_TIMEOUT_S = 1.0


def load_pynvml() -> Any:
    """The pynvml module (``nvidia-ml-py``), imported on first use. Raises ImportError."""
    global pynvml
    if pynvml is None:
        import pynvml as module

        pynvml = module
    return pynvml


class _Query:
    """The one query helper: every NVML call of gpuprof goes through it.

    Implements :class:`~gpuprof.telemetry.nvml.query.Query` for the readers. Once
    ``closing`` is set, :meth:`fn` and :meth:`get` raise ``Closed`` instead of calling.
    """

    __slots__ = ("_fns", "_gpm_requests", "_nv", "call", "closing", "diagnostics", "error_cls")

    def __init__(self, nv: Any, diagnostics: Diagnostics) -> None:
        self._nv = nv
        self._fns: dict[str, Callable[..., Any]] = {}
        # One c_nvmlGpmMetricsGet_t per list of metric ids, its field setter, and the views of
        # its answers (returns, values).
        self._gpm_requests: dict[tuple[int, ...], tuple[Any, Any, np.ndarray, np.ndarray]] = {}
        self.diagnostics = diagnostics
        self.error_cls: type[BaseException] = nv.NVMLError
        self.closing = False
        self.call: str | None = None  # the NVML function called last: named if it never returns

    def fn(self, name: str) -> Callable[..., Any]:
        if self.closing:
            raise Closed(name)
        fn = self._fns.get(name)
        if fn is None:
            fn = getattr(self._nv, name, None)
            if fn is None:

                def missing(*_args: Any, _name: str = name) -> Any:
                    raise MissingFunction(_name)

                fn = missing
            self._fns[name] = fn
        self.call = name
        return fn

    def get(self, dev: DeviceState, field: str, fn_name: str, *args: Any) -> Any:
        if field in dev.skip:
            return None
        if self.closing:
            raise Closed(fn_name)
        fn = self._fns.get(fn_name) or self.fn(fn_name)
        self.call = fn_name
        try:
            return fn(dev.handle, *args)
        except Exception as exc:  # one field never breaks a poll
            self.failed(dev, field, exc)
            return None

    def system(self, field: str, fn_name: str, *args: Any) -> Any:
        try:
            return self.fn(fn_name)(*args)
        except Exception as exc:
            self.failed(None, field, exc)
            return None

    def gpm_metrics(
        self, sample1: Any, sample2: Any, metric_ids: Sequence[int]
    ) -> tuple[list[int], list[float]]:
        ids = tuple(metric_ids)  # the same object when given a tuple
        entry = self._gpm_requests.get(ids)
        if entry is None:
            entry = self._gpm_requests[ids] = self._gpm_request(ids)
        request, set_field, rets, values = entry
        set_field(request, "sample1", sample1)
        set_field(request, "sample2", sample2)
        self.fn("nvmlGpmMetricsGet")(request)
        return rets.tolist(), values.tolist()

    def _gpm_request(self, ids: tuple[int, ...]) -> tuple[Any, Any, np.ndarray, np.ndarray]:
        """A ``c_nvmlGpmMetricsGet_t`` asking for ``ids``, made once and reused, and a numpy
        view of its answers (``nvmlReturn``, ``value`` per metric): pynvml's structs read
        each field through a Python ``__getattribute__``, too slow for every poll."""
        struct = getattr(self._nv, "c_nvmlGpmMetricsGet_t", None)
        if struct is None:  # nvidia-ml-py older than GPM
            raise MissingFunction("nvmlGpmMetricsGet")
        request = struct()
        request.version = getattr(self._nv, "NVML_GPM_METRICS_GET_VERSION", 1)
        request.numMetrics = len(ids)
        metrics = request.metrics
        for i, metric_id in enumerate(ids):
            metrics[i].metricId = metric_id
        metric = type(metrics[0])
        answer = np.dtype(
            {
                "names": ["ret", "value"],
                "formats": ["=u4", "=f8"],
                "offsets": [metric.nvmlReturn.offset, metric.value.offset],
                "itemsize": ctypes.sizeof(metric),
            }
        )
        memory = memoryview((ctypes.c_char * ctypes.sizeof(request)).from_buffer(request)).cast("B")
        answers = np.frombuffer(memory, answer, count=len(ids), offset=struct.metrics.offset)
        # ctypes' own setter: pynvml's Python-level __setattr__ only re-encodes str values.
        set_field = (
            ctypes.Structure.__setattr__ if isinstance(request, ctypes.Structure) else setattr
        )
        return request, set_field, answers["ret"], answers["value"]

    def failed(self, dev: DeviceState | None, field: str, exc: BaseException) -> int | None:
        code = getattr(exc, "value", None) if isinstance(exc, self.error_cls) else None
        if isinstance(exc, MissingFunction):
            code = ERROR_FUNCTION_NOT_FOUND
        index = None if dev is None else dev.index
        self.diagnostics.record(index, field, error_kind(exc), str(exc))
        if code == ERROR_GPU_IS_LOST and dev is not None:
            raise GpuLost(dev.index) from exc
        if dev is not None and code in PERMANENT_ERRORS:
            dev.skip.add(field)
        return code if isinstance(code, int) else None


# --- shutdown --------------------------------------------------------------------------------

#: Every span of NVML work in flight in this process; what a close waits for.
_GATE = QueryGate()
_LIVE_SOURCES: weakref.WeakSet[NvmlSource] = weakref.WeakSet()
_exiting = False  # set at interpreter exit: from then on no source calls the driver again


@atexit.register
def _shutdown_all(timeout_s: float = CLOSE_TIMEOUT_S) -> bool:
    """At exit: close every live source, waiting at most ``timeout_s`` in all."""
    global _exiting
    _exiting = True
    return _close_sources(list(_LIVE_SOURCES), timeout_s)


def _close_sources(sources: list[NvmlSource], timeout_s: float) -> bool:
    """Stop new queries, wait a bounded time for those in flight, then ``nvmlShutdown``.

    ``False`` when a call is still stuck: ``nvmlShutdown`` is skipped and logged.
    """
    deadline = time.monotonic() + timeout_s
    for source in sources:
        source._stop_queries()
    stuck = _GATE.wait(timeout_s)
    if stuck:
        log.warning(
            "NVML: %s did not return within %.1f s (a driver in trouble?); "
            "skipping nvmlShutdown so that closing does not hang",
            ", ".join(sorted(set(stuck))),
            timeout_s,
        )
        return False
    done = True
    for source in sources:
        done = source._shut_down(max(0.0, deadline - time.monotonic())) and done
    return done


_CLOSED = SourceStatus(
    state=SourceState.ERROR,
    message="NVML is closed (the source was shut down)",
    hint="Open the NVML source again to resume.",
)


#: The source's label when there is no NVIDIA library or driver: host telemetry only.
NO_DRIVER_LABEL = "host only — no NVIDIA driver"


class NvmlSource(PolledSource[_Query, DeviceState]):
    """Live telemetry from NVML: the :class:`~gpuprof.telemetry.source.TelemetrySource` for NVIDIA.

    ``nvml``: a pynvml-compatible module (default: :data:`pynvml`, imported lazily); the
    ``options`` (clock, host reader, slow interval, ...) are :class:`PolledSource`'s. Static
    facts are read once; ECC, retired pages, remapped rows, application clocks, the replay
    counter and NVLink link states every ``slow_interval_s``.
    The GPU processes' host CPU % and RSS are read every ``process_host_interval_s`` (5 s),
    or at every poll while someone watches them (:meth:`watch_process_host`); GPM's profiling
    activity is sampled every ``gpm_interval_s`` (5 s), as the mean over that span, or at
    every poll while watched (:meth:`watch_gpm`; :mod:`~gpuprof.telemetry.nvml.gpm`).
    The start, the locking, the polling and the bounded close are
    :class:`~gpuprof.telemetry.polling.PolledSource`'s; this class reads NVML.
    """

    polled_kind = SourceKind.NVML
    closed_status = _CLOSED

    @property
    def kind(self) -> SourceKind:
        """NVML, or NONE (host only) once NVML turned out to be missing: no library, no driver."""
        return SourceKind.NONE if self._no_driver() else SourceKind.NVML

    @property
    def label(self) -> str:
        """``NVML``; without the library or the driver it is not NVML that is shown."""
        return NO_DRIVER_LABEL if self._no_driver() else "NVML"

    def _no_driver(self) -> bool:
        # Known once NVML was tried (the first poll or static read); reading it starts nothing,
        # and it stays known after close() (a command prints its banner after closing).
        return self._missing_driver

    def __init__(
        self,
        *,
        nvml: Any = None,
        process_host_interval_s: float = PROCESS_HOST_INTERVAL_S,
        gpm_interval_s: float = GPM_INTERVAL_S,
        **options: Unpack[PollOptions],
    ) -> None:
        super().__init__(**options)
        self._nv_override = nvml
        self._nv: Any = None
        self._process_host_interval_s = process_host_interval_s
        self._proc_cache.usage.set_interval(process_host_interval_s)
        self._gpm_interval_s = gpm_interval_s
        self._gpm_watched = False
        self._missing_driver = False  # NVML's library or driver turned out to be missing

    # -- init / shutdown --------------------------------------------------------------------

    def _shut_out(self) -> bool:
        return self._closing or _exiting

    @contextlib.contextmanager
    def _span(self, q: _Query) -> Iterator[None]:
        """Every locked span of NVML work passes through the process-wide gate."""
        token = _GATE.enter(q)
        try:
            yield
        finally:
            _GATE.leave(token)

    def _fail(self, state: SourceState, detail: str = "") -> None:
        self._base_status = failed_status(state, detail)
        if state in (SourceState.LIBRARY_NOT_FOUND, SourceState.DRIVER_NOT_LOADED):
            self._missing_driver = True

    def _do_start(self) -> None:
        try:
            nv = self._nv_override if self._nv_override is not None else load_pynvml()
        except ImportError as exc:
            self._fail(SourceState.LIBRARY_NOT_FOUND, f"pynvml is not installed: {exc}")
            return
        self._nv = nv
        q = self._query = _Query(nv, self.diagnostics)
        if self._closing:  # close() began before the query existed to be told
            q.closing = True
        with self._span(q):
            self._init(q)

    def _init(self, q: _Query) -> None:
        try:
            q.fn("nvmlInit")()
        except Exception as exc:  # NVMLError_*; anything else is an ERROR state, not a crash
            code = getattr(exc, "value", None) if isinstance(exc, q.error_cls) else None
            self.diagnostics.record(None, "nvmlInit", error_kind(exc), str(exc))
            state = {
                ERROR_LIBRARY_NOT_FOUND: SourceState.LIBRARY_NOT_FOUND,
                ERROR_DRIVER_NOT_LOADED: SourceState.DRIVER_NOT_LOADED,
                ERROR_LIB_RM_VERSION_MISMATCH: SourceState.VERSION_MISMATCH,
                ERROR_NO_PERMISSION: SourceState.NO_PERMISSION,
            }.get(code if isinstance(code, int) else -1, SourceState.ERROR)
            self._fail(state, str(exc) if state is SourceState.ERROR else "")
            return
        self._initialized = True
        _LIVE_SOURCES.add(self)
        self._base_status = SourceStatus()
        count = q.system("device_count", "nvmlDeviceGetCount")
        if not count:
            self._fail(SourceState.NO_GPUS)
            return
        for index in range(int(count)):
            dev = open_device(q, index)
            dev.gpm = GpmState(interval_s=self._gpm_interval())
            self._devices.append(dev)

    def close(self, timeout_s: float = CLOSE_TIMEOUT_S) -> None:
        """``nvmlShutdown`` if this source initialised NVML; a later call starts over.

        From the call on, queries fail fast. It waits at most ``timeout_s`` for NVML work in
        flight; if a call is stuck in the driver, ``nvmlShutdown`` is skipped (logged) and
        the source stays closed until a later ``close()`` finds the call returned.
        """
        _close_sources([self], timeout_s)

    def _stop_queries(self) -> None:
        super()._stop_queries()
        q = self._query
        if q is not None:
            q.closing = True

    def _warn_busy(self, timeout_s: float) -> None:
        log.warning("NVML: source still busy after the wait; skipping nvmlShutdown")

    def _release(self) -> None:
        """``nvmlShutdown`` and forget the devices."""
        if self._initialized and self._nv is not None:
            free = getattr(self._nv, "nvmlGpmSampleFree", None)
            for dev in self._devices:
                release_gpm(dev, free)  # GPM sample buffers, before the library goes
            with contextlib.suppress(Exception):  # at exit: nothing useful to do
                self._nv.nvmlShutdown()
        self._initialized = False
        self._started = False
        self._base_status = SourceStatus()
        self._next_slow_s = float("-inf")
        self._query = None
        self._devices = []
        self._system = None
        self._topology = None
        _LIVE_SOURCES.discard(self)
        self._closing = _exiting  # at exit it stays closed; else a later call starts over

    def watch_gpm(self, watched: bool) -> None:
        """Sample GPM at every poll while ``watched`` (a live view shows it), else every
        ``gpm_interval_s``; takes effect at the next poll."""
        self._gpm_watched = watched
        interval = self._gpm_interval()
        for dev in list(self._devices):
            st = dev.gpm
            if isinstance(st, GpmState):
                st.interval_s = interval
                if st.sampled_s is not None and st.due_s != math.inf:
                    st.due_s = min(st.due_s, st.sampled_s + max(interval, GPM_MIN_INTERVAL_S))

    def _gpm_interval(self) -> float:
        return GPM_MIN_INTERVAL_S if self._gpm_watched else self._gpm_interval_s

    def watch_process_host(self, watched: bool) -> None:
        """Read the GPU processes' host CPU % and RSS at every poll while ``watched`` (the
        Processes tab is shown, the exporter serves per-process series), else every
        ``process_host_interval_s``: nobody looking, they cost one reading per interval."""
        self._proc_cache.usage.set_interval(0.0 if watched else self._process_host_interval_s)

    # -- NVML's reads, plugged into the skeleton ---------------------------------------------

    def _device_status(self, base: SourceStatus) -> SourceStatus:
        devices = self._devices
        permitted = not any(d.process_denied for d in devices)
        lost = tuple(d.index for d in devices if d.lost)
        if lost:
            names = ", ".join(str(i) for i in lost)
            return SourceStatus(
                state=SourceState.GPU_LOST,
                message=f"GPU {names} fell off the bus (NVML: GPU is lost)",
                hint="Check `nvidia-smi` and the kernel log (Xid 79); a GPU reset or a reboot "
                "brings it back. The other GPUs keep updating.",
                process_info_permitted=permitted,
                lost_gpus=lost,
            )
        if not permitted:
            return SourceStatus(
                state=SourceState.NO_PERMISSION,
                message="Not permitted to list the processes using the GPUs",
                hint="Run as root or as the user owning the processes; every other metric "
                "keeps updating.",
                process_info_permitted=False,
            )
        return base

    def _read_system(self, q: _Query, info: SystemInfo) -> SystemInfo:
        """Driver, CUDA driver and NVML versions (``nvidia-smi`` banner) plus the host."""
        cuda = q.system("cuda_driver_version", "nvmlSystemGetCudaDriverVersion")
        return replace(
            info,
            driver_version=text(q.system("driver_version", "nvmlSystemGetDriverVersion")),
            cuda_driver_version=None
            if not cuda
            else f"{int(cuda) // 1000}.{int(cuda) % 1000 // 10}",
            nvml_version=text(q.system("nvml_version", "nvmlSystemGetNVMLVersion")),
        )

    def _read_topology(self, q: _Query) -> Topology:
        """GPU×GPU links as ``nvidia-smi topo -m`` prints them (see :func:`build_topology`)."""
        return build_topology(q, self._devices)

    def _sample(
        self, q: _Query, now: float, slow: bool
    ) -> tuple[tuple[GpuSample, ...], tuple[ProcessSample, ...]]:
        gpus: list[GpuSample] = []
        raw_procs: list[tuple[DeviceState, dict[int, tuple[str, int | None]]]] = []
        for dev in self._devices:
            was_lost = dev.lost
            gpus.append(sample_gpu(q, dev, now, slow))
            if not dev.lost and dev.handle is not None:
                raw_procs.append((dev, read_processes(q, dev, now)))
            if dev.lost and not was_lost:
                self._topology = None  # its NVLinks are gone from the matrix
                release_gpm(dev, q.fn("nvmlGpmSampleFree"))
        return tuple(gpus), process_samples(self._proc_cache, raw_procs, now)
