"""Read the fleet from Prometheus: gpuprof's exporters and plain dcgm-exporter alike.

Both serve dcgm-exporter's metric names with the per-GPU labels ``gpu``, ``UUID``, ``device``,
``modelName``, ``Hostname``; they differ in the rest. gpuprof adds ``gpuprof_*`` series (PCIe
link, lost GPUs, one 0/1 series per throttle reason, the source's health); dcgm-exporter serves
the throttle reasons as one bitmask (``DCGM_FI_DEV_CLOCK_THROTTLE_REASONS``, renamed
``DCGM_FI_DEV_CLOCKS_EVENT_REASONS``), ``DCGM_FI_DEV_XID_ERRORS``, ``DCGM_FI_DRIVER_VERSION`` as
a label, MIG labels (``GPU_I_ID``, ``GPU_I_PROFILE``) and, under Kubernetes or an HPC job
mapping, the GPU's holder (``pod``/``namespace``/``container``, ``hpc_job``). A node is a
scrape target ``(job, instance)``: several machines may well report the same ``Hostname``.

One overview is seven queries, sent at once (Prometheus evaluates them side by side): the
targets' ``up`` (and gpuprof's ``gpuprof_source_up`` and ``gpuprof_source_info``, whose
``source`` label says when an exporter serves SIMULATED data); the GPU series seen within the look-back window
(``/api/v1/series``: GPUs that stopped reporting are still listed, as stale); the current
values of every metric used, as the memory series with all its labels and the others with
the GPU's key labels only, in two groups of about the same size; the share of the throttle
window each thermal or power reason was active; and the highest utilization over the idle
window. When a target is down, the targets page says why (asked as soon as ``up`` is in).
"""

from __future__ import annotations

import math
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Any

from gpuprof.fleet.client import FleetError, PrometheusClient, Target
from gpuprof.fleet.findings import fleet_findings
from gpuprof.fleet.model import SIMULATED_SOURCE, Fleet, FleetGpu, FleetNode, FleetQuery, NodeKey
from gpuprof.fleet.selector import GPU_LABELS

__all__ = [
    "THROTTLE_BITS",
    "FleetQuery",
    "gpu_key",
    "node_selector",
    "read_fleet",
]

_MIB = float(2**20)

#: Prometheus name → (FleetGpu attribute, scale to our unit, lowest, highest sane value).
_VALUES: dict[str, tuple[str, float, float, float]] = {
    "DCGM_FI_DEV_GPU_UTIL": ("util_pct", 1.0, 0.0, 100.0),
    "DCGM_FI_PROF_SM_ACTIVE": ("sm_active_pct", 100.0, 0.0, 100.0),
    "DCGM_FI_PROF_GR_ENGINE_ACTIVE": ("gr_active_pct", 100.0, 0.0, 100.0),
    "DCGM_FI_DEV_FB_USED": ("mem_used_bytes", _MIB, 0.0, 2.0**50),
    "DCGM_FI_DEV_FB_FREE": ("mem_free_bytes", _MIB, 0.0, 2.0**50),
    "DCGM_FI_DEV_GPU_TEMP": ("temp_c", 1.0, -60.0, 250.0),
    "DCGM_FI_DEV_POWER_USAGE": ("power_w", 1.0, 0.0, 1e5),
    "DCGM_FI_DEV_POWER_MGMT_LIMIT": ("power_limit_w", 1.0, 0.0, 1e5),
    "DCGM_FI_DEV_XID_ERRORS": ("xid", 1.0, 0.0, 1e9),
    "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL": ("ecc_dbe", 1.0, 0.0, 1e18),
    "DCGM_FI_DEV_ECC_DBE_AGG_TOTAL": ("ecc_dbe_agg", 1.0, 0.0, 1e18),
    "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL": ("ecc_sbe", 1.0, 0.0, 1e18),
    "DCGM_FI_DEV_ROW_REMAP_FAILURE": ("row_remap_failure", 1.0, 0.0, 1.0),
    "gpuprof_pcie_link_gen": ("pcie_gen", 1.0, 1.0, 16.0),
    "DCGM_FI_DEV_PCIE_LINK_GEN": ("pcie_gen", 1.0, 1.0, 16.0),
    "gpuprof_pcie_link_width": ("pcie_width", 1.0, 1.0, 64.0),
    "DCGM_FI_DEV_PCIE_LINK_WIDTH": ("pcie_width", 1.0, 1.0, 64.0),
    "gpuprof_gpu_lost": ("lost", 1.0, 0.0, 1.0),
    "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS": ("reasons", 1.0, 0.0, 2.0**32),
    "DCGM_FI_DEV_CLOCKS_EVENT_REASONS": ("reasons", 1.0, 0.0, 2.0**32),
}

