"""Where the time goes (issue 13): torch.profiler traces summarized by torch_breakdown.

- a CUDA trace from an H100 training step, hand-written in torch.profiler's layout
  (tests/data/trace-h100-small.json), against shares worked out by hand;
- a real CPU trace, recorded here by torch.profiler through the job's TorchWindow;
- end to end: ``gpuprof profile --torch`` on tests/data/train_small.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from gpuprof.profile.model import BREAKDOWN_CATEGORIES, TimeBreakdown
from gpuprof.profile.torch_breakdown import (
    classify,
    read_breakdown,
    split_busy,
    summarize_profiler,
    summarize_trace,
)
from gpuprof.profile.torch_window import breakdown_path, parse_schedule, trace_path
from gpuprof.telemetry.codec import from_jsonable
from tests.faults.hostile import run_gpuprof

ROOT = Path(__file__).resolve().parents[1]
H100_TRACE = ROOT / "tests" / "data" / "trace-h100-small.json"


def shares(b: TimeBreakdown) -> dict[str, float]:
    return {s.category: s.share_pct for s in b.shares}


# --- classification ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "cat", "expected"),
    [
        (
            "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_"
            "execute_segment_k_off_kernel__5x_cublas",
            "kernel",
            "matmul",
        ),
        ("ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_64x3_tn", "kernel", "matmul"),
        ("volta_sgemm_128x64_nn", "kernel", "matmul"),
        ("nvjet_tst_128x256_64x4_2x1_v_bz_coopA_NNT", "kernel", "matmul"),
        (
            "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_64x4>",
            "",
            "matmul",
        ),
        ("aten::mm", "cpu_op", "matmul"),
        ("aten::addmm", "cpu_op", "matmul"),
        ("aten::bmm", "cpu_op", "matmul"),
        ("aten::linear", "cpu_op", "matmul"),
        ("aten::conv2d", "cpu_op", "matmul"),
        ("autograd::engine::evaluate_function: AddmmBackward0", "cpu_op", "matmul"),
        ("triton_tem_fused_mm_0", "kernel", "matmul"),
        (
            "void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, cutlass::bfloat16_t>>",
            "kernel",
            "attention",
        ),
        ("fmha_cutlassF_bf16_aligned_64x64_rf_sm80", "kernel", "attention"),
        ("aten::_scaled_dot_product_efficient_attention", "cpu_op", "attention"),
        (
            "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
            "kernel",
            "collectives",
        ),
        ("ncclKernel_AllGather_RING_LL_Sum_int8_t", "kernel", "collectives"),
        ("c10d::allreduce_", "cpu_op", "collectives"),
        ("Memcpy HtoD (Pageable -> Device)", "gpu_memcpy", "memcpy"),
        ("Memcpy DtoD (Device -> Device)", "gpu_memcpy", "memcpy"),
        ("Memset (Device)", "gpu_memset", "memcpy"),
        ("aten::copy_", "cpu_op", "memcpy"),
        ("aten::topk", "cpu_op", "other compute"),  # not aten::to
        ("aten::commit_stuff", "cpu_op", "other compute"),  # "mm" inside a word
        (
            "void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl>",
            "kernel",
            "other compute",
        ),
        ("aten::relu", "cpu_op", "other compute"),
    ],
)
def test_classify_real_kernel_and_operator_names(name: str, cat: str, expected: str) -> None:
    assert classify(name, cat) == expected


def test_overlapping_intervals_split_each_instant_evenly() -> None:
    per_key, busy = split_busy(
        [(0.0, 10.0, "a"), (5.0, 15.0, "b"), (20.0, 30.0, "a"), (22.0, 24.0, "a")]
    )
    # [0,5) a alone, [5,10) a and b, [10,15) b, [20,22) a, [22,24) two a's, [24,30) a
    assert busy == 25.0
    assert per_key == {"a": 5.0 + 2.5 + 2.0 + 2.0 + 6.0, "b": 2.5 + 5.0}


# --- a CUDA trace ----------------------------------------------------------------------------


def test_h100_trace_against_hand_worked_shares() -> None:
    """Per step (10 ms, two steps) on stream 7: H2D 450 + memset 50 + D2H 20 µs of copies;
    GEMMs 1600 + 400 (nvjet) + 2000 µs; flash forward 1000 and backward 1500 µs; GELU 500 and
    the fused AdamW 300 µs; on stream 20 NCCL all-reduce 1900 µs, 1000 of them beside the flash
    backward (each gets half of that). Busy union 500 + 7900 + 300 + 20 = 8720 µs, idle 1280."""
    b = summarize_trace(H100_TRACE)
    assert b.device == "cuda"
    assert b.steps == 2
    assert b.total_s == pytest.approx(0.020)
    expected = {
        "matmul": 40.0,  # 2 x 4000 / 20000
        "attention": 20.0,  # 2 x (1000 + 500 + 1000/2)
        "other compute": 8.0,  # 2 x (500 + 300)
        "collectives": 14.0,  # 2 x (1000/2 + 900)
        "memcpy": 5.2,  # 2 x 520
        "idle": 12.8,  # 2 x 1280
    }
    assert [s.category for s in b.shares] == list(BREAKDOWN_CATEGORIES)
    assert shares(b) == pytest.approx(expected)
    assert sum(shares(b).values()) == pytest.approx(100.0)
    assert {s.category: s.time_s for s in b.shares}["idle"] == pytest.approx(0.00256)
    # The top kernels by their own time (overlap not split), two of each
    top = [(o.name.split("(")[0].split("<")[0], o.category, o.count, o.share_pct) for o in b.top]
    assert top[:5] == [
        (
            "sm90_xmma_gemm_bf16bf16_bf16f32_f32_nt_n_tilesize128x256x64_warpgroupsize2x1x1_"
            "execute_segment_k_off_kernel__5x_cublas",
            "matmul",
            2,
            pytest.approx(20.0),
        ),
        ("ncclDevKernel_AllReduce_Sum_bf16_RING_LL", "collectives", 2, pytest.approx(19.0)),
        (
            "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_"
            "execute_segment_k_off_kernel__5x_cublas",
            "matmul",
            2,
            pytest.approx(16.0),
        ),
        ("void flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel", "attention", 2, pytest.approx(15.0)),
        ("void flash_fwd_kernel", "attention", 2, pytest.approx(10.0)),
    ]
    assert len(b.top) == 11
    assert b.top[6].name == "Memcpy HtoD (Pageable -> Device)" and b.top[6].category == "memcpy"
    assert all(len(o.name) <= 300 for o in b.top)
    # enumerate(DataLoader) took 140 µs in step 41 and 240 µs in step 42
    assert b.dataloader_wait_s_per_step == pytest.approx(190e-6)
    assert b.trace_file == str(H100_TRACE)
    assert "1 GPU" in b.note


def _trace(events: list[dict[str, object]]) -> dict[str, object]:
    return {"schemaVersion": 1, "traceEvents": events}


def _x(
    cat: str, name: str, ts: float, dur: float, pid: object = 1, tid: object = 1
) -> dict[str, object]:
    return {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur}


def test_two_gpus_in_one_trace_count_device_time_of_both(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    events = [
        _x("user_annotation", "ProfilerStep#3", 0, 100, pid=9, tid=9),
        _x("kernel", "volta_sgemm_128x64_nn", 0, 50, pid=0, tid=7),
        _x("kernel", "ncclKernel_AllReduce", 0, 100, pid=1, tid=7),
    ]
    path.write_text(json.dumps(_trace(events)))
    b = summarize_trace(path)
    # 200 µs of device time: 50 matmul, 100 collectives, 50 idle
    assert shares(b) == pytest.approx(
        {
            "matmul": 25.0,
            "attention": 0.0,
            "other compute": 0.0,
            "collectives": 50.0,
            "memcpy": 0.0,
            "idle": 25.0,
        }
    )
    assert b.dataloader_wait_s_per_step is None  # no DataLoader in the trace: unknown, not 0


# --- CPU traces --------------------------------------------------------------------------------


def test_cpu_trace_counts_top_level_ops_once(tmp_path: Path) -> None:
    """aten::linear contains aten::addmm (its child): 60 µs, not 110; a second thread's op
    overlapping it shares that time; the gap between ops and after them is idle."""
    path = tmp_path / "cpu.json"
    events = [
        _x("user_annotation", "ProfilerStep#0", 0, 100),
        _x("user_annotation", "ProfilerStep#1", 100, 100),
        _x("cpu_op", "aten::linear", 10, 60),
        _x("cpu_op", "aten::addmm", 12, 50),
        _x("cpu_op", "aten::relu", 110, 20),
        _x("cpu_op", "aten::clamp_min", 112, 10),
        _x("cpu_op", "aten::add_", 60, 20, tid=2),  # [60, 80): 10 µs beside aten::linear
        _x(
            "user_annotation", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 100, 6
        ),
        _x("cpu_op", "aten::mm", 250, 1000),  # outside the steps: not counted
    ]
    path.write_text(json.dumps(_trace(events)))
    b = summarize_trace(path)
    assert b.device == "cpu" and b.steps == 2 and b.total_s == pytest.approx(200e-6)
    # busy: [10, 80) + [110, 130) = 90 µs; matmul 50 + 10/2, other 5 + 10 + 20
    assert shares(b)["matmul"] == pytest.approx(27.5)
    assert shares(b)["other compute"] == pytest.approx(17.5)
    assert shares(b)["idle"] == pytest.approx(55.0)
    assert [(o.name, o.count) for o in b.top] == [
        ("aten::linear", 1),
        ("aten::add_", 1),  # 20 µs each: ties go by name
        ("aten::relu", 1),
    ]
    assert b.dataloader_wait_s_per_step == pytest.approx(3e-6)


def test_a_trace_without_profiler_steps_uses_its_span(tmp_path: Path) -> None:
    path = tmp_path / "nosteps.json"
    path.write_text(
        json.dumps([_x("cpu_op", "aten::mm", 0, 30), _x("cpu_op", "aten::add", 40, 10)])
    )
    b = summarize_trace(path, steps=5)
    assert b.steps == 5 and b.total_s == pytest.approx(50e-6)
    assert shares(b)["idle"] == pytest.approx(20.0)


def test_gzipped_trace_reads_like_the_plain_one(tmp_path: Path) -> None:
    import gzip

    path = tmp_path / "trace.json.gz"
    path.write_bytes(gzip.compress(H100_TRACE.read_bytes()))
    assert shares(summarize_trace(path)) == shares(summarize_trace(H100_TRACE))


def test_damaged_events_are_skipped_and_counted(tmp_path: Path) -> None:
    path = tmp_path / "damaged.json"
    events: list[object] = [
        _x("user_annotation", "ProfilerStep#0", 0, 100),
        _x("cpu_op", "aten::mm", 0, 40),
        {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": "0", "dur": 10},
        {"ph": "X", "cat": "cpu_op", "name": ["x"], "ts": 0, "dur": 10},
        {"ph": "X", "cat": "kernel", "name": "gemm", "ts": 0, "dur": -5},
        {"ph": "X", "cat": "kernel", "name": "gemm", "ts": 0, "dur": True},
        "not an event",
        {"ph": "M", "name": "process_name"},  # not a complete event: ignored, not damage
    ]
    text = (
        json.dumps(_trace(events))[:-2]
        + ', {"ph": "X", "cat": "kernel", "name": "g", "ts": NaN, "dur": 1}]}'
    )
    path.write_text(text)
    b = summarize_trace(path)
    assert b.device == "cpu" and shares(b)["matmul"] == pytest.approx(40.0)
    assert "6 damaged trace events skipped" in b.note


# --- a real CPU trace, recorded here --------------------------------------------------------------

_JOB = textwrap.dedent(
    """
    import sys, torch
    from gpuprof.profile.torch_window import TorchWindow
    torch.manual_seed(0)
    torch.set_num_threads(1)
    model = torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.ReLU(), torch.nn.Linear(256, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    data = torch.utils.data.TensorDataset(torch.randn(512, 64), torch.randint(0, 10, (512,)))
    loader = torch.utils.data.DataLoader(data, batch_size=32)
    window = TorchWindow(sys.argv[1], wait=1, warmup=1, active=int(sys.argv[2]))
    for step, (x, y) in enumerate(loader):
        if step == int(sys.argv[3]):
            break
        loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad(); loss.backward(); opt.step()
        window.step()
    if sys.argv[4] == "close":
        window.close()
    print("job done")
    """
)


def _run_job(
    out: Path, active: int, steps: int, *, close: bool = True
) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run(
        [
            sys.executable,
            "-c",
            _JOB,
            str(out),
            str(active),
            str(steps),
            "close" if close else "exit",
        ],
        capture_output=True,
        text=True,
        timeout=240,
        env=env,
        check=False,
    )


@pytest.fixture(scope="module")
def cpu_job(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[Path, subprocess.CompletedProcess[str]]:
    out = tmp_path_factory.mktemp("torch-window")
    return out, _run_job(out, active=4, steps=12)


@pytest.mark.slow
def test_window_records_a_real_cpu_trace_and_its_breakdown(
    cpu_job: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    out, done = cpu_job
    assert done.returncode == 0 and "job done" in done.stdout, done.stderr[-2000:]
    traces = list(out.glob("trace-*.json"))
    breakdowns = list(out.glob("breakdown-*.json"))
    assert len(traces) == 1 and len(breakdowns) == 1, sorted(p.name for p in out.iterdir())
    assert traces[0].name.removeprefix("trace-") == breakdowns[0].name.removeprefix("breakdown-")
    assert not list(out.glob(".*tmp"))  # the trace was written whole, nothing left beside it
    b = read_breakdown(breakdowns[0])
    assert b == from_jsonable(TimeBreakdown, json.loads(breakdowns[0].read_text()))
    assert b.device == "cpu"
    assert b.steps == 4  # the active steps only
    assert sum(shares(b).values()) == pytest.approx(100.0, abs=0.1)
    assert shares(b)["matmul"] > 0  # an MLP: aten::linear / AddmmBackward0
    assert b.top and b.top[0].category in BREAKDOWN_CATEGORIES
    assert {o.name for o in b.top} & {
        "aten::linear",
        "autograd::engine::evaluate_function: AddmmBackward0",
    }
    assert b.dataloader_wait_s_per_step is not None and b.dataloader_wait_s_per_step > 0
    # No double counting: top-level op time is within the window
    busy = sum(s.time_s for s in b.shares if s.category != "idle")
    assert 0 < busy <= b.total_s * 1.0001
    # The same trace summarized again gives the same breakdown (one classification)
    again = summarize_trace(traces[0])
    assert shares(again) == pytest.approx(shares(b))


@pytest.mark.slow
def test_window_cut_short_still_writes_its_trace(tmp_path: Path) -> None:
    """The job ends after 4 of 2 + 10 steps: the active steps recorded so far are kept."""
    done = _run_job(tmp_path, active=10, steps=4)
    assert done.returncode == 0, done.stderr[-2000:]
    (breakdown,) = tmp_path.glob("breakdown-*.json")
    assert read_breakdown(breakdown).steps >= 1


@pytest.mark.slow
def test_window_closed_at_exit_without_close(tmp_path: Path) -> None:
    """A job that never leaves its track block: the window closes at the process's exit."""
    done = _run_job(tmp_path, active=3, steps=8, close=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert len(list(tmp_path.glob("breakdown-*.json"))) == 1


@pytest.mark.slow
def test_job_ending_before_the_window_writes_nothing_and_says_why(tmp_path: Path) -> None:
    done = _run_job(tmp_path, active=3, steps=1)
    assert done.returncode == 0, done.stderr[-2000:]
    assert not list(tmp_path.glob("*.json"))
    assert "before torch.profiler's window" in done.stderr


def test_summarize_profiler_in_process() -> None:
    torch = pytest.importorskip("torch")
    from torch.profiler import ProfilerActivity, profile

    a = torch.randn(128, 128)
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        for _ in range(3):
            torch.relu(a @ a)
    b = summarize_profiler(prof, steps=3)
    assert b.device == "cpu" and b.steps == 3 and b.trace_file is None
    assert shares(b)["matmul"] > 0
    assert sum(shares(b).values()) == pytest.approx(100.0, abs=0.1)


def test_paths_and_schedule() -> None:
    assert trace_path("/x", 12) == Path("/x/trace-12.json")
    assert breakdown_path("/x", 12) == Path("/x/breakdown-12.json")
    assert parse_schedule(None) == (2, 2, 5)
    assert parse_schedule("1,0,3") == (1, 0, 3)
    assert parse_schedule("1,2") == (2, 2, 5)
    assert parse_schedule("0,0,0") == (2, 2, 5)
    assert parse_schedule("a,b,c") == (2, 2, 5)


# --- end to end: gpuprof profile --torch ---------------------------------------------------------


@pytest.mark.slow
def test_profile_torch_end_to_end_on_the_cpu(tmp_path: Path) -> None:
    """`gpuprof profile --torch --demo --out RUN -- python tests/data/train_small.py --steps 15`:
    the stored job profile carries the breakdown, and the trace lies next to the recording."""
    from gpuprof.profile.storage import read_job_profile

    run = tmp_path / "RUN.gpuprof"
    done = run_gpuprof(
        [
            "profile", "--torch", "--demo", "--interval", "0.2", "--out", str(run), "--",
            sys.executable, str(ROOT / "tests" / "data" / "train_small.py"), "--steps", "15",
        ],
        tmp_path,
        timeout=300,
        env={"PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Traceback" not in done.stderr
    profile = read_job_profile(run)
    assert profile is not None and profile.breakdown is not None, done.stderr[-3000:]
    b = profile.breakdown
    assert b.device == "cpu" and b.steps == 5  # the default window: wait 2, warm-up 2, active 5
    assert sum(shares(b).values()) == pytest.approx(100.0, abs=0.1)
    assert shares(b)["matmul"] > 0  # train_small.py is an MLP
    assert b.top and any(o.category == "matmul" for o in b.top)
    assert b.trace_file is not None
    trace = run.parent / b.trace_file  # stored relative to the recording's folder
    assert trace.parent == run.parent and trace.is_file(), (trace, sorted(tmp_path.iterdir()))
    assert summarize_trace(trace).steps == b.steps
