"""The AMD GPUs' families of the exporter, under AMD Device Metrics Exporter's names.

AMD's own Prometheus exporter (ROCm/device-metrics-exporter, ``docs/configuration/
metricslist.md``) publishes ``gpu_gfx_activity``, ``gpu_junction_temperature``,
``gpu_package_power``, ``gpu_used_vram`` (MB), ``gpu_clock{clock_type=...}``, ``pcie_speed``
(GT/s), ``gpu_ecc_correct_<block>`` ...; dashboards built for it query those names. An AMD GPU
served by gpuprof gets them next to the DCGM names it shares with NVIDIA GPUs
(``DCGM_FI_DEV_GPU_UTIL`` is the GFX activity there too), with dcgm-exporter's labels so that one
label set fits both vendors. Units are AMD's: MB for VRAM, µJ for energy, GT/s for PCIe.

A value amdsmi did not give produces no series, never 0. What AMD's exporter publishes only
as accumulated counters (XGMI KB) comes as rates under ``gpuprof_xgmi_*``, and the reason each
absent field is absent as ``gpuprof_field_absent{field, reason}``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

from prometheus_client.core import GaugeMetricFamily, Metric

from gpuprof.redact import redact_text
from gpuprof.telemetry.model import DeviceInfo, GpuSample

__all__ = ["AMD_FAMILIES", "amd_families", "is_amd"]

_MIB = float(2**20)
#: PCIe generation -> its per-lane rate in GT/s (what AMD's exporter calls pcie_speed).
_GTS = {1: 2.5, 2: 5.0, 3: 8.0, 4: 16.0, 5: 32.0, 6: 64.0}

Getter = Callable[[GpuSample, DeviceInfo | None], float | None]


def _field(name: str, scale: float = 1.0) -> Getter:
    def get(s: GpuSample, _d: DeviceInfo | None) -> float | None:
        v = getattr(s, name)
        return None if v is None else float(v) * scale

    return get


def _pcie_speed(s: GpuSample, _d: DeviceInfo | None) -> float | None:
    return None if s.pcie_gen is None else _GTS.get(s.pcie_gen)


def _pcie_max_speed(_s: GpuSample, d: DeviceInfo | None) -> float | None:
    return None if d is None or d.pcie_gen_max is None else _GTS.get(d.pcie_gen_max)


def _free_vram(s: GpuSample, _d: DeviceInfo | None) -> float | None:
    return None if s.mem_free_bytes is None else s.mem_free_bytes / _MIB


def _ecc_total(attr: str) -> Getter:
    def get(s: GpuSample, _d: DeviceInfo | None) -> float | None:
        v = None if s.ecc is None else getattr(s.ecc, attr)
        return None if v is None else float(v)

    return get


#: (name, help, getter): AMD Device Metrics Exporter's gauges that a GpuSample has.
AMD_FAMILIES: tuple[tuple[str, str, Getter], ...] = (
    ("gpu_gfx_activity", "Graphics engine usage percentage (0 - 100).", _field("util_gpu_pct")),
    ("gpu_umc_activity", "Memory engine usage percentage (0 - 100).", _field("util_mem_pct")),
    (
        "gpu_mma_activity",
        "Average multimedia engine usage in percentage (0 - 100).",
        _field("util_mm_pct"),
    ),
    ("gpu_power_usage", "GPU power usage in Watts.", _field("power_w")),
    (
        "gpu_energy_consumed",
        "Accumulated energy consumed by the GPU in Micro Jules (uJ).",
        _field("energy_total_j", 1e6),
    ),
    (
        "gpu_edge_temperature",
        "Edge temperature value in Celsius.",
        _field("temp_gpu_c"),
    ),
    (
        "gpu_junction_temperature",
        "Hotspot (aka junction) temperature value in Celsius.",
        _field("temp_hotspot_c"),
    ),
    ("gpu_memory_temperature", "Memory temperature value in Celsius.", _field("temp_mem_c")),
    ("gpu_total_vram", "Total VRAM available in MB.", _field("mem_total_bytes", 1 / _MIB)),
    ("gpu_used_vram", "Total VRAM memory used in MB.", _field("mem_used_bytes", 1 / _MIB)),
    ("gpu_free_vram", "Total VRAM memory free in MB.", _free_vram),
    ("pcie_speed", "Current pcie speed capable in GT/s.", _pcie_speed),
    ("pcie_max_speed", "Maximum capable pcie speed in GT/s.", _pcie_max_speed),
    ("pcie_replay_count", "Total number of PCIe replays (NAKs).", _field("pcie_replay_count")),
    (
        "gpu_ecc_correct_total",
        "Total Correctable ECC error count.",
        _ecc_total("volatile_corrected"),
    ),
    (
        "gpu_ecc_uncorrect_total",
        "Total Uncorrectable ECC error count.",
        _ecc_total("volatile_uncorrected"),
    ),
    (
        "gpuprof_xgmi_read_bytes_per_second",
        "XGMI data read over all links, bytes per second (from amdsmi's KB accumulators).",
        _field("xgmi_read_bytes_s"),
    ),
    (
        "gpuprof_xgmi_write_bytes_per_second",
        "XGMI data written over all links, bytes per second (from amdsmi's KB accumulators).",
        _field("xgmi_write_bytes_s"),
    ),
)

#: gpu_clock's clock_type label values (AMD's exporter, GPUClockType) and their fields.
_CLOCKS = (
    ("GPU_CLOCK_TYPE_SYSTEM", "clock_graphics_mhz"),
    ("GPU_CLOCK_TYPE_MEMORY", "clock_mem_mhz"),
    ("GPU_CLOCK_TYPE_SOC", "clock_soc_mhz"),
)


#: amdsmi's block names where AMD's exporter names them differently.
_BLOCK_NAMES = {"PCIE_BIF": "BIF"}


def is_amd(sample: GpuSample, info: DeviceInfo | None) -> bool:
    """Whether the GPU is an AMD one: its DeviceInfo says so, or (no DeviceInfo, as from a
    remote exporter) its sample carries amdsmi-only readings."""
    if info is not None:
        return info.vendor == "amd"
    return sample.temp_hotspot_c is not None or sample.clock_soc_mhz is not None


def amd_families(
    gpus: Sequence[tuple[GpuSample, list[str]]],
    labels: Sequence[str],
    tag: str,
    devices: Callable[[int], DeviceInfo | None],
) -> Iterator[Metric]:
    """AMD's exporter's families for the AMD GPUs among ``gpus`` (sample, label values); a
    family without a series is left out."""
    amd = [(g, v, devices(g.index)) for g, v in gpus if not g.lost and is_amd(g, devices(g.index))]
    if not amd:
        return
    for name, doc, get in AMD_FAMILIES:
        family = GaugeMetricFamily(name, doc + tag, labels=list(labels))
        for g, values, info in amd:
            value = get(g, info)
            if value is not None:
                family.add_metric(values, value)
        if family.samples:
            yield family
    clock = GaugeMetricFamily(
        "gpu_clock", "Clock measure of the GPU in Mhz." + tag, labels=[*labels, "clock_type"]
    )
    # gpu_ecc_correct_umc, gpu_ecc_uncorrect_xgmi_wafl, ...: one family per block, as AMD's.
    blocks: dict[str, GaugeMetricFamily] = {}
    absent = GaugeMetricFamily(
        "gpuprof_field_absent",
        "1 for each field the GPU does not report, with the reason amdsmi gave." + tag,
        labels=[*labels, "field", "reason"],
    )
    for g, values, _info in amd:
        for clock_type, attr in _CLOCKS:
            v = getattr(g, attr)
            if v is not None:
                clock.add_metric([*values, clock_type], float(v))
        for block in () if g.ecc is None else g.ecc.blocks:
            for kind, count in (("correct", block.corrected), ("uncorrect", block.uncorrected)):
                if count is None:
                    continue
                name = f"gpu_ecc_{kind}_{_BLOCK_NAMES.get(block.block, block.block).lower()}"
                if name not in blocks:
                    blocks[name] = GaugeMetricFamily(
                        name,
                        f"{'Correctable' if kind == 'correct' else 'Uncorrectable'} ECC error "
                        f"in {_BLOCK_NAMES.get(block.block, block.block)}." + tag,
                        labels=list(labels),
                    )
                blocks[name].add_metric(values, float(count))
        for field, reason in g.absent:
            absent.add_metric([*values, field, redact_text(reason, 200)], 1.0)
    for family in (clock, *blocks.values(), absent):
        if family.samples:
            yield family
