"""The profiling (GPM) families of the exporter, under DCGM's ``DCGM_FI_PROF_*`` names.

dcgm-exporter publishes DCGM's profiling fields as gauges: the activities as *ratios* (0–1) and
the PCIe / NVLink traffic in bytes per second (``etc/default-counters.csv``,
``etc/dcp-metrics-included.csv``). :class:`~gpuprof.telemetry.model.GpuSample` keeps them in
percent (``prof_*_pct``), so they are divided by 100 here. The HELP texts are dcgm-exporter's
where its list has the field, else DCGM's own description (``dcgm_fields.h``).
``tests/test_exporter_dcgm_fields.py`` checks the names, types and texts against a copy of
dcgm-exporter's list.

An absent value (a GPU without GPM, the first poll) gives no series, never 0; what DCGM has no
single field for (the mean NVDEC / NVJPG activity: DCGM has one per engine) comes as
``gpuprof_*``, and so does the reason the fields are absent (``gpuprof_prof_available``). MIG
instances get their own series with dcgm-exporter's ``GPU_I_PROFILE`` and ``GPU_I_ID`` labels.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence

from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.samples import Sample

from gpuprof.redact import redact_text
from gpuprof.telemetry.model import DeviceInfo, GpuSample, MigProfSample
from gpuprof.telemetry.prof import has_prof

__all__ = ["MIG_LABELS", "PROF_FAMILIES", "prof_families"]

#: The labels dcgm-exporter adds to a MIG instance's series.
MIG_LABELS = ("GPU_I_PROFILE", "GPU_I_ID")

# (name, help, GpuSample attribute, scale): every family is a gauge.
_RATIO = 0.01  # percent -> ratio
PROF_FAMILIES: tuple[tuple[str, str, str, float], ...] = (
    (
        "DCGM_FI_PROF_SM_ACTIVE",
        "The ratio of cycles an SM has at least 1 warp assigned.",
        "prof_sm_active_pct",
        _RATIO,
    ),
    (
        "DCGM_FI_PROF_SM_OCCUPANCY",
        "The ratio of number of warps resident on an SM.",
        "prof_sm_occupancy_pct",
        _RATIO,
    ),
    (
        "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE",
        "Ratio of cycles the tensor (HMMA) pipe is active.",
        "prof_tensor_active_pct",
        _RATIO,
    ),
    (
        "DCGM_FI_PROF_DRAM_ACTIVE",
        "Ratio of cycles the device memory interface is active sending or receiving data.",
        "prof_dram_active_pct",
        _RATIO,
    ),
    (
        "DCGM_FI_PROF_PIPE_FP64_ACTIVE",
        "Ratio of cycles the fp64 pipes are active.",
        "prof_fp64_active_pct",
        _RATIO,
    ),
    (
        "DCGM_FI_PROF_PIPE_FP32_ACTIVE",
        "Ratio of cycles the fp32 pipes are active.",
        "prof_fp32_active_pct",
        _RATIO,
    ),
    (
        "DCGM_FI_PROF_PIPE_FP16_ACTIVE",
        "Ratio of cycles the fp16 pipes are active.",
        "prof_fp16_active_pct",
        _RATIO,
    ),
    # Not in dcgm-exporter's list; DCGM's descriptions of fields 1013-1015.
    (
        "DCGM_FI_PROF_PIPE_TENSOR_IMMA_ACTIVE",
        "The ratio of cycles the tensor (IMMA) pipe is active (off the peak sustained "
        "elapsed cycles).",
        "prof_tensor_imma_pct",
        _RATIO,
    ),
    (
        "DCGM_FI_PROF_PIPE_TENSOR_HMMA_ACTIVE",
        "The ratio of cycles the tensor (HMMA) pipe is active (off the peak sustained "
        "elapsed cycles).",
        "prof_tensor_hmma_pct",
        _RATIO,
    ),
    (
        "DCGM_FI_PROF_PIPE_TENSOR_DFMA_ACTIVE",
        "The ratio of cycles the tensor (DFMA) pipe is active (off the peak sustained "
        "elapsed cycles).",
        "prof_tensor_dfma_pct",
        _RATIO,
    ),
    # DCGM fields 1011-1012, a rate like the PCIe pair (dcgm-exporter's wording for those).
    (
        "DCGM_FI_PROF_NVLINK_TX_BYTES",
        "The rate of data transmitted over NVLink, all links - including both protocol "
        "headers and data payloads - in bytes per second.",
        "prof_nvlink_tx_bytes_s",
        1.0,
    ),
    (
        "DCGM_FI_PROF_NVLINK_RX_BYTES",
        "The rate of data received over NVLink, all links - including both protocol "
        "headers and data payloads - in bytes per second.",
        "prof_nvlink_rx_bytes_s",
        1.0,
    ),
    # DCGM has one field per engine (DCGM_FI_PROF_NVDEC0_ACTIVE ...); this is their mean.
    (
        "gpuprof_nvdec_active_ratio",
        "Mean ratio of cycles the NVDEC engines are active (DCGM_FI_PROF_NVDECn_ACTIVE "
        "averaged over the engines).",
        "prof_nvdec_pct",
        _RATIO,
    ),
    (
        "gpuprof_nvjpg_active_ratio",
        "Mean ratio of cycles the NVJPG engines are active (DCGM_FI_PROF_NVJPGn_ACTIVE "
        "averaged over the engines).",
        "prof_nvjpg_pct",
        _RATIO,
    ),
)

_MIG_PROFILE = re.compile(r"\d+g\.\d+gb(?:\+me)?", re.IGNORECASE)


def _mig_profiles(device: DeviceInfo | None) -> dict[int, str]:
    """GPU instance id -> MIG profile (``1g.10gb``), from the device's MIG names."""
    out: dict[int, str] = {}
    for mig in device.mig_devices if device is not None else ():
        if mig.gpu_instance_id is None:
            continue
        match = _MIG_PROFILE.search(mig.name)
        out[mig.gpu_instance_id] = match.group(0) if match else redact_text(mig.name)
    return out


