"""Projecting a profiled job onto the catalog (gpuprof/profile/project.py), with numbers worked
out by hand from the spec table's values, which the first test pins."""

from __future__ import annotations

import math

import pytest

from gpuprof.catalog.instances import Catalog, Instance
from gpuprof.catalog.specs import GpuSpec, load_specs
from gpuprof.errors import InputError
from gpuprof.profile.model import (
    GpuJobStats,
    HostJobStats,
    JobProfile,
    Phase,
    StepStats,
    TimeBreakdown,
    TimeShare,
)
from gpuprof.profile.project import (
    ASSUMED_SPLIT,
    USABLE_MEMORY,
    basis_of,
    project,
)
from gpuprof.recommend.estimate import SPOT_OVERHEAD
from tests.helpers.catalog import offer

GiB = 1024**3
T0 = 1.7e9
# The spec table's values the hand-worked numbers use (bf16 dense TFLOPS, GB/s, NVLink GB/s
# both directions per GPU).
A100_BF16, H100_BF16 = 312.0, 989.0
#: Issue 23: an H100 reaches a smaller share of its peak than an A100 (the training estimate's
#: fitted generation factor): projections from an A100 scale by the peaks times it.
H100_GEN = __import__(
    "gpuprof.recommend.efficiency", fromlist=["TRAIN_EFFICIENCY"]
).TRAIN_EFFICIENCY.generation_share("Hopper")
H100_EFF = H100_BF16 * H100_GEN
A100_BW, H100_BW = 2039.0, 3350.0
A100_LINK, H100_LINK = 600.0, 900.0
A100 = "NVIDIA A100-SXM4-80GB"


def test_the_spec_values_these_numbers_were_worked_from() -> None:
    specs = load_specs()
    a, h = specs["A100 80GB SXM"], specs["H100 SXM"]
    assert (a.bf16_tflops, a.memory_bw_gbs, a.interconnect_gbs_bidir) == (
        A100_BF16,
        A100_BW,
        A100_LINK,
    )
    assert (h.bf16_tflops, h.memory_bw_gbs, h.interconnect_gbs_bidir) == (
        H100_BF16,
        H100_BW,
        H100_LINK,
    )


def _inst(
    name: str = "h100x1",
    gpu: str = "H100 SXM",
    count: float = 1,
    mem_gib: float | None = 80,
    od: float | None = 6.88,
    spot: float | None = 3.0,
    r1: float | None = 4.5,
    known: bool = True,
) -> Instance:
    return offer(
        name,
        gpu,
        float(count),
        mem_gib,
        od,
        provider="P",
        region="r1",
        gpu_known=known,
        price_spot_usd_hr=spot,
        price_reserved_1y_usd_hr=r1,
    )


def _catalog(*instances: Instance, specs: dict[str, GpuSpec] | None = None) -> Catalog:
    return Catalog(specs if specs is not None else load_specs(), tuple(instances))


def _breakdown(**shares: float) -> TimeBreakdown:
    names = {"other": "other compute"}
    return TimeBreakdown(
        device="cuda",
        steps=10,
        total_s=10.0,
        shares=tuple(TimeShare(names.get(k, k), v / 10.0, v) for k, v in shares.items()),
    )


def _profile(
    *,
    gpus: int | tuple[GpuJobStats, ...] = 1,
    name: str = A100,
    p50: float | None = 1.0,
    count: int = 100,
    breakdown: TimeBreakdown | None = None,
    job_mem: int | None = 30 * GiB,
    dtype: str | None = "bf16",
    **kw: object,
) -> JobProfile:
    steps = None
    if count:
        steps = StepStats(count=count, p50_s=p50, mean_s=p50, mfu_dtype=dtype)
    if isinstance(gpus, int):
        gpus = tuple(GpuJobStats(i, name, job_mem_peak_bytes=job_mem) for i in range(gpus))
    fields: dict[str, object] = dict(
        name="train",
        command=("python", "train.py"),
        pid=42,
        started_s=T0,
        ended_s=T0 + 200.0,
        gpu_indices=tuple(g.index for g in gpus),
        gpus=gpus,
        steps=steps,
        breakdown=breakdown,
    )
    fields.update(kw)
    return JobProfile(**fields)  # type: ignore[arg-type]


