"""Host telemetry with psutil: CPU, memory, disk, network, temperatures, process facts.

Missing or failing hardware is "unavailable", never a crash (the s-tui rule): every psutil
call that raises turns into ``None`` (or an empty tuple) in the :class:`HostSample`.
Rates (disk and network bytes/s, CPU %) are differenced between two samples using an
injectable monotonic clock, so tests are deterministic.
"""

from __future__ import annotations

import os
import platform
import socket
import threading
import time
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

import psutil

from gpuprof.telemetry.containers import ContainerResolver
from gpuprof.telemetry.model import HostSample, ProcessSample, SystemInfo
from gpuprof.telemetry.procstat import HostUsage, ProcessUsageReader

__all__ = [
    "HostSampler",
    "HostUsage",
    "ProcessInfo",
    "ProcessInfoCache",
    "host_system_info",
    "process_sample",
]

T = TypeVar("T")


def _safe(fn: Callable[[], T]) -> T | None:
    """``fn()``, or ``None`` when the platform or the permissions do not allow it."""
    try:
        return fn()
    except Exception:  # psutil raises OSError, NotImplementedError, AttributeError, ...
        return None


def _cpu_total(times: Any) -> float:
    """Total CPU time like psutil: guest time is already counted in user time on Linux."""
    total = float(sum(times))
    total -= getattr(times, "guest", 0.0)
    total -= getattr(times, "guest_nice", 0.0)
    return total


def _cpu_busy(times: Any) -> float:
    """Busy CPU time like psutil's ``cpu_percent``: everything but idle and iowait."""
    return _cpu_total(times) - float(times.idle) - float(getattr(times, "iowait", 0.0))


def _sum_times(cores: Any) -> Any:
    """The machine-wide CPU times as the field-wise sum of the per-core times."""
    if not cores:
        return None
    first = cores[0]
    summed = [sum(values) for values in zip(*cores, strict=True)]
    make = getattr(type(first), "_make", None)
    return make(summed) if make is not None else summed


def _busy_pct(prev: Any, cur: Any) -> float | None:
    d_total = _cpu_total(cur) - _cpu_total(prev)
    if d_total <= 0:
        return None
    d_busy = _cpu_busy(cur) - _cpu_busy(prev)
    return max(0.0, min(100.0, 100.0 * d_busy / d_total))


def _rate(prev: float | None, cur: float | None, dt_s: float) -> float | None:
    """Counter difference per second; ``None`` on the first sample or a counter reset."""
    if prev is None or cur is None or dt_s <= 0 or cur < prev:
        return None
    return (cur - prev) / dt_s


@dataclass(frozen=True, slots=True)
class _IoCounters:
    time_s: float
    disk_read: float | None
    disk_write: float | None
    net_rx: float | None
    net_tx: float | None


