"""Project a profiled job onto the cloud catalog: its step time, job time and cost on each instance.

Start from the step time measured here (P50 of the step markers; without markers the steady
phase, else the whole job, as one step) and split it by what bounds it:

* from the torch breakdown: matmul + attention are compute-bound; memory copies and the other
  kernels (elementwise, norms, optimizer) memory-bound; collectives scale with the GPU-to-GPU
  link; idle gaps (the host, the input pipeline) stay as they are;
* else from NVML GPM: the busy share (GPU utilization) split as tensor (else SM) activity vs
  DRAM activity, the rest idle;
* else an assumption, :data:`ASSUMED_SPLIT`, said in every row.

There, the compute share scales by the ratio of the spec peaks at the job's dtype (the efficiency
measured here, achieved ÷ peak, carries over), the memory share by the ratio of memory
bandwidths, and collectives by the link bandwidths and the ring all-reduce's 2(n−1)/n. A job
profiled on a CPU (or a GPU without a spec row) has no peak here: its busy time is re-timed from
the FLOPs per step it reported at :data:`ASSUMED_EFFICIENCY` of the peak there.

GPU count: data parallel with the per-GPU work of here: one instance with n GPUs does one of the
job's steps (run on m GPUs here) in (its per-GPU step time) × m / n. The measured memory peak per
GPU drives the fit (≤ :data:`USABLE_MEMORY` of the instance's per-GPU memory). Job time = steps ×
step time (or tokens ÷ tokens per second); cost = hours × price (spot: hours × (1 +
:data:`~gpuprof.recommend.estimate.SPOT_OVERHEAD`)).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gpuprof.catalog.instances import Catalog, Instance
from gpuprof.catalog.names import gpu_for_nvml_name, is_mig_name
from gpuprof.catalog.specs import GpuSpec
from gpuprof.errors import InputError
from gpuprof.i18n import N_, language, tr, tr_text
from gpuprof.profile.model import JobProfile, Projection, StepStats
from gpuprof.profile.sane import sane_profile
from gpuprof.profile.split import ASSUMED_SPLIT, Split, split_of, split_short
from gpuprof.profile.split import positive as _pos
from gpuprof.recommend.estimate import BASE_EFFICIENCY, PCIE_GBS, SPOT_OVERHEAD
from gpuprof.units import fmt_bytes, fmt_duration

if TYPE_CHECKING:
    from gpuprof.recommend.band import Band

__all__ = [
    "ASSUMED_EFFICIENCY",
    "CPU_REFUSAL",
    "ASSUMED_SPLIT",
    "DEFAULT_DTYPE",
    "USABLE_MEMORY",
    "Basis",
    "Split",
    "basis_of",
    "fmt_step",
    "project",
    "project_instance",
    "shown_derivation",
]

#: The dtype of the peaks compared when the step markers do not name one.
DEFAULT_DTYPE = "bf16"
#: Share of an instance's per-GPU memory the job may fill (CUDA context, fragmentation).
USABLE_MEMORY = 0.95
#: Fraction of the peak there a job reaches when nothing here measured it (a GPU without a
#: spec row here).
ASSUMED_EFFICIENCY = BASE_EFFICIENCY["llm-train"][0]
#: Why a profile taken on the CPU is not projected (issue 23): its step is CPU compute and
#: host work together, which no ratio of GPU peaks turns into a GPU's step (a 2.47 s CPU step
#: became 0.005 ms and $0.00 that way).
CPU_REFUSAL = N_(
    "profiled on the CPU: a CPU step cannot be scaled to a GPU's (the host work and the kernel "
    "launches a GPU would add are not in it); profile the job on a GPU, or estimate it from its "
    "size with gpuprof recommend --model/--params"
)
_GiB = 1024.0**3


def fmt_step(seconds: float | None) -> str:
    """A step time: ``850 ms``, ``1.31 s``, ``2m 5s``; ``unknown`` for None."""
    if seconds is None:
        return "unknown"
    if seconds < 1.0:
        return f"{seconds * 1000:.3g} ms"
    if seconds < 60.0:
        return f"{seconds:.3g} s"
    return fmt_duration(seconds)


@dataclass(frozen=True, slots=True)
class Basis:
    """What the profile says about here, the same for every instance."""

    step_s: float | None  # the job's step here (all its GPUs)
    step_text: str
    job_steps: float  # steps of the whole job (given, or the profile's)
    job_text: str
    gpu_count: int  # GPUs the job used here (0: none, a CPU job)
    spec: GpuSpec | None  # of the job's GPUs; None: a CPU job or a GPU without a spec row
    here: str  # how here is named in the derivations
    dtype: str
    split: Split
    mem_peak_bytes: int | None  # per GPU
    mem_text: str
    achieved_tflops: float | None  # over all the job's devices and its wall time (markers)
    notes: tuple[str, ...] = ()
    #: Issue 23: the recommender's prediction of this job's matmul time per step here, and
    #: the time measured for it (the split's compute share); None when either is unknown.
    model_compute_s: float | None = None
    measured_compute_s: float | None = None

    def lines(self) -> tuple[str, ...]:
        """The basis in words, for above a table."""
        return (
            tr(
                "step {s} ({t}) on {h}",
                s=fmt_step(self.step_s),
                t=tr_text(self.step_text),
                h=tr_text(self.here),
            ),
            tr("split: {s}", s=tr_text(self.split.text)),
            tr("job: {j}", j=tr_text(self.job_text)),
            tr("memory: {m}", m=tr_text(self.mem_text)),
            *self.model_lines(),
            *(tr_text(n) for n in self.notes),
        )

    def model_lines(self) -> tuple[str, ...]:
        """The model's compute time for this step here beside the measured one (issue 23)."""
        if self.model_compute_s is None or self.measured_compute_s is None:
            return ()
        return (
            tr(
                "model vs measured here: compute {p} predicted (the default stack's fitted share "
                "of the {d} peak) vs {m} measured ({r:.2f}×); memory, collectives and idle are "
                "measured only (the model needs the architecture for them)",
                p=fmt_step(self.model_compute_s),
                d=self.dtype,
                m=fmt_step(self.measured_compute_s),
                r=self.measured_compute_s / self.model_compute_s,
            ),
        )


