"""``gpuprof recommend --from-profile RUN.gpuprof [--steps N | --tokens T]``: the profiled job on
every catalog instance (:mod:`gpuprof.profile.project`), the ones that fit first, by cost."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gpuprof.commands.tables import folded_table
from gpuprof.errors import InputError
from gpuprof.i18n import N_, tr, tr_text

if TYPE_CHECKING:
    from gpuprof.profile.model import JobProfile, Projection
    from gpuprof.profile.project import Basis

__all__ = ["WORKLOAD_FLAGS", "load_profile", "run"]

#: Flags that describe a workload by hand: the recording describes it with --from-profile.
WORKLOAD_FLAGS = (
    ("preset", "--preset"),
    ("scenario", "--scenario"),
    ("params", "--params"),
    ("model", "--model"),
    ("precision", "--precision"),
    ("samples", "--samples"),
    ("epochs", "--epochs"),
    ("seq_len", "--seq-len"),
    ("batch", "--batch"),
    ("flops", "--flops"),
    ("deadline", "--deadline"),
    ("throughput", "--throughput"),
    ("budget", "--budget"),
    ("nodes", "--nodes"),
    ("gpu", "--gpu"),
    ("gpus", "--gpus"),
    ("instance", "--instance"),
    ("local_gpu", "--local-gpu"),
    ("util", "--util"),
    ("prompt_len", "--prompt-len"),
    ("output_len", "--output-len"),
    ("rate", "--rate"),
    ("ttft", "--ttft"),
    ("tpot", "--tpot"),
    ("slo", "--slo"),
    ("kv_dtype", "--kv-dtype"),
    ("tp", "--tp"),
    ("kv_admission", "--kv-admission"),
    ("attention_kernel", "--attention-kernel"),
    ("sampler", "--sampler"),
    ("attention_dp", "--attention-dp"),
    ("trace", "--trace"),
    ("stack", "--stack"),
    ("recompute", "--recompute"),
    ("layout", "--layout"),
    ("billing", "--billing"),
)


def load_profile(path: str | Path) -> JobProfile:
    """The job profile of a recording; :class:`InputError` naming the file when it has none."""
    from gpuprof.profile.storage import read_job_profile

    p = Path(path)
    profile = read_job_profile(p)  # an unusable file: InputError naming it
    if profile is None:
        raise InputError(
            tr(
                "{p}: no job profile in this recording (record one with `gpuprof profile -- CMD`)",
                p=p,
            )
        )
    return profile


def _check_flags(args: argparse.Namespace) -> None:
    given = [flag for dest, flag in WORKLOAD_FLAGS if getattr(args, dest, None) not in (None, [])]
    given += ["--measured"] if getattr(args, "measured", None) else []
    if given:
        raise InputError(
            tr(
                "--from-profile takes the workload from the recording; drop {f}",
                f=", ".join(given),
            )
        )


def run(args: argparse.Namespace) -> int:
    """``recommend --from-profile``: a table (or ``--json``) of the job on each instance."""
    from gpuprof.catalog.instances import load_catalog
    from gpuprof.profile.project import basis_of, project

    _check_flags(args)
    if args.steps is not None and args.tokens is not None:
        raise InputError(tr("give --steps or --tokens, not both"))
    profile = load_profile(args.from_profile)
    basis = basis_of(profile, steps=args.steps, tokens=args.tokens)
    if basis.gpu_count == 0:  # issue 23: never scaled into nonsense ($0.00 rows)
        from gpuprof.profile.project import CPU_REFUSAL

        raise InputError(
            tr("{file}: {why}", file=str(args.from_profile)[:200], why=tr_text(CPU_REFUSAL))
        )
    cat = load_catalog()
    providers = [p for p in args.provider.split(",") if p.strip()] if args.provider else None
    if providers:
        cat = cat.filter(providers=providers)
    rows = project(profile, cat, steps=args.steps, tokens=args.tokens)
    shown = rows[: args.limit]
    if args.json:
        _print_json(profile, basis, rows, shown)
    else:
        _print_table(profile, basis, shown, len(rows), sum(1 for r in rows if r.fits))
    return 0


def _print_json(
    profile: JobProfile, basis: Basis, rows: list[Projection], shown: list[Projection]
) -> None:
    from gpuprof.jsonout import print_json
    from gpuprof.redact import redact_text

    out = {
        "job": redact_text(profile.name, 300),
        "source": redact_text(profile.source, 40),
        "basis": {
            "step_s": basis.step_s,
            "step": basis.step_text,
            "job_steps": basis.job_steps,
            "job": basis.job_text,
            "here": redact_text(basis.here, 300),
            "gpu_count": basis.gpu_count,
            "dtype": basis.dtype,
            "split": {
                "compute": basis.split.compute,
                "memory": basis.split.memory,
                "collectives": basis.split.collectives,
                "idle": basis.split.fixed,
                "source": basis.split.source,
                "text": basis.split.text,
            },
            "mem_peak_bytes": basis.mem_peak_bytes,
            "memory": basis.mem_text,
            "notes": [redact_text(n, 300) for n in basis.notes],
            # issue 23: the model's matmul time for this step here beside the measured compute
            "model_compute_s": basis.model_compute_s,
            "measured_compute_s": basis.measured_compute_s,
        },
        "candidates": len(rows),
        "fit": sum(1 for r in rows if r.fits),
        "rows": [_row_json(r) for r in shown],
    }
    print_json(out)


def _row_json(r: Projection) -> dict[str, object]:
    """A row: unknowns are null with a ``<field>_reason``."""
    from gpuprof.telemetry.codec import to_jsonable

    d: dict[str, object] = to_jsonable(r, keep_defaults=True)
    if r.step_s is None:
        for key in ("step_s", "job_hours", "speedup_vs_here"):
            d[key + "_reason"] = r.derivation
    # issue 23: the band of the step, the job time and the costs (None where there is none)
    for key in ("step_s", "job_hours", "cost_ondemand_usd", "cost_spot_usd", "cost_reserved_usd"):
        value = getattr(r, key)
        for end, ratio in (("low", r.time_ratio_low), ("high", r.time_ratio_high)):
            d[f"{key}_{end}"] = value * ratio if value is not None and ratio is not None else None
    for key in ("cost_ondemand_usd", "cost_spot_usd", "cost_reserved_usd"):
        if d.get(key) is None and key + "_reason" not in d:
            d[key + "_reason"] = (
                "time unknown" if r.job_hours is None else "no such price in the catalog"
            )
    return d


def _short(r: Projection) -> str:
    """The derivation in a table cell: the scale factors of the step's shares."""
    parts = []
    if r.compute_ratio:
        parts.append(tr("compute ×{r}", r=f"{1 / r.compute_ratio:.2g}"))
    if r.memory_ratio:
        parts.append(tr("mem ×{r}", r=f"{1 / r.memory_ratio:.2g}"))
    if r.step_s is None:
        if r.derivation.count("; ") < 2:
            return "—"
        from gpuprof.profile.project import shown_derivation

        return shown_derivation(r.derivation.rsplit("; ", 2)[-2])
    return ", ".join(parts) or "—"