class HostSampler:
    """Samples the host with psutil (``top`` / ``vmstat`` / ``sar -n DEV`` equivalents).

    ``clock`` is a monotonic clock in seconds used to turn counters into rates.
    ``ps`` is the psutil module (tests pass a stand-in whose calls fail).
    Temperatures and swap are slow to read (many sysfs files, /proc/vmstat) and change
    slowly: they are refreshed every ``temps_interval_s`` seconds and repeated in between.
    ``freq_interval_s`` does the same for the CPU clock (psutil reads /proc/cpuinfo or a sysfs
    file per core); 0, the default, reads it at every sample. ``io_interval_s`` does the same for
    memory and the disk and network counters (three /proc files), whose rates are then over that
    span (``gpuprof.track``'s standalone session, which shares the job's interpreter).
    """

    def __init__(
        self,
        *,
        clock: Callable[[], float] = time.monotonic,
        ps: Any = None,
        temps_interval_s: float = 5.0,
        freq_interval_s: float = 0.0,
        io_interval_s: float = 0.0,
    ) -> None:
        self._ps = psutil if ps is None else ps
        self._clock = clock
        self._temps_interval_s = temps_interval_s
        self._freq_interval_s = freq_interval_s
        self._freq: Any = None
        self._next_freq_s = float("-inf")
        self._io_interval_s = io_interval_s
        self._next_io_s = float("-inf")
        self._mem: Any = None
        self._io_rates: tuple[float | None, ...] = (None, None, None, None)
        self._lock = threading.Lock()
        self._block_devices: frozenset[str] | None = None
        # Baselines taken now, so that the first sample() already has rates.
        self._prev_cores = _safe(lambda: self._ps.cpu_times(percpu=True))
        self._prev_cpu = _sum_times(self._prev_cores)
        self._prev_io = self._read_io()
        self._temps: tuple[tuple[str, float], ...] = ()
        self._swap: Any = None
        self._next_slow_s = float("-inf")

    def _read_io(self) -> _IoCounters:
        # nowrap=False: psutil's wrap bookkeeping costs more than the counters; a counter that
        # goes backwards simply gives no rate (see _rate).
        disk = _safe(self._disk_totals)
        net = _safe(lambda: self._ps.net_io_counters(nowrap=False))
        return _IoCounters(
            time_s=self._clock(),
            disk_read=None if disk is None else float(disk[0]),
            disk_write=None if disk is None else float(disk[1]),
            net_rx=None if net is None else float(net.bytes_recv),
            net_tx=None if net is None else float(net.bytes_sent),
        )

    def _disk_totals(self) -> tuple[int, int] | None:
        """Bytes read and written by whole disks (partitions would count twice).

        psutil's own filter checks /sys/block once per line on every call; on Linux the
        list of block devices is read once here and refreshed on the slow cadence.
        """
        ps = self._ps
        if ps is psutil and self._block_devices is None and os.path.isdir("/sys/block"):
            self._block_devices = frozenset(n.replace("!", "/") for n in os.listdir("/sys/block"))
        if self._block_devices is None:
            disk = ps.disk_io_counters(nowrap=False)
            return None if disk is None else (disk.read_bytes, disk.write_bytes)
        per_disk = ps.disk_io_counters(perdisk=True, nowrap=False) or {}
        read = write = 0
        for name, counters in per_disk.items():
            if name in self._block_devices:
                read += counters.read_bytes
                write += counters.write_bytes
        return read, write

    def _read_temps(self) -> tuple[tuple[str, float], ...]:
        sensors = _safe(lambda: self._ps.sensors_temperatures())
        if not sensors:
            return ()
        out: list[tuple[str, float]] = []
        for chip, entries in sensors.items():
            for i, entry in enumerate(entries):
                current = getattr(entry, "current", None)
                if current is None:
                    continue
                label = getattr(entry, "label", "") or str(i)
                out.append((f"{chip}/{label}", float(current)))
        return tuple(out)

    def sample(self) -> HostSample:
        """One :class:`HostSample`; rates are relative to the previous call."""
        with self._lock:
            return self._sample()

    def _sample(self) -> HostSample:
        ps = self._ps
        # One read of /proc/stat: the total is the sum of the cores.
        cores = _safe(lambda: ps.cpu_times(percpu=True))
        cpu = _sum_times(cores)
        cpu_pct = None
        if cpu is not None and self._prev_cpu is not None:
            cpu_pct = _safe(lambda: _busy_pct(self._prev_cpu, cpu))
        per_core: tuple[float, ...] = ()
        prev_cores = self._prev_cores
        if cores is not None and prev_cores is not None and len(cores) == len(prev_cores):
            pcts = _safe(lambda: [_busy_pct(a, b) for a, b in zip(prev_cores, cores, strict=True)])
            if pcts is not None and all(p is not None for p in pcts):
                per_core = tuple(float(p) for p in pcts if p is not None)
        if cpu is not None:
            self._prev_cpu = cpu
        if cores is not None:
            self._prev_cores = cores

        load = _safe(lambda: ps.getloadavg())
        now = self._clock()
        if self._io_interval_s <= 0 or now >= self._next_io_s:
            self._next_io_s = now + self._io_interval_s
            self._mem = _safe(lambda: ps.virtual_memory())
            io = self._read_io()
            prev, self._prev_io = self._prev_io, io
            dt = io.time_s - prev.time_s
            self._io_rates = (
                _rate(prev.disk_read, io.disk_read, dt),
                _rate(prev.disk_write, io.disk_write, dt),
                _rate(prev.net_rx, io.net_rx, dt),
                _rate(prev.net_tx, io.net_tx, dt),
            )
        mem = self._mem
        disk_read_s, disk_write_s, net_rx_s, net_tx_s = self._io_rates
        if self._freq_interval_s <= 0 or now >= self._next_freq_s:
            self._freq = _safe(lambda: ps.cpu_freq())
            self._next_freq_s = now + self._freq_interval_s
        freq = self._freq
        if now >= self._next_slow_s:
            # Slow to read (many sysfs files; /proc/vmstat) and slow to change.
            self._temps = self._read_temps()
            self._swap = _safe(lambda: ps.swap_memory())
            self._next_slow_s = now + self._temps_interval_s
            if self._block_devices is not None:
                self._block_devices = None  # re-list /sys/block: disks come and go
        swap = self._swap

        return HostSample(
            cpu_pct=cpu_pct,
            cpu_per_core_pct=per_core,
            cpu_freq_mhz=_safe(lambda: float(freq.current)) if freq is not None else None,
            load_avg=_safe(lambda: (float(load[0]), float(load[1]), float(load[2])))
            if load is not None
            else None,
            mem_total_bytes=_safe(lambda: int(mem.total)) if mem is not None else None,
            mem_used_bytes=_safe(lambda: int(mem.used)) if mem is not None else None,
            mem_available_bytes=_safe(lambda: int(mem.available)) if mem is not None else None,
            swap_total_bytes=_safe(lambda: int(swap.total)) if swap is not None else None,
            swap_used_bytes=_safe(lambda: int(swap.used)) if swap is not None else None,
            disk_read_bytes_s=disk_read_s,
            disk_write_bytes_s=disk_write_s,
            net_rx_bytes_s=net_rx_s,
            net_tx_bytes_s=net_tx_s,
            temps_c=self._temps,
        )

    def system_info(self) -> SystemInfo:
        """Host facts for :class:`SystemInfo`; the GPU backend adds the driver fields."""
        return host_system_info(self._ps)