def _step(profile: JobProfile) -> tuple[float | None, str, float]:
    """(the step here in s, how it was taken, the profile's steps)."""
    st = profile.steps
    if st is not None and st.count > 0:
        p50, mean = _pos(st.p50_s), _pos(st.mean_s)
        if p50 is not None:
            return p50, N_("P50 of {n} measured steps").format(n=st.count), float(st.count)
        if mean is not None:
            return mean, N_("mean of {n} measured steps").format(n=st.count), float(st.count)
    steady = [p for p in profile.phases if p.name == "steady"]
    if steady:
        span = _pos(steady[0].end_s - steady[0].start_s)
        if span is not None:
            return span, N_("no step markers: the steady phase taken as one step"), 1.0
    wall = _pos(profile.ended_s - profile.started_s)
    if wall is not None:
        return wall, N_("no step markers: the whole job taken as one step"), 1.0
    return None, N_("no step markers and no wall time"), 1.0


def _memory(profile: JobProfile) -> tuple[int | None, str]:
    own = [_pos(g.job_mem_peak_bytes) for g in profile.gpus]
    if any(v is not None for v in own):
        peak = max(v for v in own if v is not None)
        text = N_("the job's own peak {b} per GPU drives the fit")
        return int(peak), text.format(b=fmt_bytes(peak))
    whole = [_pos(g.mem_peak_bytes) for g in profile.gpus]
    if any(v is not None for v in whole):
        peak = max(v for v in whole if v is not None)
        text = N_("the GPU's peak {b} (all processes) drives the fit")
        return int(peak), text.format(b=fmt_bytes(peak))
    rss = _pos(profile.host.rss_peak_bytes)
    if not profile.gpus and rss is not None:
        text = N_("no GPU memory measured: the host RSS peak {b} as a proxy")
        return int(rss), text.format(b=fmt_bytes(rss))
    return None, N_("no memory peak measured: the fit is not checked")