#: The thermal and power throttle reasons: gpuprof's ``reason`` label → NVML's bit.
THROTTLE_BITS: dict[str, int] = {
    "sw_power_cap": 0x4,
    "hw_slowdown": 0x8,
    "sw_thermal_slowdown": 0x20,
    "hw_thermal_slowdown": 0x40,
    "hw_power_brake_slowdown": 0x80,
}

#: The GPU series every exporter serves (MIG instances included): what lists a GPU, and
#: the one whose labels (model, host, UUID, the holder's pod) are read.
_LABELLED = "DCGM_FI_DEV_FB_USED"
_PRESENCE = (_LABELLED,)
#: The labels that make a GPU (see :func:`gpu_key`), for ``by (...)``.
_KEY = "job, instance, gpu, GPU_I_ID"
#: Per target: Prometheus's ``up``, gpuprof's ``gpuprof_source_up`` and ``gpuprof_source_info``
#: (with all its labels: ``source="simulated"`` marks a demo exporter).
_TARGET_SERIES = ("up", "gpuprof_source_up", "gpuprof_source_info")
#: The other values, in two groups of about the same number of series (names that fill the
#: same attribute stay in one group, in Prometheus's order: which one wins does not change).
_GROUP0 = (
    "DCGM_FI_DEV_GPU_UTIL",
    "DCGM_FI_PROF_SM_ACTIVE",
    "DCGM_FI_PROF_GR_ENGINE_ACTIVE",
    "DCGM_FI_DEV_FB_FREE",
    "DCGM_FI_DEV_GPU_TEMP",
    "DCGM_FI_DEV_POWER_USAGE",
    "DCGM_FI_DEV_POWER_MGMT_LIMIT",
)
_VALUE_GROUPS = (_GROUP0, tuple(n for n in _VALUES if n != _LABELLED and n not in _GROUP0))
_GROUP_NAMES = tuple(f"values{i}" for i in range(len(_VALUE_GROUPS)))
#: The labels read from the labelled series: the model, host, UUID, the holder's pod or job.
_KEPT_LABELS = ("Hostname", "modelName", "UUID", "pod", "namespace", "hpc_job", "node")
_DCGM_ONLY = ("DCGM_FI_DEV_CLOCK_THROTTLE_REASONS", "DCGM_FI_DEV_CLOCKS_EVENT_REASONS")

#: A GPU series' key inside its node: the index (or device, or UUID) and the MIG instance.
GpuKey = tuple[str, str, str, str]


def gpu_key(labels: Mapping[str, str]) -> GpuKey:
    """``(job, instance, gpu, MIG instance)`` of a series; extra labels (a pod, the driver
    version) do not make another GPU."""
    gpu = labels.get("gpu") or labels.get("device") or labels.get("UUID") or ""
    return (labels.get("job", ""), labels.get("instance", ""), gpu, labels.get("GPU_I_ID", ""))


def node_selector(key: NodeKey) -> str:
    """PromQL matchers for one node: ``job="…", instance="…"`` with the values escaped."""
    return f"job={_quote(key[0])}, instance={_quote(key[1])}"


def _quote(value: str) -> str:
    escaped = value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def _regex(names: Iterable[str]) -> str:
    return '__name__=~"' + "|".join(names) + '"'


def attr_is_ratio(name: str) -> bool:
    return name.endswith("_UTIL") or name.startswith("DCGM_FI_PROF")


