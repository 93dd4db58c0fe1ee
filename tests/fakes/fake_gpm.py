"""GPM (``nvmlGpm*``) for the fake NVML, with the real call contract.

* ``nvmlGpmSampleAlloc`` returns a real ``c_nvmlGpmSample_t`` (an opaque pointer, so the
  production code can put it in a real ``c_nvmlGpmMetricsGet_t``); ``nvmlGpmSampleFree``
  frees it. A freed or unknown buffer is ``NVML_ERROR_INVALID_ARGUMENT`` wherever it is used,
  and :meth:`FakeGpm.outstanding` counts the buffers never freed (leak detection).
* ``nvmlGpmSampleGet`` / ``nvmlGpmMigSampleGet`` record the device's (or GPU instance's)
  cumulative counters at that moment of the fake's clock. The counters grow in
  :meth:`FakeGpm.advance` at the rates of :class:`FakeGpmActivity` (and the PCIe/NVLink
  rates the device describes).
* ``nvmlGpmMetricsGet`` fills ``metrics[i].value`` and ``metrics[i].nvmlReturn`` for each
  requested metric from the two samples, as NVML does: a metric the device lacks answers
  NOT_SUPPORTED in its own slot, the rest still get values. The call itself fails for a bad
  struct version, unknown or unfilled buffers, samples of two different devices, samples less
  than 100 ms apart (NVML's counter refresh) and a lost GPU.
* Before Hopper (``FakeDevice.architecture``) or where ``FakeDevice.gpm_supported`` is False,
  ``nvmlGpmQueryDeviceSupport`` says no and the sample calls answer NOT_SUPPORTED.
* ``fake.inject(...)`` works on every GPM call (``nvmlGpmMetricsGet`` is matched to the device
  its samples came from); :meth:`FakeGpm.fail_metric` makes one metric's slot fail and
  :meth:`FakeGpm.force_value` makes it answer any number (NaN, infinities, negatives: what a
  driver in trouble may return).
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pynvml as _real

if TYPE_CHECKING:
    from tests.fakes.fake_nvml import FakeBox, FakeDevice

__all__ = ["FakeGpm", "FakeGpmActivity", "GpmSampleRecord"]

NVMLError = _real.NVMLError
MIB = 1024 * 1024

# Percent metrics: metric id -> FakeGpmActivity attribute.
_PCT_METRICS = {
    _real.NVML_GPM_METRIC_SM_UTIL: "sm_active_pct",
    _real.NVML_GPM_METRIC_SM_OCCUPANCY: "sm_occupancy_pct",
    _real.NVML_GPM_METRIC_ANY_TENSOR_UTIL: "tensor_active_pct",
    _real.NVML_GPM_METRIC_DFMA_TENSOR_UTIL: "tensor_dfma_pct",
    _real.NVML_GPM_METRIC_HMMA_TENSOR_UTIL: "tensor_hmma_pct",
    _real.NVML_GPM_METRIC_IMMA_TENSOR_UTIL: "tensor_imma_pct",
    _real.NVML_GPM_METRIC_DRAM_BW_UTIL: "dram_active_pct",
    _real.NVML_GPM_METRIC_FP64_UTIL: "fp64_active_pct",
    _real.NVML_GPM_METRIC_FP32_UTIL: "fp32_active_pct",
    _real.NVML_GPM_METRIC_FP16_UTIL: "fp16_active_pct",
}
_NVDEC0 = _real.NVML_GPM_METRIC_NVDEC_0_UTIL
_NVJPG0 = _real.NVML_GPM_METRIC_NVJPG_0_UTIL
# Byte counters: metric id (MiB/s) -> counter key.
_RATE_METRICS = {
    _real.NVML_GPM_METRIC_PCIE_TX_PER_SEC: "pcie_tx",
    _real.NVML_GPM_METRIC_PCIE_RX_PER_SEC: "pcie_rx",
    _real.NVML_GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC: "nvlink_tx",
    _real.NVML_GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC: "nvlink_rx",
}
_MIN_INTERVAL_S = 0.1  # NVML refreshes the counters every 100 ms


@dataclass
class FakeGpmActivity:
    """What a GPU (or a MIG GPU instance) is doing, in % of the time (DRAM: % of peak
    bandwidth); NVDEC/NVJPG per engine, so their number is the device's engine count."""

    sm_active_pct: float = 0.0
    sm_occupancy_pct: float = 0.0
    tensor_active_pct: float = 0.0
    tensor_hmma_pct: float = 0.0
    tensor_imma_pct: float = 0.0
    tensor_dfma_pct: float = 0.0
    dram_active_pct: float = 0.0
    fp64_active_pct: float = 0.0
    fp32_active_pct: float = 0.0
    fp16_active_pct: float = 0.0
    nvdec_pct: list[float] = field(default_factory=list)
    nvjpg_pct: list[float] = field(default_factory=list)


