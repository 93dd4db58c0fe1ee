"""The exporter's per-process families (``gpuprof exporter --per-process``), after nvitop-exporter.

One series per GPU process and GPU, labelled with dcgm-exporter's GPU labels plus ``pid``,
``process_name``, ``user``, ``container_id`` (the short, 12-hex form ``docker ps`` shows) and,
on Kubernetes, ``pod`` and ``namespace`` (dcgm-exporter's names for them). Label values leave
the machine, so they go through the reports' redaction (:func:`gpuprof.redact.redact_text`):
control characters neutralised and secrets hidden; the command line is not exported at all.
A process that has gone has no series in the next scrape, and none are served while the source
is stale. An absent value (no utilization sample, a pid this user cannot read) gives no series.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

from prometheus_client.core import GaugeMetricFamily, Metric

from gpuprof.redact import redact_text
from gpuprof.telemetry.model import ProcessSample, Snapshot

__all__ = ["PROCESS_FAMILIES", "PROCESS_LABELS", "process_families"]

#: Added to dcgm-exporter's GPU labels on every per-process series.
PROCESS_LABELS = ("pid", "process_name", "user", "container_id", "pod", "namespace")
#: The longest label value taken from a process (a name, a user, a pod).
_MAX_LABEL = 128

# (name, help, getter): every family is a gauge.
PROCESS_FAMILIES: tuple[tuple[str, str, Callable[[ProcessSample], float | None]], ...] = (
    (
        "gpuprof_process_gpu_memory_bytes",
        "GPU memory used by the process (in B; nvidia-smi: GPU Memory Usage).",
        lambda p: p.gpu_mem_bytes,
    ),
    (
        "gpuprof_process_sm_util_percent",
        "Share of the GPU's SM time the process used (in %; nvidia-smi pmon: sm).",
        lambda p: p.sm_util_pct,
    ),
    (
        "gpuprof_process_mem_util_percent",
        "Share of the GPU's memory-controller time the process used (in %; nvidia-smi pmon: mem).",
        lambda p: p.mem_util_pct,
    ),
    (
        "gpuprof_process_cpu_percent",
        "Host CPU the process used, of one core (in %; top: %CPU).",
        lambda p: p.host_cpu_pct,
    ),
    (
        "gpuprof_process_resident_memory_bytes",
        "Host memory resident for the process (in B; top: RES).",
        lambda p: p.host_rss_bytes,
    ),
    (
        "gpuprof_process_start_time_seconds",
        "When the process started (Unix time in seconds).",
        lambda p: p.start_time_s,
    ),
)


def _text(value: str | None) -> str:
    return redact_text(value, _MAX_LABEL) if value else ""


def process_labels(p: ProcessSample) -> list[str]:
    """The process's own label values, in :data:`PROCESS_LABELS` order, redacted."""
    return [
        str(p.pid),
        _text(p.name),
        _text(p.user),
        (p.container_id or "")[:12],
        _text(p.pod_name),
        _text(p.pod_namespace),
    ]


def process_families(
    snap: Snapshot,
    gpu_labels: Callable[[int, str | None], list[str]],
    gpu_label_names: Sequence[str],
    tag: str = "",
) -> Iterator[Metric]:
    """The per-process families of ``snap``; ``gpu_labels(index, uuid)`` gives a GPU's labels."""
    if not snap.processes:
        return
    uuids = {g.index: g.uuid for g in snap.gpus}
    rows = [
        (p, [*gpu_labels(p.gpu_index, uuids.get(p.gpu_index)), *process_labels(p)])
        for p in snap.processes
    ]
    names = [*gpu_label_names, *PROCESS_LABELS]
    for name, doc, get in PROCESS_FAMILIES:
        family = GaugeMetricFamily(name, doc + tag, labels=names)
        for p, labels in rows:
            value = get(p)
            if value is not None:
                family.add_metric(labels, float(value))
        if family.samples:
            yield family