class _Gpu:
    """A GPU being assembled from many series."""

    __slots__ = ("labels", "present", "reasons", "throttle", "values")

    def __init__(self, labels: Mapping[str, str]) -> None:
        self.labels = dict(labels)
        self.values: dict[str, float] = {}
        self.throttle: dict[str, float] = {}
        self.reasons: float | None = None
        self.present = False


def _workload(labels: Mapping[str, str]) -> str:
    if labels.get("hpc_job"):
        return labels["hpc_job"]
    pod = labels.get("pod", "")
    if pod:
        ns = labels.get("namespace", "")
        return f"{ns}/{pod}" if ns else pod
    return ""


def _node_name(labels: Mapping[str, str], instance: str) -> str:
    for name in ("node", "Hostname", "kubernetes_node", "nodename"):
        if labels.get(name):
            return labels[name]
    return instance


def read_fleet(
    client: PrometheusClient,
    query: FleetQuery | None = None,
    *,
    clock: Callable[[], float] = time.time,
) -> Fleet:
    """Ask Prometheus about the fleet once: nodes, GPUs, values and findings."""
    q = query or FleetQuery()
    sel = q.selector
    now = clock()
    reason_matcher = f'reason=~"{"|".join(THROTTLE_BITS)}"'
    throttled = sel.for_gpus("gpuprof_clocks_event_reasons", reason_matcher)

    def values(group: tuple[str, ...]) -> Callable[[], Any]:
        promql = f"max by (__name__, {_KEY}) ({sel.for_gpus('', _regex(group))})"
        return lambda: client.query_vector(promql)

    def targets() -> tuple[list[tuple[dict[str, str], float, float]], list[Target]]:
        """The targets' health and, when one is down (``up`` 0), the targets page at once,
        while the other queries are still running: it says why (none asked: no node is down)."""
        up = client.query_vector(sel.for_targets("", _regex(_TARGET_SERIES)))
        if any(v < 1.0 and labels.get("__name__") == "up" for labels, _, v in up):
            return up, _targets_or_none(client)
        return up, []

    calls: dict[str, Callable[[], Any]] = {
        "targets": targets,
        "series": lambda: client.series(
            [sel.for_gpus("", _regex(_PRESENCE))], start_s=now - q.lookback_s
        ),
        # The memory series with all their labels (model, host, UUID, the holder's pod); every
        # other value with the GPU's key labels only (half the bytes to send and parse), in
        # two queries that Prometheus evaluates side by side.
        "labelled": lambda: client.query_vector(sel.for_gpus(_LABELLED)),
        **{name: values(group) for name, group in zip(_GROUP_NAMES, _VALUE_GROUPS, strict=True)},
        "throttle": lambda: client.query_vector(_throttle_query(throttled, q.throttle_window_s)),
        "idle": lambda: client.query_vector(
            f"max by ({_KEY}) (max_over_time("
            f"{sel.for_gpus('DCGM_FI_DEV_GPU_UTIL')}[{_dur(q.idle_window_s)}]))"
        ),
    }
    with ThreadPoolExecutor(max_workers=len(calls), thread_name_prefix="gpuprof-fleet") as pool:
        futures = {name: pool.submit(fn) for name, fn in calls.items()}
        answers = {name: f.result() for name, f in futures.items()}
    answers["values"] = [s for name in ("labelled", *_GROUP_NAMES) for s in answers[name]]
    answers["targets"], pages = answers["targets"]
    nodes = _build(answers, q, gpu_filtered=any(m.name in GPU_LABELS for m in sel.matchers))
    if pages:  # asked when ``up`` showed a node down
        errors = {
            (t.labels.get("job", ""), t.labels.get("instance", "")): t.last_error for t in pages
        }
        nodes = [replace(n, last_error=errors.get(n.key, "")) if n.down else n for n in nodes]
    findings = fleet_findings(nodes, q)
    return Fleet(
        url=client.url,
        time_s=now,
        selector=sel.text,
        nodes=tuple(nodes),
        findings=findings,
        skipped_series=client.skipped,
    )