def prof_families(
    gpus: Sequence[tuple[GpuSample, list[str]]],
    labels: Sequence[str],
    tag: str,
    devices: Callable[[int], DeviceInfo | None],
) -> Iterator[Metric]:
    """The ``DCGM_FI_PROF_*`` families of the (sample, label values) pairs: one series per
    GPU and per MIG instance with a value; a family with no series is left out. Rendered once
    per poll: a GPU without profiling activity costs no pass over the families."""
    live = [(g, values, has_prof(g)) for g, values in gpus if not g.lost]
    reporting = [(g, values) for g, values, ok in live if ok or g.mig_prof]
    for name, doc, attr, scale in PROF_FAMILIES if reporting else ():
        family = GaugeMetricFamily(name, doc + tag, labels=list(labels))
        mig_value = _MIG_GETTERS.get(attr)
        for g, values in reporting:
            v = getattr(g, attr)
            if v is not None:
                family.add_metric(values, float(v) * scale)
            if mig_value is None or not g.mig_prof:
                continue
            profiles = _mig_profiles(devices(g.index))
            for mig in g.mig_prof:
                mv = mig_value(mig)
                if mv is None:
                    continue
                mig_labels = dict(zip(labels, values, strict=True))
                mig_labels["GPU_I_PROFILE"] = profiles.get(mig.gpu_instance_id, "")
                mig_labels["GPU_I_ID"] = str(mig.gpu_instance_id)
                family.samples.append(Sample(name, mig_labels, float(mv) * scale))
        if family.samples:
            yield family
    available = GaugeMetricFamily(
        "gpuprof_prof_available",
        "1 when the GPU reports profiling activity (NVML GPM, the DCGM_FI_PROF_* series), "
        "else 0 with the reason." + tag,
        labels=[*labels, "reason"],
    )
    for g, values, ok in live:
        reason = "" if ok else _reason_label(g.prof_unavailable or "unknown")
        available.add_metric([*values, reason], 1.0 if ok else 0.0)
    if available.samples:
        yield available


def _mig_getter(attr: str) -> Callable[[MigProfSample], float | None]:
    def get(m: MigProfSample) -> float | None:
        v = getattr(m, attr)
        return None if v is None else float(v)

    return get


#: GpuSample attribute -> its value in a MigProfSample, for the fields MIG instances have.
_MIG_GETTERS = {
    attr: _mig_getter(attr)
    for _name, _doc, attr, _scale in PROF_FAMILIES
    if attr in MigProfSample.__dataclass_fields__
}
_REASONS: dict[str, str] = {}  # reason -> its label value, redacted once (a handful in all)


def _reason_label(reason: str) -> str:
    label = _REASONS.get(reason)
    if label is None:
        label = redact_text(reason, 200)
        if len(_REASONS) < 256:  # reasons carry error kinds: few, but not a fixed list
            _REASONS[reason] = label
    return label