def _one(profile: JobProfile, inst: Instance, **kw: object):  # type: ignore[no-untyped-def]
    rows = project(profile, _catalog(inst), **kw)  # type: ignore[arg-type]
    assert len(rows) == 1
    return rows[0]


# --- the split from the torch breakdown ----------------------------------------------------------


def test_a100_to_h100_from_the_torch_breakdown_worked_by_hand() -> None:
    """p50 1.0 s on 1×A100, 60 % matmul (compute) and 40 % copies (memory), onto 1×H100."""
    prof = _profile(breakdown=_breakdown(matmul=60.0, memcpy=40.0))
    row = _one(prof, _inst(), steps=1000)
    compute = 0.6 * (A100_BF16 / H100_EFF)  # 0.18928 at the peaks alone; ÷ 0.774 fitted
    memory = 0.4 * (A100_BW / H100_BW)  # 0.24346...
    step = compute + memory
    assert row.step_s == pytest.approx(step, abs=1e-6)
    assert row.compute_ratio == pytest.approx(H100_EFF / A100_BF16, abs=1e-6)
    assert row.memory_ratio == pytest.approx(H100_BW / A100_BW, abs=1e-6)
    hours = 1000 * step / 3600
    assert row.job_hours == pytest.approx(hours, abs=1e-9)
    assert row.cost_ondemand_usd == pytest.approx(hours * 6.88, abs=1e-9)
    assert row.cost_spot_usd == pytest.approx(hours * (1 + SPOT_OVERHEAD) * 3.0, abs=1e-9)
    assert row.cost_reserved_usd == pytest.approx(hours * 4.5, abs=1e-9)
    assert row.speedup_vs_here == pytest.approx(1.0 / step, abs=1e-6)
    assert row.fits and row.gpu_count == 1
    d = row.derivation
    assert "P50 of 100 measured steps" in d and "1× A100 80GB SXM" in d
    assert "split breakdown: compute 60% / memory 40%" in d
    assert "bf16 peak 312 → 989 TFLOPS" in d and "2039 → 3350 GB/s" in d
    more = f"{1 / H100_GEN:.3g}"  # the fitted Hopper factor's inverse (issue 23)
    assert f"compute × {more} more (H100 SXM's fitted share of its peak ÷ A100 80GB SXM's)" in d
    # Issue 23: the projection's band, from pairs of published runs on Ampere and Hopper.
    assert row.time_ratio_low is not None and row.time_ratio_high is not None
    assert row.time_ratio_low < row.time_ratio_high and row.band_rows >= 6
    assert row.band_basis == "pairs of one publication's runs on Ampere and Hopper"
    assert "no collectives on one GPU" in d


def test_attention_counts_as_compute_and_other_kernels_as_memory_and_idle_is_kept() -> None:
    prof = _profile(breakdown=_breakdown(matmul=30.0, attention=20.0, other=20.0, idle=30.0))
    row = _one(prof, _inst())
    step = 0.5 * A100_BF16 / H100_EFF + 0.2 * A100_BW / H100_BW + 0.3
    assert row.step_s == pytest.approx(step, abs=1e-6)
    assert "idle 30%" in row.derivation and "idle unchanged" in row.derivation


def test_collectives_scale_by_the_link_and_the_ring_and_gpu_counts_by_data_parallel() -> None:
    """8×A100 with 50 % matmul, 30 % copies, 20 % NCCL onto 8, 4 and 1 H100."""
    prof = _profile(gpus=8, breakdown=_breakdown(matmul=50.0, memcpy=30.0, collectives=20.0))
    base = 0.5 * A100_BF16 / H100_EFF + 0.3 * A100_BW / H100_BW
    link = (A100_LINK / 2) / (H100_LINK / 2)  # 300 → 450 GB/s per direction
    ring8, ring4 = 2 * 7 / 8, 2 * 3 / 4
    rows = {
        r.instance_type: r
        for r in project(
            prof,
            _catalog(_inst("h100x8", count=8), _inst("h100x4", count=4), _inst("h100x1", count=1)),
        )
    }
    assert rows["h100x8"].step_s == pytest.approx(base + 0.2 * link, abs=1e-6)
    assert rows["h100x4"].step_s == pytest.approx(
        (base + 0.2 * link * ring4 / ring8) * 8 / 4, abs=1e-6
    )
    assert rows["h100x1"].step_s == pytest.approx(base * 8, abs=1e-6)
    assert "collectives × 0.571 (link 300 → 450 GB/s" in rows["h100x4"].derivation
    assert "4 GPUs there for 8 here (× 2)" in rows["h100x4"].derivation
    assert "no collectives on one GPU" in rows["h100x1"].derivation
    assert "GPUs there" not in rows["h100x8"].derivation  # same count: no scaling said


