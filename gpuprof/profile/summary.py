"""A job profile in words (the terminal summary) and as its documented JSON.

:func:`summary_lines` gives plain text lines (no markup): every piece that came from outside (the
command line, the job's name, mark labels) is passed through the terminal's safety filter by the
caller's console (:func:`gpuprof.termtext.safe`). :func:`profile_json` is the ``--json`` document
described in ``docs/profile-schema.md``: the codec of the profile with every field present, secrets
in the command line hidden as in reports, and non-finite numbers null (:mod:`gpuprof.jsonout`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gpuprof.i18n import N_, tr, tr_text
from gpuprof.profile.model import JobProfile
from gpuprof.units import fmt_bytes, fmt_duration, fmt_num, fmt_pct

__all__ = ["profile_json", "summary_lines"]


def profile_json(
    profile: JobProfile, *, recording: Path | None = None, trace: Path | None = None
) -> dict[str, Any]:
    """The ``--json`` document (strict JSON once through :func:`gpuprof.jsonout.dumps`)."""
    from gpuprof.redact import redact_tree
    from gpuprof.telemetry.codec import to_jsonable

    data: dict[str, Any] = {"schema_version": profile.schema_version}
    body = to_jsonable(redact_tree(profile), keep_defaults=True)
    body.pop("schema_version", None)
    data.update(body)
    data["wall_s"] = profile.wall_s
    data["simulated"] = profile.source == "simulated"
    data["recording"] = str(recording) if recording is not None else None
    data["trace"] = str(trace) if trace is not None else None
    return data


def _kwh(joules: float | None) -> str:
    return "—" if joules is None else f"{joules / 3.6e6:.6f} kWh"


def _j(joules: float | None) -> str:
    if joules is None:
        return "—"
    return f"{joules / 1000:.3g} kJ" if joules >= 1000 else f"{joules:.3g} J"


def summary_lines(profile: JobProfile) -> list[str]:
    """The summary printed when a job ends, one line each (plain text)."""
    from gpuprof.redact import redact_tree

    p = redact_tree(profile)
    lines: list[str] = []
    sim = " (SIMULATED)" if p.source == "simulated" else ""
    if p.exit_signal:
        ended = tr("killed by {s}", s=p.exit_signal)
    elif p.exit_code is not None:
        ended = tr("exit code {c}", c=p.exit_code)
    else:
        ended = tr("exit code unknown (attached)")
    lines.append(tr("Job profile: {n}{sim} — {e}", n=p.name, sim=sim, e=ended))
    lines.append(tr("  command: {c}", c=" ".join(p.command) or "—"))
    gpus = ", ".join(str(i) for i in p.gpu_indices) or tr("none")
    lines.append(
        tr(
            "  wall time {w} · GPUs {g} · GPU time {s}",
            w=fmt_duration(p.wall_s),
            g=gpus,
            s=fmt_duration(p.gpu_seconds),
        )
    )
    for g in p.gpus:
        prof = (
            tr(
                "SM {s} · tensor {t} · DRAM {d}",
                s=_pct(g.sm_active_mean_pct),
                t=_pct(g.tensor_active_mean_pct),
                d=_pct(g.dram_active_mean_pct),
            )
            if g.prof_unavailable is None
            else tr("SM/tensor/DRAM unavailable ({why})", why=g.prof_unavailable)
        )
        lines.append(
            tr(
                "  GPU {i} {name}: util {u} · {prof}",
                i=g.index,
                name=g.name,
                u=_pct(g.util_gpu_mean_pct),
                prof=prof,
            )
        )
        lines.append(
            tr(
                "    memory peak {m} (job {j}, others {o}) · power {p} · energy {e} ({k}) · "
                "SM clock {c}",
                m=fmt_bytes(g.mem_peak_bytes),
                j=fmt_bytes(g.job_mem_peak_bytes),
                o=fmt_bytes(g.others_mem_peak_bytes),
                p=fmt_num(g.power_mean_w, "W"),
                e=_j(g.energy_j),
                k=_kwh(g.energy_j),
                c=fmt_num(g.clock_sm_mean_mhz, "MHz"),
            )
        )
        if g.throttle_s:
            spent = ", ".join(f"{name} {fmt_duration(s)}" for name, s in g.throttle_s)
            lines.append(tr("    throttled: {t}", t=spent))
        if g.pcie_rx_bytes is not None or g.nvlink_rx_bytes is not None:
            lines.append(
                tr(
                    "    PCIe rx {a} / tx {b} · NVLink rx {c} / tx {d}",
                    a=fmt_bytes(g.pcie_rx_bytes),
                    b=fmt_bytes(g.pcie_tx_bytes),
                    c=fmt_bytes(g.nvlink_rx_bytes),
                    d=fmt_bytes(g.nvlink_tx_bytes),
                )
            )
    h = p.host
    lines.append(
        tr(
            "  host: CPU {c} mean, {cp} peak · RSS peak {r} · disk read {dr} / write {dw} · "
            "processes {n}",
            c=_pct(h.cpu_mean_pct),
            cp=_pct(h.cpu_peak_pct),
            r=fmt_bytes(h.rss_peak_bytes),
            dr=fmt_bytes(h.read_bytes),
            dw=fmt_bytes(h.write_bytes),
            n="—" if h.processes_peak is None else h.processes_peak,
        )
    )
    if p.phases:
        lines.append(tr("  phases: {p}", p=_phases(p)))
    s = p.steps
    if s is not None:
        lines.append(
            tr(
                "  steps: {n} · step time P50 {a} / P90 {b} / P99 {c} · trend {t}",
                n=s.count,
                a=_secs(s.p50_s),
                b=_secs(s.p90_s),
                c=_secs(s.p99_s),
                t="—" if s.trend_pct is None else f"{s.trend_pct:+.1f} %",
            )
        )
        lines.append(
            tr(
                "    tokens/s {t} · samples/s {s} · TFLOPS {f} · MFU {m}",
                t=fmt_num(s.tokens_per_s, digits=1),
                s=fmt_num(s.samples_per_s, digits=1),
                f=fmt_num(s.achieved_tflops, digits=3),
                m=_pct(s.mfu_pct),
            )
        )
    b = p.breakdown
    if b is not None:
        shares = " · ".join(f"{x.category} {x.share_pct:.0f} %" for x in b.shares)
        lines.append(tr("  where the time goes ({d}): {s}", d=b.device, s=shares or "—"))
    for f in p.findings:
        lines.append(f"  [{f.severity.label}] {f.title}")
    for note in p.notes:
        lines.append(tr("  note: {n}", n=tr_text(note)))
    if p.markers_skipped:
        lines.append(tr("  note: {n} marker lines were not markers", n=p.markers_skipped))
    return lines


def _phases(p: JobProfile) -> str:
    """The detected phases one by one, then each mark label once: how often, how long in all."""
    detected = (N_("startup"), N_("steady"), N_("tail"))
    parts = [
        f"{tr(ph.name)} {fmt_duration(ph.duration_s)}" for ph in p.phases if ph.name in detected
    ]
    labels: dict[str, tuple[int, float]] = {}
    for ph in p.phases:
        if ph.name not in detected:
            n, total = labels.get(ph.name, (0, 0.0))
            labels[ph.name] = (n + 1, total + ph.duration_s)
    for label, (n, total) in labels.items():
        times = f" ×{n}" if n > 1 else ""
        parts.append(f"{label}{times} {fmt_duration(total)}")
    return " · ".join(parts)


def _pct(value: float | None) -> str:
    return fmt_pct(value)


def _secs(value: float | None) -> str:
    if value is None:
        return "—"
    return f"{value * 1000:.1f} ms" if value < 1 else f"{value:.3g} s"