def _here(profile: JobProfile) -> tuple[int, GpuSpec | None, str, list[str]]:
    notes: list[str] = []
    count = len(profile.gpus) or len(profile.gpu_indices)
    names = [g.name for g in profile.gpus if g.name]
    if count == 0:
        return 0, None, N_("the CPU (no GPU used)"), notes
    if not names:
        return count, None, N_("{n}× unnamed GPU").format(n=count), notes
    if len(set(names)) > 1:
        notes.append(N_("mixed GPUs here: {g} taken for all of them").format(g=repr(names[0])))
    spec = gpu_for_nvml_name(names[0])
    if spec is not None and is_mig_name(names[0]):
        notes.append(
            N_("a MIG slice here: its parent's peaks overstate here, so there looks slower")
        )
    return count, spec, f"{count}× {spec.key if spec else repr(names[0])}", notes


def basis_of(
    profile: JobProfile, *, steps: int | None = None, tokens: float | None = None
) -> Basis:
    """What every row starts from. ``steps`` or ``tokens`` size the job (default: the job as
    profiled); :class:`InputError` when ``tokens`` is given and the markers count none."""
    if steps is not None and tokens is not None:
        raise InputError("give --steps or --tokens, not both")
    profile = sane_profile(profile)
    step_s, step_text, measured = _step(profile)
    count, spec, here, notes = _here(profile)
    st = profile.steps
    dtype = (st.mfu_dtype if st is not None else None) or DEFAULT_DTYPE
    if st is None or not st.mfu_dtype:
        notes.append(N_("dtype {d} assumed (the step markers name none)").format(d=dtype))
    if profile.source == "simulated":
        notes.insert(0, N_("SIMULATED telemetry (--demo): illustrative, not a measurement"))
    if tokens is not None:
        tps = _pos(st.tokens_per_s) if st is not None else None
        per_step = (tps * (_pos(st.mean_s) or step_s)) if (tps and st and step_s) else None
        if not per_step:
            raise InputError(
                tr("the profile counts no tokens (t.step(tokens=...)): size the job with --steps")
            )
        job_steps = tokens / per_step
        job_text = N_("{t} tokens at {p} tokens per step = {s} steps").format(
            t=f"{tokens:.4g}", p=f"{per_step:.4g}", s=f"{job_steps:.4g}"
        )
    elif steps is not None:
        job_steps = float(steps)
        job_text = N_("{n} steps (given)").format(n=steps)
    else:
        job_steps = measured
        one = N_("{n} step (as profiled)")
        job_text = (one if measured == 1 else N_("{n} steps (as profiled)")).format(
            n=f"{measured:g}"
        )
    mem, mem_text = _memory(profile)
    split = split_of(profile)
    model_s, measured_s = _model_vs_measured(st, spec, count, dtype, step_s, split)
    return Basis(
        step_s=step_s,
        step_text=step_text,
        job_steps=job_steps,
        job_text=job_text,
        gpu_count=count,
        spec=spec,
        here=here,
        dtype=dtype,
        split=split,
        mem_peak_bytes=mem,
        mem_text=mem_text,
        achieved_tflops=_pos(st.achieved_tflops) if st is not None else None,
        notes=tuple(notes),
        model_compute_s=model_s,
        measured_compute_s=measured_s,
    )


def _model_vs_measured(
    st: StepStats | None,
    spec: GpuSpec | None,
    count: int,
    dtype: str,
    step_s: float | None,
    split: Split,
) -> tuple[float | None, float | None]:
    """(the recommender's matmul seconds for one step here, the measured compute seconds):
    the step's FLOPs (the markers' rate × the step) at the default stack's fitted GEMM share
    of this GPU's peak (:mod:`gpuprof.recommend.efficiency`), against the compute share of the
    measured split. None where the profile lacks FLOPs, a GPU with a peak, or a measured split."""
    from gpuprof.recommend.efficiency import DEFAULT_STACK, TRAIN_EFFICIENCY

    achieved = _pos(st.achieved_tflops) if st is not None else None
    peak = spec.peak_tflops(dtype) if spec is not None else None
    if not (achieved and peak and step_s and count) or split.source == N_("assumption"):
        return None, None
    share = TRAIN_EFFICIENCY.gemm_share(DEFAULT_STACK)
    share *= TRAIN_EFFICIENCY.generation_share(spec.architecture if spec else None)
    flops = achieved * 1e12 * step_s  # all the job's GPUs
    return _finite(flops / (count * peak * 1e12 * share)), split.compute * step_s