def _cpu_model() -> str | None:
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip() or None
    except OSError:
        pass
    return platform.processor() or None


def host_system_info(ps: Any = None) -> SystemInfo:
    """Hostname, OS, CPU model and count, memory size (``uname -a`` / ``lscpu`` / ``free``)."""
    ps = psutil if ps is None else ps
    mem = _safe(lambda: ps.virtual_memory())
    return SystemInfo(
        hostname=_safe(socket.gethostname) or "",
        os=_safe(platform.platform) or "",
        cpu_model=_safe(_cpu_model),
        cpu_count_logical=_safe(lambda: ps.cpu_count(logical=True)) or os.cpu_count(),
        memory_total_bytes=_safe(lambda: int(mem.total)) if mem is not None else None,
    )


@dataclass(frozen=True, slots=True)
class ProcessInfo:
    """The static facts of one process (``ps -o comm,user,args,lstart``) and the container it
    runs in; ``None`` when not visible."""

    name: str | None = None
    user: str | None = None
    cmdline: str | None = None
    start_time_s: float | None = None  # Unix seconds
    container_id: str | None = None
    pod_name: str | None = None
    pod_namespace: str | None = None


_UNKNOWN = ProcessInfo()


def process_sample(
    pid: int,
    gpu_index: int,
    info: ProcessInfo | None,
    host: HostUsage,
    *,
    kind: str = "compute",
    gpu_mem_bytes: int | None = None,
    sm_util_pct: float | None = None,
    mem_util_pct: float | None = None,
    fallback_name: str | None = None,
) -> ProcessSample:
    """A GPU process as a frozen sample: what the vendor's library reads on the GPU (``kind``,
    memory in bytes, SM and memory utilization in %), the static facts ``info`` (``None``: not
    visible; its name, else the library's ``fallback_name`` where one is given) and the host
    side ``host`` (CPU % of one core, RSS bytes)."""
    info = info or _UNKNOWN
    return ProcessSample(
        pid=pid,
        gpu_index=gpu_index,
        kind=kind,
        gpu_mem_bytes=gpu_mem_bytes,
        sm_util_pct=sm_util_pct,
        mem_util_pct=mem_util_pct,
        name=info.name if fallback_name is None else (info.name or fallback_name),
        user=info.user,
        cmdline=info.cmdline,
        host_cpu_pct=host.cpu_pct,
        host_rss_bytes=host.rss_bytes,
        start_time_s=info.start_time_s,
        container_id=info.container_id,
        pod_name=info.pod_name,
        pod_namespace=info.pod_namespace,
    )