def _throttle_query(throttled: str, window_s: float) -> str:
    """The active thermal and power reasons of gpuprof's exporters: at the latest sample
    (``window_s`` 0: an instant selector, a quarter of the cost), else the share of the window
    each was active."""
    if window_s <= 0:
        return f"max by ({_KEY}, reason) ({throttled} == 1)"
    return f"max by ({_KEY}, reason) (avg_over_time({throttled}[{_dur(window_s)}]) > 0)"


def _dur(seconds: float) -> str:
    return f"{max(1, round(seconds))}s"


def _targets_or_none(client: PrometheusClient) -> list[Target]:
    try:
        return client.targets()
    except FleetError:  # a Prometheus behind a proxy may not serve the targets page
        return []


def _build(
    answers: Mapping[str, Any], q: FleetQuery, *, gpu_filtered: bool = False
) -> list[FleetNode]:
    """The nodes of the answers. A target with no GPU series is a node when its job serves
    GPU series elsewhere, or it is a gpuprof exporter (its GPUs may all be stale), unless the
    selector picks GPUs by their own labels: then only nodes with matching GPUs count."""
    gpus: dict[GpuKey, _Gpu] = {}
    ups: dict[NodeKey, tuple[dict[str, str], bool | None, bool | None]] = {}
    kinds: dict[NodeKey, str] = {}

    def gpu_of(labels: Mapping[str, str]) -> _Gpu:
        key = gpu_key(labels)
        g = gpus.get(key)
        if g is None:
            g = gpus[key] = _Gpu(labels)
        return g

    for labels in answers["series"]:
        gpu_of(labels)
    for labels, _, raw in answers["values"]:  # 5,000+ series: gpu_of and _sane inlined
        get = labels.get
        name = get("__name__", "")
        spec = _VALUES.get(name)
        if spec is None:
            continue
        gpu = get("gpu")
        if not (gpu or get("UUID")):
            continue
        node = (get("job", ""), get("instance", ""))
        gkey = (*node, gpu or get("device") or get("UUID") or "", get("GPU_I_ID", ""))
        g = gpus.get(gkey)
        if g is None:
            g = gpus[gkey] = _Gpu(labels)
        g.present = True
        if name.startswith("gpuprof_"):
            kinds[node] = "gpuprof"
        elif node not in kinds:
            kinds[node] = "dcgm-exporter"
        if name == _LABELLED:  # the one series queried with all its labels
            have = g.labels
            for label in _KEPT_LABELS:
                if get(label) and not have.get(label):
                    have[label] = labels[label]
        attr, scale, lo, hi = spec
        if raw != raw:  # NaN
            continue
        value = raw * scale
        if hi < value <= hi * 1.05 and attr_is_ratio(name):
            value = hi  # a rounding overshoot (100.4 %), not an absurd value
        if not lo <= value <= hi:
            continue
        if attr == "reasons":
            g.reasons = value
        else:
            g.values[attr] = value
    for labels, _, value in answers["throttle"]:
        reason = labels.get("reason", "")
        if reason in THROTTLE_BITS and not math.isnan(value) and 0.0 < value <= 1.0:
            gpu_of(labels).throttle[reason] = value
    idle: dict[GpuKey, float] = {}
    for labels, _, value in answers["idle"]:
        if not math.isnan(value):
            idle[gpu_key(labels)] = max(0.0, value)
    sources: dict[NodeKey, str] = {}
    for labels, _, value in answers["targets"]:
        key = (labels.get("job", ""), labels.get("instance", ""))
        series = labels.get("__name__")
        if series == "gpuprof_source_info":
            kinds[key] = "gpuprof"
            sources[key] = labels.get("source", "")
            continue
        target, up, source_up = ups.get(key, ({}, None, None))
        flag = None if math.isnan(value) else value >= 1.0
        if series == "up":
            target = {k: v for k, v in labels.items() if k not in ("__name__", "job", "instance")}
            up = flag
        else:
            source_up = flag
            kinds[key] = "gpuprof"
        ups[key] = (target, up, source_up)

    gpu_jobs = {key[0] for key in gpus}
    node_keys = {(k[0], k[1]) for k in gpus}
    if not gpu_filtered:
        node_keys |= {k for k in ups if k[0] in gpu_jobs or k in kinds}
    members: dict[NodeKey, list[tuple[GpuKey, _Gpu]]] = defaultdict(list)
    for gkey, g in gpus.items():
        members[(gkey[0], gkey[1])].append((gkey, g))
    nodes: list[FleetNode] = []
    for node_key in node_keys:
        labels, up, source_up = ups.get(node_key, ({}, None, None))
        mine = members.get(node_key, [])
        name = labels.get("node") or next(
            (_node_name(g.labels, "") for _, g in mine if _node_name(g.labels, "")), node_key[1]
        )
        source = sources.get(node_key, "")
        simulated = source == SIMULATED_SOURCE
        built = [_finish(key, g, name, idle.get(key), up, simulated) for key, g in mine]
        nodes.append(
            FleetNode(
                job=node_key[0],
                instance=node_key[1],
                name=name,
                labels=labels,
                up=up,
                source_up=source_up,
                exporter=kinds.get(node_key, ""),
                source=source,
                gpus=tuple(sorted(built, key=_gpu_order)),
            )
        )
    return _unique_names(sorted(nodes, key=lambda n: (n.cluster, n.name, n.job, n.instance)))