def _link_gbs(spec: GpuSpec | None) -> float | None:
    """GPU-to-GPU bandwidth per direction in a node, GB/s: NVLink/XGMI, else PCIe x16."""
    if spec is None:
        return None
    if spec.peer_link_gbs_bidir:
        return spec.peer_link_gbs_bidir / 2.0
    return PCIE_GBS.get(spec.pcie_gen or 3, PCIE_GBS[3])


def _ring(n: float) -> float:
    """Bytes each GPU moves in a ring all-reduce, per byte reduced: 2(n−1)/n."""
    return 2.0 * (n - 1.0) / n if n > 1 else 0.0


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) and value >= 0 else None


def project_instance(basis: Basis, inst: Instance, spec: GpuSpec | None) -> Projection:
    """One row: ``inst`` (whose spec row is ``spec``) for the job ``basis`` describes."""
    n_here = max(basis.gpu_count, 1)
    n_there = inst.gpu_count if inst.gpu_count > 0 else 1.0
    mem_gib = inst.gpu_mem_gib or (spec.memory_gib if spec else None)
    per_gpu = int(mem_gib * _GiB * min(n_there, 1.0)) if mem_gib else None
    if basis.mem_peak_bytes is None or per_gpu is None:
        fits = True
        fit_text = (
            N_("fit not checked (no memory peak)")
            if basis.mem_peak_bytes is None
            else N_("fit not checked (no memory size for this GPU)")
        )
    else:
        fits = basis.mem_peak_bytes <= per_gpu * USABLE_MEMORY
        fit_text = (
            N_("{a} of {b} usable per GPU")
            if fits
            else N_("{a} of {b} usable per GPU: does not fit")
        ).format(a=fmt_bytes(basis.mem_peak_bytes), b=fmt_bytes(per_gpu * USABLE_MEMORY))
    step_t, c_ratio, m_ratio, how = _step_there(basis, spec, inst, n_here, n_there)
    hours = cost_od = cost_spot = cost_r1 = speedup = None
    if step_t is not None:
        hours = _finite(basis.job_steps * step_t / 3600.0)
        if basis.step_s is not None and step_t > 0:
            speedup = _finite(basis.step_s / step_t)
    if hours is not None:
        od, spot, r1 = (
            _pos(inst.price_ondemand_usd_hr),
            _pos(inst.price_spot_usd_hr),
            _pos(inst.price_reserved_1y_usd_hr),
        )
        cost_od = _finite(hours * od) if od else None
        cost_spot = _finite(hours * (1.0 + SPOT_OVERHEAD) * spot) if spot else None
        cost_r1 = _finite(hours * r1) if r1 else None
    lead = [basis.notes[0]] if basis.notes and basis.notes[0].startswith("SIMULATED") else []
    step_here = N_("step {s} here ({t}, {h})").format(
        s=fmt_step(basis.step_s), t=basis.step_text, h=basis.here
    )
    split = N_("split {src}: {sp}").format(src=basis.split.source, sp=split_short(basis.split))
    derivation = "; ".join([*lead, step_here, split, how, fit_text]) + "."
    band = _band(basis, spec, n_here, n_there) if step_t is not None else None
    return Projection(
        provider=inst.provider,
        instance_type=inst.instance,
        region=inst.region,
        gpu_model=inst.gpu_model,
        gpu_count=int(n_there) if float(n_there).is_integer() else 1,
        fits=fits,
        step_s=step_t,
        job_hours=hours,
        cost_ondemand_usd=cost_od,
        cost_spot_usd=cost_spot,
        cost_reserved_usd=cost_r1,
        compute_ratio=c_ratio,
        memory_ratio=m_ratio,
        derivation=derivation,
        gpu_fraction=None if float(n_there).is_integer() else n_there,
        mem_need_bytes=basis.mem_peak_bytes,
        mem_per_gpu_bytes=per_gpu,
        speedup_vs_here=speedup,
        time_ratio_low=band.low if band else None,
        time_ratio_high=band.high if band else None,
        band_basis=band.basis if band else "",
        band_rows=band.rows if band else 0,
    )