def test_one_gpu_here_onto_eight_assumes_ideal_scaling_and_says_so() -> None:
    prof = _profile(breakdown=_breakdown(matmul=60.0, memcpy=40.0))
    row = _one(prof, _inst("h100x8", count=8))
    step = (0.6 * A100_BF16 / H100_EFF + 0.4 * A100_BW / H100_BW) / 8
    assert row.step_s == pytest.approx(step, abs=1e-6)
    assert "collectives not measured (one GPU here): ideal scaling assumed" in row.derivation


# --- the other splits ----------------------------------------------------------------------------


def test_without_a_breakdown_gpm_activity_splits_the_busy_time() -> None:
    gpu = GpuJobStats(
        0,
        A100,
        util_gpu_mean_pct=80.0,
        tensor_active_mean_pct=30.0,
        sm_active_mean_pct=90.0,  # tensor activity wins over SM activity
        dram_active_mean_pct=10.0,
        job_mem_peak_bytes=10 * GiB,
    )
    prof = _profile(gpus=(gpu,))
    row = _one(prof, _inst())
    # busy 0.8: compute 0.8 × 30/40 = 0.6, memory 0.2; idle 0.2 unchanged
    step = 0.6 * A100_BF16 / H100_EFF + 0.2 * A100_BW / H100_BW + 0.2
    assert row.step_s == pytest.approx(step, abs=1e-6)
    assert "split gpm: compute 60% / memory 20% / idle 20%" in row.derivation
    b = basis_of(prof)
    assert "tensor active 30% vs DRAM active 10%" in b.split.text


def test_without_breakdown_or_gpm_the_assumed_split_is_said_in_every_row() -> None:
    prof = _profile()
    rows = project(prof, _catalog(_inst("a"), _inst("b", count=8)))
    c, m = ASSUMED_SPLIT
    one = next(r for r in rows if r.instance_type == "a")
    assert one.step_s == pytest.approx(c * A100_BF16 / H100_EFF + m * A100_BW / H100_BW, abs=1e-6)
    for row in rows:
        assert "split assumption: compute 70% / memory 30%" in row.derivation
    assert "an assumption" in basis_of(prof).split.text


def test_a_breakdown_of_nothing_falls_back_to_the_assumption() -> None:
    prof = _profile(breakdown=_breakdown(matmul=float("nan"), memcpy=-5.0))
    assert basis_of(prof).split.source == "assumption"


# --- fit ------------------------------------------------------------------------------------------


def test_the_measured_memory_peak_drives_the_fit() -> None:
    usable = 80 * GiB * USABLE_MEMORY  # 76 GiB
    ok = _one(_profile(job_mem=int(usable)), _inst())
    too_big = _one(_profile(job_mem=int(usable) + 1), _inst())
    small = _one(_profile(job_mem=30 * GiB), _inst("a40gb", gpu="A100 40GB SXM", mem_gib=40))
    assert ok.fits and not too_big.fits and small.fits
    assert "does not fit" in too_big.derivation and "76.0 GiB usable" in too_big.derivation
    assert ok.mem_need_bytes == int(usable) and ok.mem_per_gpu_bytes == 80 * GiB


def test_the_jobs_own_peak_wins_over_the_whole_gpus_and_the_host_rss_proxies_a_cpu_job() -> None:
    gpu = GpuJobStats(0, A100, mem_peak_bytes=79 * GiB, job_mem_peak_bytes=20 * GiB)
    assert basis_of(_profile(gpus=(gpu,))).mem_peak_bytes == 20 * GiB
    whole = GpuJobStats(0, A100, mem_peak_bytes=79 * GiB)
    assert basis_of(_profile(gpus=(whole,))).mem_peak_bytes == 79 * GiB
    cpu = _profile(gpus=(), gpu_indices=(), host=HostJobStats(rss_peak_bytes=5 * GiB))
    b = basis_of(cpu)
    assert b.mem_peak_bytes == 5 * GiB and "RSS" in b.mem_text