class ProcessInfoCache:
    """Name, user and command line per pid, read once per process.

    Reading them costs ~0.1 ms per process, so a poll of 50 GPU processes would spend
    most of its time here (DESIGN.md, Known traps). A process is identified by
    ``(pid, create_time)``, which survives pid reuse. Pids present in the previous
    :meth:`lookup` are taken as the same process without a system call: a pid cannot be
    reused while its process lives, and being recycled between two polls (a second
    apart) is not a case worth a syscall per process per poll.

    A pid psutil cannot see (another PID namespace, a container) or may not read gives
    a :class:`ProcessInfo` with ``None`` fields, not an error.

    The container and pod come from ``containers`` (a :class:`ContainerResolver`; by default
    the real one, unless ``ps`` is a stand-in), once per process. :attr:`usage` reads what
    changes (CPU %, RSS) with the monotonic ``clock``, at its own cadence.
    """

    def __init__(
        self,
        *,
        ps: Any = None,
        max_entries: int = 4096,
        clock: Callable[[], float] = time.monotonic,
        containers: ContainerResolver | None = None,
    ) -> None:
        self._ps = psutil if ps is None else ps
        self._max_entries = max_entries
        if containers is None and self._ps is psutil:
            containers = ContainerResolver()
        self._containers = containers
        self.usage = ProcessUsageReader(ps=self._ps, clock=clock)
        self._lock = threading.Lock()
        self._current: dict[int, ProcessInfo] = {}
        self._by_key: dict[tuple[int, float], ProcessInfo] = {}
        self.hits = 0
        self.misses = 0

    def lookup(self, pids: Iterable[int]) -> dict[int, ProcessInfo]:
        """Facts for every pid in ``pids`` (call once per poll with all pids)."""
        with self._lock:
            current: dict[int, ProcessInfo] = {}
            for pid in pids:
                if pid in current:
                    continue
                info = self._current.get(pid)
                if info is None:
                    info = self._resolve(pid)
                else:
                    self.hits += 1
                current[pid] = info
            self._current = current
            return dict(current)

    def _resolve(self, pid: int) -> ProcessInfo:
        ps = self._ps
        try:
            proc = ps.Process(pid)
            key = (pid, float(proc.create_time()))
        except Exception:  # NoSuchProcess, AccessDenied, ZombieProcess, pid in another namespace
            self.misses += 1
            return _UNKNOWN
        info = self._by_key.get(key)
        if info is not None:
            self.hits += 1
            return info
        self.misses += 1
        info = self._read(proc, key[1])
        if len(self._by_key) >= self._max_entries:
            # Oldest first: dicts keep insertion order.
            for old in list(self._by_key)[: self._max_entries // 4]:
                del self._by_key[old]
        self._by_key[key] = info
        return info

    def host_usage(self, pids: Collection[int]) -> Mapping[int, HostUsage]:
        """CPU % and RSS of each pid (call once per poll, after :meth:`lookup`): as of the last
        reading, which :attr:`usage`'s cadence spaces out (``ProcessUsageReader.set_interval``)."""
        return self.usage.read(pids)

    def _read(self, proc: Any, start_time_s: float) -> ProcessInfo:
        def text(fn: Callable[[], Any]) -> str | None:
            value = _safe(fn)
            return str(value) if value else None

        oneshot = _safe(proc.oneshot)
        if oneshot is None:
            name, user, cmd = text(proc.name), text(proc.username), _safe(proc.cmdline)
        else:
            with oneshot:
                name, user, cmd = text(proc.name), text(proc.username), _safe(proc.cmdline)
        cmdline = " ".join(str(part) for part in cmd) if cmd else None
        containers = self._containers
        where = None
        if containers is not None:
            where = _safe(lambda: containers.placement(int(proc.pid)))
        return ProcessInfo(
            name=name,
            user=user,
            cmdline=cmdline,
            start_time_s=start_time_s,
            container_id=where.container_id if where is not None else None,
            pod_name=where.pod_name if where is not None else None,
            pod_namespace=where.pod_namespace if where is not None else None,
        )