def _band(basis: Basis, there: GpuSpec | None, n_here: int, n_there: float) -> Band | None:
    """The projection's error band (issue 23); none where the projection is the measurement
    (the same GPU model and count as here)."""
    from gpuprof.recommend.band import projection_band

    here = basis.spec
    if here is not None and there is not None and here.key == there.key and n_here == n_there:
        return None
    return projection_band(
        here.architecture if here else None, there.architecture if there else None
    )


def _pieces(text: str, sep: str) -> list[str]:
    """``text`` split at ``sep`` outside parentheses."""
    out, depth, start, i = [], 0, 0, 0
    while i < len(text):
        ch = text[i]
        depth += (ch == "(") - (ch == ")")
        if depth == 0 and text.startswith(sep, i):
            out.append(text[start:i])
            start = i = i + len(sep)
            continue
        i += 1
    return [*out, text[start:]]


def shown_derivation(text: str) -> str:
    """A row's derivation (stored in English) in the language in use, piece by piece: the
    shortest run of comma-separated pieces with a translation is translated together."""
    if language() == "en":
        return text
    end = text.endswith(".")
    chunks = []
    for chunk in _pieces(text[:-1] if end else text, "; "):
        parts, out, i = _pieces(chunk, ", "), [], 0
        while i < len(parts):
            for j in range(i + 1, len(parts) + 1):
                joined = ", ".join(parts[i:j])
                shown = tr_text(joined)
                if shown != joined:
                    out.append(shown)
                    i = j
                    break
            else:
                out.append(parts[i])
                i += 1
        chunks.append("，".join(out))
    return "；".join(chunks) + ("。" if end else "")


def _step_there(
    basis: Basis, spec: GpuSpec | None, inst: Instance, n_here: int, n_there: float
) -> tuple[float | None, float | None, float | None, str]:
    """(step there, compute ratio there/here, memory ratio there/here, how, in words)."""
    step, s, dtype = basis.step_s, basis.split, basis.dtype
    name = inst.gpu_model or inst.gpu_name
    if step is None:
        return None, None, None, N_("no step time here to scale")
    if basis.gpu_count == 0:
        return None, None, None, CPU_REFUSAL
    if spec is None:
        why = N_("GPU {n} is not in the spec table: no peak to scale by").format(n=repr(name))
        return None, None, None, why
    if spec.supports(dtype) is False:
        return None, None, None, N_("{k} does not support {d}").format(k=spec.key, d=dtype)
    peak_t = spec.peak_tflops(dtype)
    if not peak_t:
        why = N_("no {d} peak for {k} in the sources").format(d=dtype, k=spec.key)
        return None, None, None, why
    here = basis.spec
    peak_h = here.peak_tflops(dtype) if here is not None else None
    if here is not None and peak_h:
        c_ratio = peak_t / peak_h
        how = N_("compute × {r} ({d} peak {a} → {b} TFLOPS, efficiency here carried over)").format(
            r=f"{1 / c_ratio:.3g}", d=dtype, a=f"{peak_h:g}", b=f"{peak_t:g}"
        )
        gen = _generation_ratio(here, spec)
        if gen != 1.0:  # issue 23: the fitted share of the peak differs between generations
            c_ratio *= gen
            how += ", " + N_("compute × {g} more ({t}'s fitted share of its peak ÷ {h}'s)").format(
                g=f"{1 / gen:.3g}", t=spec.key, h=here.key
            )
        bw_h, bw_t = here.memory_bw_gbs, spec.memory_bw_gbs
        if bw_h and bw_t:
            m_ratio: float | None = bw_t / bw_h
            how += ", " + N_("memory × {r} ({a} → {b} GB/s)").format(
                r=f"{bw_h / bw_t:.3g}", a=f"{bw_h:g}", b=f"{bw_t:g}"
            )
            memory = s.memory * step / (bw_t / bw_h)
        else:
            m_ratio = None
            how += ", " + N_("memory share unchanged (no bandwidth in the spec table)")
            memory = s.memory * step
        compute = s.compute * step / c_ratio
    else:
        busy_frac = s.compute + s.memory
        if not basis.achieved_tflops or busy_frac <= 0:
            why = (
                N_("no {d} peak for {k}").format(d=dtype, k=here.key)
                if here is not None
                else N_("no GPU here")
            )
            text = N_("{why} and no FLOPs counted (t.step(flops=...)) to re-time")
            return None, None, None, text.format(why=why)
        # TFLOPS per device over the time it was busy: the markers' rate is over wall time.
        achieved = basis.achieved_tflops / n_here / busy_frac
        c_ratio = peak_t * ASSUMED_EFFICIENCY / achieved
        m_ratio = None
        how = N_(
            "busy time re-timed from {a} TFLOPS achieved per device while busy to {p} of the "
            "{d} peak {b} TFLOPS (× {r}; nothing here to carry an efficiency over from)"
        ).format(
            a=f"{achieved:.3g}",
            p=f"{ASSUMED_EFFICIENCY:.0%}",
            d=dtype,
            b=f"{peak_t:g}",
            r=f"{1 / c_ratio:.3g}",
        )
        compute, memory = busy_frac * step / c_ratio, 0.0
    coll, coll_how = _collectives(s.collectives * step, basis.spec, spec, n_here, n_there)
    per_gpu_step = compute + memory + s.fixed * step + coll
    step_t = per_gpu_step * n_here / n_there
    how += f", {coll_how}"
    if s.fixed:
        how += ", " + N_("idle unchanged")
    if n_there != n_here:
        text = (
            N_("data parallel with the per-GPU work of here: {n} GPU there for {h} here (× {r})")
            if n_there == 1
            else N_(
                "data parallel with the per-GPU work of here: {n} GPUs there for {h} here (× {r})"
            )
        )
        how += "; " + text.format(n=f"{n_there:g}", h=n_here, r=f"{n_here / n_there:.3g}")
    return _finite(step_t), c_ratio, m_ratio, how