def _print_table(
    profile: JobProfile, basis: Basis, rows: list[Projection], total: int, fit: int
) -> None:
    from rich.text import Text

    from gpuprof.commands.recommend.output import LEAD_COLUMNS
    from gpuprof.profile.project import fmt_step, shown_derivation
    from gpuprof.termtext import console, plain, styled
    from gpuprof.units import NA, fmt_bytes, fmt_usd

    con = console()
    name = plain(profile.name, one_line=True, max_len=80) or tr("job")
    for line in basis.lines():
        con.print(plain(line, one_line=True), highlight=False)
    title = tr(
        "{name}: projected onto {n} catalog instances ({f} fit); cheapest first",
        name=name,
        n=total,
        f=fit,
    )
    table = folded_table(
        title,
        (
            *LEAD_COLUMNS,
            N_("step"),
            N_("job time"),
            N_("on-demand"),
            N_("spot"),
            N_("1y reserved"),
            N_("vs here"),
            N_("derivation"),
        ),
    )

    def usd(v: float | None) -> str:
        return fmt_usd(v, digits=2 if v < 100 else 0) if v is not None else NA

    for k, r in enumerate(rows, 1):
        mem: str | Text = f"{fmt_bytes(r.mem_need_bytes)}/{fmt_bytes(r.mem_per_gpu_bytes)}"
        if not r.fits:
            mem = styled(mem, "red")
        gpus = f"{r.gpu_fraction:g}" if r.gpu_fraction is not None else str(r.gpu_count)
        table.add_row(
            str(k),
            plain(f"{r.provider} {r.instance_type}", one_line=True, max_len=80),
            plain(r.region, one_line=True, max_len=40) or NA,
            plain(f"{gpus}× {r.gpu_model}", one_line=True, max_len=60),
            mem,
            fmt_step(r.step_s) if r.step_s is not None else NA,
            _job_time(r),
            usd(r.cost_ondemand_usd),
            usd(r.cost_spot_usd),
            usd(r.cost_reserved_usd),
            f"{r.speedup_vs_here:.2g}×" if r.speedup_vs_here is not None else NA,
            plain(_short(r), one_line=True, max_len=120),
        )
    con.print(table)
    for k, r in enumerate(rows[:3], 1):
        con.print(styled(plain(f"{k}. {r.provider} {r.instance_type}", one_line=True), "bold"))
        con.print(f"   {plain(shown_derivation(r.derivation), one_line=True)}", highlight=False)
        if r.time_ratio_low is not None and r.time_ratio_high is not None:
            line = tr(
                "error band × {lo:.2f}–{hi:.2f}: 10th–90th percentile over {n} {basis}",
                lo=r.time_ratio_low,
                hi=r.time_ratio_high,
                n=r.band_rows,
                basis=tr_text(r.band_basis),
            )
            con.print(f"   • {plain(line, one_line=True)}", highlight=False)


def _job_time(r: Projection) -> str:
    """The job time, with its band where there is one: ``3.2 h (2.9–3.8 h)``."""
    from gpuprof.profile.project import fmt_step
    from gpuprof.units import NA

    if r.job_hours is None:
        return NA
    text = fmt_step(r.job_hours * 3600)
    if r.time_ratio_low is None or r.time_ratio_high is None:
        return text
    lo = fmt_step(r.job_hours * 3600 * r.time_ratio_low)
    hi = fmt_step(r.job_hours * 3600 * r.time_ratio_high)
    return f"{text} ({lo}–{hi})"


def add_arguments(p: Any) -> None:
    """``--from-profile`` and ``--steps`` on ``gpuprof recommend``'s parser."""
    from gpuprof.argtypes import positive_int

    g = p.add_argument_group(tr("a profiled job instead of a workload"))
    g.add_argument(
        "--from-profile",
        metavar="RUN.gpuprof",
        help=tr(
            "project a job recorded by `gpuprof profile` onto the catalog: its measured step "
            "time scaled by peak and bandwidth ratios (with --steps N or --tokens T)"
        ),
    )
    g.add_argument(
        "--steps",
        type=positive_int(10**12),
        help=tr("with --from-profile: steps of the whole job (default: as profiled)"),
    )
