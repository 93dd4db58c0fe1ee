"""Fleet-wide findings: what stands out when many GPUs are seen side by side.

- ``exporter_down``: Prometheus cannot scrape the node (``up == 0``): its GPUs are unseen.
- ``source_down``: a gpuprof exporter answers but has no GPU data (``gpuprof_source_up == 0``).
- ``gpu_lost``: a GPU fell off the bus (``gpuprof_gpu_lost``), or stopped reporting while its
  exporter is up (dcgm-exporter stops serving a lost GPU).
- ``xid``, ``ecc_dbe``, ``row_remap_failure``: errors that need the GPU drained and checked.
- ``throttle_outlier``: a GPU throttled (thermal or power) while most of its siblings on the
  node are not: its cooling or its power delivery, not the workload.
- ``pcie_below_max``: a link narrower than others of the same model, or a lower generation
  while busy (links drop their generation when idle, so idle GPUs are not compared).
- ``idle_held``: a GPU at ~0 % over the whole idle window while memory is held or a job is
  mapped to it: a job that holds a GPU it does not use.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import replace

from gpuprof.findings import Severity
from gpuprof.fleet.model import FleetFinding, FleetGpu, FleetNode, FleetQuery
from gpuprof.i18n import N_, tr

__all__ = ["BUSY_UTIL_PCT", "THROTTLED_SHARE", "fleet_findings"]

#: A reason active for at least this share of the throttle window counts as throttling.
THROTTLED_SHARE = 0.5
#: Above this utilization a PCIe link should be at its full generation.
BUSY_UTIL_PCT = 10.0
_GIB = float(2**30)
#: Error counters critical at any count above 0: (the FleetGpu field, also the finding's code,
#: title, detail); ``{n}`` is the count, ``{g}`` the GPU.
_ERROR_COUNTERS = (
    (
        "xid",
        N_("XID {n} on {g}"),
        N_("The driver reported XID error {n} (DCGM_FI_DEV_XID_ERRORS)."),
    ),
    (
        "ecc_dbe",
        N_("Double-bit ECC errors on {g}"),
        N_("{n} uncorrectable (double-bit) ECC errors."),
    ),
    (
        "row_remap_failure",
        N_("Row remapping failed on {g}"),
        N_("The GPU could not remap a failing memory row (DCGM_FI_DEV_ROW_REMAP_FAILURE)."),
    ),
)


def _throttled(g: FleetGpu) -> list[str]:
    return [reason for reason, share in g.throttle if share >= THROTTLED_SHARE]


def fleet_findings(nodes: Sequence[FleetNode], query: FleetQuery) -> tuple[FleetFinding, ...]:
    """The findings of ``nodes``, critical first."""
    out: list[FleetFinding] = []
    for node in nodes:
        out.extend(_node_findings(node))
        for g in node.gpus:
            out.extend(_gpu_findings(g, query))
        out.extend(_throttle_outliers(node))
    out.extend(_pcie(nodes))
    simulated = {n.name for n in nodes if n.simulated}
    if simulated:
        out = [replace(f, simulated=True) if f.node in simulated else f for f in out]
    out.sort(key=lambda f: (f.severity.rank, f.node, f.gpu, f.code))
    return tuple(out)


def _node_findings(node: FleetNode) -> list[FleetFinding]:
    if node.down:
        detail = tr(
            "Prometheus cannot scrape {i} (job {j}): up is 0, so its {n} GPUs are not seen.",
            i=node.instance,
            j=node.job,
            n=len(node.gpus),
        )
        if node.last_error:
            detail += " " + tr("Last error: {e}", e=node.last_error[:300])
        return [
            FleetFinding(
                "exporter_down",
                Severity.CRITICAL,
                tr("Exporter down on {n}", n=node.name),
                detail,
                tr(
                    "Check that the exporter runs on the node (systemctl status, kubectl get "
                    "pods) and that Prometheus can reach it."
                ),
                node=node.name,
            )
        ]
    if node.source_up is False:
        return [
            FleetFinding(
                "source_down",
                Severity.WARNING,
                tr("No GPU data from {n}", n=node.name),
                tr(
                    "The gpuprof exporter answers, but its last successful poll of the GPUs is "
                    "too old (gpuprof_source_up is 0)."
                ),
                tr("Look at the exporter's log on the node: the driver may be in trouble."),
                node=node.name,
            )
        ]
    return []


def _gpu_findings(g: FleetGpu, query: FleetQuery) -> list[FleetFinding]:
    out: list[FleetFinding] = []

    def add(code: str, severity: Severity, title: str, detail: str, hint: str) -> None:
        out.append(FleetFinding(code, severity, title, detail, hint, node=g.node, gpu=g.gpu))

    if g.down:
        return out
    drain = tr("Drain the node, then run `gpuprof check` or nvidia-smi -q on it.")
    if g.lost or g.stale:
        # one finding, worded by how the GPU was lost
        if g.lost:
            title = tr("{g} fell off the bus", g=g.name)
            detail = tr("The exporter reports the GPU as lost (gpuprof_gpu_lost = 1).")
        else:
            title = tr("{g} stopped reporting", g=g.name)
            detail = tr("Its exporter is up, but serves no current value for this GPU.")
        add("gpu_lost", Severity.CRITICAL, title, detail, drain)
    for code, title, detail in _ERROR_COUNTERS:
        count = getattr(g, code)
        if count is not None and count > 0:
            n = int(count)
            add(code, Severity.CRITICAL, tr(title, n=n, g=g.name), tr(detail, n=n), drain)
    idle = g.idle_max_util_pct
    held = (g.mem_used_bytes or 0.0) >= query.idle_mem_bytes or bool(g.workload)
    if idle is not None and idle <= query.idle_util_pct and held and not g.stale:
        minutes = query.idle_window_s / 60.0
        who = tr(" by {w}", w=g.workload) if g.workload else ""
        add(
            "idle_held",
            Severity.WARNING,
            tr("{g} idle but held{w}", g=g.name, w=who),
            tr(
                "At most {u:.0f} % utilization over {m:g} min while {gib:.1f} GiB of its memory "
                "is in use.",
                u=idle,
                m=minutes,
                gib=(g.mem_used_bytes or 0.0) / _GIB,
            ),
            tr("Ask the job's owner to release it, or find why the job stopped computing."),
        )
    return out


def _throttle_outliers(node: FleetNode) -> list[FleetFinding]:
    seen = [g for g in node.gpus if not g.stale and not g.down]
    if len(seen) < 2:
        return []
    throttled = {g.gpu: _throttled(g) for g in seen}
    count = sum(1 for reasons in throttled.values() if reasons)
    if count * 2 >= len(seen):
        return []  # most of the node throttles: the workload or the room, not one GPU
    out = []
    for g in seen:
        reasons = throttled[g.gpu]
        if reasons:
            out.append(
                FleetFinding(
                    "throttle_outlier",
                    Severity.WARNING,
                    tr("{g} throttles while its siblings do not", g=g.name),
                    tr(
                        "Active: {r}; {k} of the node's {n} GPUs throttle.",
                        r=", ".join(reasons),
                        k=count,
                        n=len(seen),
                    ),
                    tr(
                        "Check the GPU's cooling (fans, airflow, a blocked slot) and its power "
                        "cables; compare its temperature and power with its siblings."
                    ),
                    node=g.node,
                    gpu=g.gpu,
                )
            )
    return out


def _pcie(nodes: Sequence[FleetNode]) -> list[FleetFinding]:
    best_width: dict[str, float] = defaultdict(float)
    best_gen: dict[str, float] = defaultdict(float)
    gpus = [g for n in nodes for g in n.gpus if not g.stale and not g.down and not g.mig_instance]
    for g in gpus:
        if g.pcie_width is not None:
            best_width[g.model_name] = max(best_width[g.model_name], g.pcie_width)
        if g.pcie_gen is not None:
            best_gen[g.model_name] = max(best_gen[g.model_name], g.pcie_gen)
    out = []
    for g in gpus:
        width_low = g.pcie_width is not None and g.pcie_width < best_width[g.model_name]
        busy = g.util_pct is not None and g.util_pct >= BUSY_UTIL_PCT
        gen_low = busy and g.pcie_gen is not None and g.pcie_gen < best_gen[g.model_name]
        if not (width_low or gen_low):
            continue
        out.append(
            FleetFinding(
                "pcie_below_max",
                Severity.WARNING,
                tr("{g}: PCIe link below its peers", g=g.name),
                tr(
                    "Gen {g} x{w}, while other {m} GPUs reach Gen {bg} x{bw}.",
                    g=_int(g.pcie_gen),
                    w=_int(g.pcie_width),
                    m=g.model_name or tr("GPUs of this model"),
                    bg=_int(best_gen[g.model_name]),
                    bw=_int(best_width[g.model_name]),
                ),
                tr("Reseat the GPU or its riser, and check the slot's BIOS link settings."),
                node=g.node,
                gpu=g.gpu,
            )
        )
    return out


def _int(value: float | None) -> str:
    return "?" if value is None or value <= 0 else str(int(value))