def _generation_ratio(here: GpuSpec, there: GpuSpec) -> float:
    """How much more (> 1) or less of its peak the GPU there reaches than the one here: the
    generation factors the training estimate fits (:mod:`gpuprof.recommend.efficiency`)."""
    from gpuprof.recommend.efficiency import TRAIN_EFFICIENCY

    g_there = TRAIN_EFFICIENCY.generation_share(there.architecture)
    g_here = TRAIN_EFFICIENCY.generation_share(here.architecture)
    return g_there / g_here if g_here > 0 else 1.0


def _collectives(
    coll_s: float, here: GpuSpec | None, there: GpuSpec, n_here: int, n_there: float
) -> tuple[float, str]:
    """Collective time per step there, and how it was scaled."""
    if n_there <= 1:
        return 0.0, N_("no collectives on one GPU")
    if coll_s <= 0:
        if n_here <= 1:
            return 0.0, N_("collectives not measured (one GPU here): ideal scaling assumed")
        return 0.0, N_("no collective time measured")
    link_h, link_t = _link_gbs(here), _link_gbs(there)
    ring = _ring(n_there) / _ring(n_here) if n_here > 1 else 1.0
    if link_h and link_t:
        return (
            coll_s * link_h / link_t * ring,
            N_("collectives × {r} (link {a} → {b} GB/s, ring 2(n−1)/n)").format(
                r=f"{link_h / link_t * ring:.3g}", a=f"{link_h:g}", b=f"{link_t:g}"
            ),
        )
    return coll_s * ring, N_("collectives kept (link unknown here), ring 2(n−1)/n")


def _sort_key(p: Projection) -> tuple[bool, bool, float, float]:
    cost = next(
        (c for c in (p.cost_ondemand_usd, p.cost_spot_usd, p.cost_reserved_usd) if c is not None),
        None,
    )
    return (
        not p.fits,
        cost is None,
        cost if cost is not None else math.inf,
        p.step_s if p.step_s is not None else math.inf,
    )


def project(
    profile: JobProfile,
    catalog: Catalog,
    *,
    steps: int | None = None,
    tokens: float | None = None,
    instances: Sequence[Instance] | None = None,
) -> list[Projection]:
    """The job on every catalog instance (or on ``instances``), the ones that fit first, then by
    cost (on-demand, else spot, else reserved), unknown costs last."""
    basis = basis_of(profile, steps=steps, tokens=tokens)
    rows = [
        project_instance(basis, inst, catalog.spec_for(inst))
        for inst in (catalog.instances if instances is None else instances)
    ]
    rows.sort(key=_sort_key)
    return rows