@dataclass
class GpmSampleRecord:
    """What one sample buffer holds after a sample call."""

    device: int
    gpu_instance_id: int | None
    time_s: float
    counters: dict[Any, float]


@dataclass
class _Buffer:
    memory: Any  # the ctypes buffer the pointer points at (kept alive: addresses never reused)
    record: GpmSampleRecord | None = None


class FakeGpm:
    """The GPM state of one fake NVML: buffers, counters, per-metric failures."""

    def __init__(self) -> None:
        self._buffers: dict[int, _Buffer] = {}  # address -> live buffer
        self._freed: list[Any] = []  # freed memory, kept so no address is handed out twice
        self.allocated = 0
        self.freed = 0
        # (device index or None for any, metric id) -> nvmlReturn for that metric's slot
        self.metric_errors: dict[tuple[int | None, int], int] = {}
        # (device index or None for any, metric id) -> the value that slot answers, as is
        self.forced_values: dict[tuple[int | None, int], float] = {}
        self._counters: dict[tuple[int, int | None], dict[Any, float]] = {}

    # -- test controls ------------------------------------------------------------------------

    def outstanding(self) -> int:
        """Sample buffers allocated and not freed."""
        return len(self._buffers)

    def fail_metric(self, metric_id: int, error: int, device: int | None = None) -> None:
        """Make ``metric_id``'s slot answer ``error`` (on ``device``, or any when ``None``)."""
        self.metric_errors[(device, metric_id)] = error

    def force_value(self, metric_id: int, value: float, device: int | None = None) -> None:
        """Make ``metric_id``'s slot answer ``value`` with NVML_SUCCESS, whatever it is."""
        self.forced_values[(device, metric_id)] = value

    def advance(self, box: FakeBox, seconds: float) -> None:
        """Integrate every device's and GPU instance's activity over ``seconds``."""
        for index, dev in enumerate(box.devices):
            self._integrate((index, None), dev.gpm, seconds, dev)
            for mig in dev.mig_devices:
                self._integrate((index, mig.gpu_instance_id), mig.gpm, seconds, None)

    def _integrate(
        self,
        key: tuple[int, int | None],
        act: FakeGpmActivity,
        seconds: float,
        dev: FakeDevice | None,
    ) -> None:
        c = self._counters.setdefault(key, {})
        for mid, attr in _PCT_METRICS.items():
            c[mid] = c.get(mid, 0.0) + getattr(act, attr) * seconds
        for k, pct in enumerate(act.nvdec_pct):
            c[_NVDEC0 + k] = c.get(_NVDEC0 + k, 0.0) + pct * seconds
        for k, pct in enumerate(act.nvjpg_pct):
            c[_NVJPG0 + k] = c.get(_NVJPG0 + k, 0.0) + pct * seconds
        if dev is None:
            return
        rates = {
            "pcie_tx": (dev.pcie_tx_kb_s or 0) * 1024.0,
            "pcie_rx": (dev.pcie_rx_kb_s or 0) * 1024.0,
            "nvlink_tx": sum(link.tx_bytes_s for link in dev.nvlinks or () if link.active),
            "nvlink_rx": sum(link.rx_bytes_s for link in dev.nvlinks or () if link.active),
        }
        for name, rate in rates.items():
            c[name] = c.get(name, 0.0) + rate * seconds

    # -- the calls (FakeNvml's @_api methods delegate here) -----------------------------------

    @staticmethod
    def supported(dev: FakeDevice) -> bool:
        if dev.gpm_supported is not None:
            return dev.gpm_supported
        arch = dev.architecture
        return arch is not None and arch >= _real.NVML_DEVICE_ARCH_HOPPER

    def query_support(self, dev: FakeDevice) -> Any:
        support = _real.c_nvmlGpmSupport_t()
        support.version = _real.NVML_GPM_SUPPORT_VERSION
        support.isSupportedDevice = int(self.supported(dev))
        return support

    def alloc(self) -> Any:
        memory = ctypes.create_string_buffer(16)
        self._buffers[ctypes.addressof(memory)] = _Buffer(memory)
        self.allocated += 1
        return ctypes.cast(memory, _real.c_nvmlGpmSample_t)

    def free(self, sample: Any) -> None:
        buf = self._buffers.pop(self._address(sample), None)
        if buf is None:
            raise NVMLError(_real.NVML_ERROR_INVALID_ARGUMENT)  # unknown, or freed twice
        self._freed.append(buf.memory)
        self.freed += 1

    def sample(
        self, dev: FakeDevice, index: int, gpu_instance_id: int | None, sample: Any, now_s: float
    ) -> Any:
        buf = self._buffer(sample)
        if not self.supported(dev):
            raise NVMLError(_real.NVML_ERROR_NOT_SUPPORTED)
        if gpu_instance_id is not None:
            if not (dev.mig_mode and dev.mig_mode[0]):
                raise NVMLError(_real.NVML_ERROR_INVALID_ARGUMENT)
            if not any(m.gpu_instance_id == gpu_instance_id for m in dev.mig_devices):
                raise NVMLError(_real.NVML_ERROR_NOT_FOUND)
        counters = dict(self._counters.get((index, gpu_instance_id), {}))
        buf.record = GpmSampleRecord(index, gpu_instance_id, now_s, counters)
        return sample

    def device_of(self, request: Any) -> int | None:
        """The device whose samples a ``c_nvmlGpmMetricsGet_t`` refers to (for injections)."""
        try:
            buf = self._buffers.get(self._address(request.sample1))
        except Exception:
            return None
        return None if buf is None or buf.record is None else buf.record.device

    def metrics(self, box: FakeBox, request: Any, lost: set[int]) -> Any:
        if request.version != _real.NVML_GPM_METRICS_GET_VERSION:
            raise NVMLError(_real.NVML_ERROR_ARGUMENT_VERSION_MISMATCH)
        n = int(request.numMetrics)
        if not 0 < n <= len(request.metrics):
            raise NVMLError(_real.NVML_ERROR_INVALID_ARGUMENT)
        one = self._buffer(request.sample1).record
        two = self._buffer(request.sample2).record
        if one is None or two is None:
            raise NVMLError(_real.NVML_ERROR_INVALID_ARGUMENT)  # allocated, never sampled
        if (one.device, one.gpu_instance_id) != (two.device, two.gpu_instance_id):
            raise NVMLError(_real.NVML_ERROR_INVALID_ARGUMENT)
        if one.device in lost:
            raise NVMLError(_real.NVML_ERROR_GPU_IS_LOST)
        dt = two.time_s - one.time_s
        if dt < _MIN_INTERVAL_S:
            raise NVMLError(_real.NVML_ERROR_INVALID_ARGUMENT)
        dev = box.devices[one.device]
        act = dev.gpm if one.gpu_instance_id is None else self._mig_activity(dev, one)
        for i in range(n):
            slot = request.metrics[i]
            mid = int(slot.metricId)
            err = self.metric_errors.get((one.device, mid), self.metric_errors.get((None, mid)))
            value = None if err is not None else self._value(dev, act, one, two, mid, dt)
            forced = self.forced_values.get((one.device, mid), self.forced_values.get((None, mid)))
            if forced is not None and err is None:
                value = forced
            if value is None:
                slot.nvmlReturn = _real.NVML_ERROR_NOT_SUPPORTED if err is None else err
                slot.value = 0.0
            else:
                slot.nvmlReturn = _real.NVML_SUCCESS
                slot.value = value
        return request

    # -- helpers ------------------------------------------------------------------------------

    @staticmethod
    def _address(sample: Any) -> int:
        address = ctypes.cast(sample, ctypes.c_void_p).value
        return -1 if address is None else int(address)

    def _buffer(self, sample: Any) -> _Buffer:
        try:
            buf = self._buffers.get(self._address(sample))
        except (TypeError, ctypes.ArgumentError):
            buf = None
        if buf is None:
            raise NVMLError(_real.NVML_ERROR_INVALID_ARGUMENT)
        return buf

    @staticmethod
    def _mig_activity(dev: FakeDevice, record: GpmSampleRecord) -> FakeGpmActivity:
        for mig in dev.mig_devices:
            if mig.gpu_instance_id == record.gpu_instance_id:
                return mig.gpm
        raise NVMLError(_real.NVML_ERROR_NOT_FOUND)

    @staticmethod
    def _value(
        dev: FakeDevice,
        act: FakeGpmActivity,
        one: GpmSampleRecord,
        two: GpmSampleRecord,
        mid: int,
        dt: float,
    ) -> float | None:
        def delta(key: Any) -> float:
            return two.counters.get(key, 0.0) - one.counters.get(key, 0.0)

        if mid in _PCT_METRICS:
            return delta(mid) / dt
        if _NVDEC0 <= mid < _NVDEC0 + len(act.nvdec_pct):
            return delta(mid) / dt
        if _NVJPG0 <= mid < _NVJPG0 + len(act.nvjpg_pct):
            return delta(mid) / dt
        if mid in _RATE_METRICS and one.gpu_instance_id is None:
            name = _RATE_METRICS[mid]
            if name.startswith("nvlink") and (
                dev.nvlinks is None or (dev.mig_mode and dev.mig_mode[0])
            ):
                return None
            return delta(name) / dt / MIB
        return None