def _finish(
    key: GpuKey,
    g: _Gpu,
    node: str,
    idle_max: float | None,
    up: bool | None,
    simulated: bool = False,
) -> FleetGpu:
    labels = g.labels
    v = g.values
    down = up is False
    throttle = dict(g.throttle)
    if g.reasons is not None:
        mask = int(g.reasons)
        for reason, bit in THROTTLE_BITS.items():
            if mask & bit:
                throttle.setdefault(reason, 1.0)
    sm = v.get("sm_active_pct", v.get("gr_active_pct"))
    ecc_dbe = v.get("ecc_dbe", v.get("ecc_dbe_agg"))
    return FleetGpu(
        job=key[0],
        instance=key[1],
        node=node,
        gpu=key[2],
        uuid=labels.get("UUID", ""),
        model_name=labels.get("modelName", ""),
        hostname=labels.get("Hostname", ""),
        mig_instance=key[3],
        workload=_workload(labels),
        util_pct=v.get("util_pct"),
        sm_active_pct=sm,
        mem_used_bytes=v.get("mem_used_bytes"),
        mem_free_bytes=v.get("mem_free_bytes"),
        temp_c=v.get("temp_c"),
        power_w=v.get("power_w"),
        power_limit_w=v.get("power_limit_w"),
        xid=v.get("xid"),
        ecc_dbe=ecc_dbe,
        ecc_sbe=v.get("ecc_sbe"),
        row_remap_failure=v.get("row_remap_failure"),
        pcie_gen=v.get("pcie_gen"),
        pcie_width=v.get("pcie_width"),
        lost=v.get("lost", 0.0) >= 1.0,
        throttle=tuple(sorted(throttle.items())),
        idle_max_util_pct=idle_max,
        stale=not g.present and not down,
        down=down,
        simulated=simulated,
    )


def _gpu_order(g: FleetGpu) -> tuple[int, str, str]:
    try:
        index = int(g.gpu)
    except ValueError:
        index = 1 << 30
    return (index, g.gpu, g.mig_instance)


def _unique_names(nodes: list[FleetNode]) -> list[FleetNode]:
    """Machines that report the same host name (copies of one image, simulated ones) are told
    apart by their scrape target."""
    count: dict[str, int] = defaultdict(int)
    for n in nodes:
        count[n.name] += 1
    out = []
    for n in nodes:
        if count[n.name] > 1 and n.name != n.instance:
            name = f"{n.name} ({n.instance})"
            n = replace(n, name=name, gpus=tuple(replace(g, node=name) for g in n.gpus))
        out.append(n)
    return out