def test_no_memory_peak_means_the_fit_is_not_checked_and_said() -> None:
    row = _one(_profile(job_mem=None), _inst())
    assert row.fits and "fit not checked" in row.derivation


def test_rows_that_fit_come_first_then_by_cost_and_unknown_costs_last() -> None:
    prof = _profile(job_mem=50 * GiB)
    rows = project(
        prof,
        _catalog(
            _inst("dear", od=20.0),
            _inst("cheap", od=2.0),
            _inst("small", gpu="A100 40GB SXM", mem_gib=40, od=0.5),
            _inst("noprice", od=None, spot=None, r1=None),
            _inst("mystery", gpu="Z9000", known=False, od=0.1),
        ),
    )
    assert [r.instance_type for r in rows] == ["cheap", "dear", "noprice", "mystery", "small"]
    mystery = rows[3]
    assert mystery.step_s is None and mystery.cost_ondemand_usd is None
    assert "not in the spec table" in mystery.derivation
    assert rows[2].cost_ondemand_usd is None and rows[2].job_hours is not None


# --- job size -------------------------------------------------------------------------------------


def test_job_size_from_steps_tokens_or_the_profile() -> None:
    st = StepStats(count=100, p50_s=1.0, mean_s=1.0, tokens_per_s=1000.0, mfu_dtype="bf16")
    prof = _profile(steps=st)
    assert basis_of(prof).job_steps == 100
    assert basis_of(prof, steps=5000).job_steps == 5000
    by_tokens = basis_of(prof, tokens=1e6)  # 1000 tokens per step
    assert by_tokens.job_steps == pytest.approx(1000.0)
    row = _one(prof, _inst(), tokens=1e6)
    assert row.job_hours == pytest.approx(1000 * row.step_s / 3600, abs=1e-9)
    with pytest.raises(InputError, match="--steps"):
        basis_of(_profile(), tokens=1e6)  # no tokens counted
    with pytest.raises(InputError, match="not both"):
        basis_of(prof, steps=10, tokens=1e6)


def test_without_markers_the_steady_phase_then_the_whole_job_is_one_step() -> None:
    phases = (Phase("startup", T0, T0 + 20), Phase("steady", T0 + 20, T0 + 170))
    b = basis_of(_profile(count=0, phases=phases))
    assert b.step_s == 150.0 and b.job_steps == 1 and "steady phase" in b.step_text
    b = basis_of(_profile(count=0))
    assert b.step_s == 200.0 and "whole job" in b.step_text
    row = _one(_profile(count=0), _inst(), steps=3)
    assert "whole job taken as one step" in row.derivation
    assert row.job_hours == pytest.approx(3 * row.step_s / 3600, abs=1e-9)


# --- here without a spec -------------------------------------------------------------------------


def test_a_cpu_job_is_refused_never_scaled_into_nonsense() -> None:
    """Issue 23: 2.47 s steps on the CPU with FLOPs counted were re-timed at 45 % of an H100's
    peak into 0.005 ms and $0.00. A CPU step is CPU compute plus host work: no ratio of GPU
    peaks makes it a GPU's step. Every row says why it has no time and no cost."""
    st = StepStats(count=10, p50_s=2.47, mean_s=2.47, achieved_tflops=0.02, mfu_dtype="fp32")
    b = TimeBreakdown(
        device="cpu",
        steps=5,
        total_s=12.35,
        shares=(TimeShare("matmul", 6.0, 50.0), TimeShare("other compute", 6.35, 50.0)),
    )
    prof = _profile(gpus=(), gpu_indices=(), steps=st, breakdown=b, source="nvml")
    row = _one(prof, _inst())
    assert row.step_s is None and row.job_hours is None
    assert row.cost_ondemand_usd is None and row.cost_spot_usd is None
    assert "profiled on the CPU" in row.derivation
    # The declared dtype is kept (was dropped without an MFU, and BF16 assumed).
    assert basis_of(prof).dtype == "fp32"
    # Without FLOPs: the same refusal.
    row = _one(_profile(gpus=(), gpu_indices=()), _inst())
    assert row.step_s is None and "profiled on the CPU" in row.derivation


def test_a_simulated_profile_says_so_first_in_every_row() -> None:
    row = _one(_profile(source="simulated"), _inst())
    assert row.derivation.startswith("SIMULATED telemetry")


def test_there_without_the_dtype_or_bandwidth() -> None:
    prof = _profile()
    t4 = _one(prof, _inst("t4", gpu="T4", mem_gib=16, count=1))
    assert t4.step_s is None and "T4 does not support bf16" in t4.derivation
    specs = dict(load_specs())
    specs["NoBW"] = GpuSpec(key="NoBW", bf16_tflops=624.0, memory_gib=80.0)
    row = _one_catalog(prof, _inst("nobw", gpu="NoBW"), specs)
    assert row.step_s == pytest.approx(0.7 * 312 / 624 + 0.3, abs=1e-6)
    assert row.memory_ratio is None and "memory share unchanged" in row.derivation


def _one_catalog(prof: JobProfile, inst: Instance, specs: dict[str, GpuSpec]):  # type: ignore[no-untyped-def]
    (row,) = project(prof, _catalog(inst, specs=specs))
    return row


def test_dtype_defaults_to_bf16_and_is_said() -> None:
    b = basis_of(_profile(dtype=None))
    assert b.dtype == "bf16" and any("assumed" in n for n in b.notes)
    b = basis_of(_profile(dtype="fp16"))
    assert b.dtype == "fp16" and not b.notes


# --- hostile numbers in a profile -----------------------------------------------------------------


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -1.0, 0.0, 1e308])
def test_hostile_numbers_never_give_a_nan_or_an_infinity(bad: float) -> None:
    gpu = GpuJobStats(
        0,
        A100,
        util_gpu_mean_pct=bad,
        tensor_active_mean_pct=bad,
        dram_active_mean_pct=bad,
        job_mem_peak_bytes=None,
        mem_peak_bytes=None,
    )
    st = StepStats(count=5, p50_s=bad, mean_s=bad, tokens_per_s=bad, achieved_tflops=bad)
    prof = _profile(gpus=(gpu,), steps=st, breakdown=_breakdown(matmul=bad, memcpy=bad))
    rows = project(prof, _catalog(_inst(), _inst("b", count=8, od=bad)), steps=10**12)
    for row in rows:
        for value in (
            row.step_s,
            row.job_hours,
            row.cost_ondemand_usd,
            row.cost_spot_usd,
            row.compute_ratio,
            row.memory_ratio,
            row.speedup_vs_here,
        ):
            assert value is None or math.isfinite(value), row
        assert "nan" not in row.derivation.lower().replace("nano", "")


def test_the_models_compute_time_is_shown_beside_the_measured_one() -> None:
    """Issue 23: a job profiled on a GPU the model knows: its matmul time for the step (the
    step's FLOPs at the default stack's fitted share of the A100 peak) beside the compute
    time the torch breakdown measured."""
    from gpuprof.recommend.efficiency import TRAIN_EFFICIENCY

    st = StepStats(count=100, p50_s=1.0, mean_s=1.0, achieved_tflops=300.0, mfu_dtype="bf16")
    prof = _profile(gpus=2, steps=st, breakdown=_breakdown(matmul=60.0, memcpy=30.0, idle=10.0))
    b = basis_of(prof)
    share = TRAIN_EFFICIENCY.gemm["tuned"]  # Ampere: the reference generation
    assert b.model_compute_s == pytest.approx(300e12 * 1.0 / (2 * A100_BF16 * 1e12 * share))
    assert b.measured_compute_s == pytest.approx(0.6)
    assert any("model vs measured here" in line for line in b.lines())
    # Without FLOPs, or with only the assumed split, there is nothing to compare.
    assert basis_of(_profile(breakdown=_breakdown(matmul=60.0))).model_compute_s is None
    assumed = _profile(steps=st)
    assert basis_of(assumed).split.source == "assumption"
    assert basis_of(assumed).model_compute_s is None
