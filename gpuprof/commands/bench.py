"""``gpuprof bench``: run the microbenchmark suite; ``bench list | show ID | compare A B``.

torch is imported only when a benchmark runs. Under ``torchrun`` every rank runs the suite
(``--only collective``); rank 0 alone prints and saves.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable, Container, Iterable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from gpuprof.argtypes import positive_int
from gpuprof.commands.args import add_json_out
from gpuprof.commands.base import Command, add_actions
from gpuprof.commands.progress import run_with_progress
from gpuprof.errors import GpuprofError, InputError
from gpuprof.i18n import N_, tr, tr_text
from gpuprof.units import (
    NA,
    fmt_bytes,
    fmt_latency,
    fmt_measure,
    fmt_num,
    fmt_pct,
    fmt_rate,
    tflops_digits,
)

if TYPE_CHECKING:
    from rich.console import Console

    from gpuprof.bench.base import CancelToken
    from gpuprof.bench.results import Comparison
    from gpuprof.bench.runner import BenchRun

__all__ = ["COMMANDS", "render_comparison", "render_run"]


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--suite",
        choices=("quick", "standard", "full"),
        default="quick",
        help=tr("how much to measure (quick ≈ 30 s on one GPU; default quick)"),
    )
    p.add_argument(
        "--only",
        metavar="LIST",
        help=tr("comma-separated subset: gemm,memory,p2p,collective,workload"),
    )
    p.add_argument(
        "--device", metavar="DEV", help=tr("cuda:N or cpu (default: cuda:0 if available)")
    )
    add_json_out(p, tr("also write the run as JSON (docs/bench-schema.md)"), stdout=False)
    p.add_argument(
        "--no-save", action="store_true", help=tr("do not store the run in the results database")
    )
    add_actions(p, "bench_command", _ACTIONS)


def _list_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--limit", type=positive_int(), default=20, help=tr("how many runs (default 20)")
    )


def _show_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("run_id", metavar="ID")
    add_json_out(p, tr("write the run as JSON ('-' for stdout)"))


def _compare_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("run_a", metavar="ID_A")
    p.add_argument("run_b", metavar="ID_B")


def _console() -> Console:
    from gpuprof.termtext import console

    # Markup off: case names, notes and environment strings from results files print as they are.
    return console()


# --- run ------------------------------------------------------------------------------------------


def _rank() -> int:
    return int(os.environ.get("RANK", "0"))


class NoTorchError(GpuprofError):
    """The benchmarks need PyTorch and it cannot be imported here."""


def require_torch() -> None:
    """Import torch, or say in one line how to get it (in the lite executable: that this
    build has no benchmarks). A torch that is installed but broken says why, too."""
    try:
        import torch  # noqa: F401
    except ImportError as exc:  # ModuleNotFoundError, or a torch whose own imports fail
        if getattr(sys, "frozen", False):
            raise NoTorchError(
                tr(
                    "this build of gpuprof has no benchmarks (the lite executable, without "
                    "PyTorch); use the full build, or `pip install 'gpuprof[bench]'`"
                )
            ) from None
        missing = isinstance(exc, ModuleNotFoundError) and (exc.name or "").split(".")[0] in (
            "torch",
            "",
        )
        raise NoTorchError(
            tr(
                "benchmarks need PyTorch, which is not installed here; install it with "
                "`pip install 'gpuprof[bench]'` (or the torch build for your CUDA version, "
                "https://pytorch.org/get-started/locally/)"
            )
            if missing
            else tr(
                "benchmarks need PyTorch, and it does not import here: {e}; reinstall it "
                "(`pip install --force-reinstall torch`)",
                e=exc,
            )
        ) from None


def _cmd_run(args: argparse.Namespace) -> int:
    from gpuprof.bench.base import RunState
    from gpuprof.bench.results import ResultsDB, write_json
    from gpuprof.bench.runner import Runner, RunProgress, parse_only

    only = parse_only(args.only)
    quiet = _rank() != 0
    console = _console()
    from gpuprof.bench.runner import open_run_telemetry

    source = open_run_telemetry(args.device)
    runner = Runner(device=args.device, suite=args.suite, only=only, source=source)

    def job(on_progress: Callable[[RunProgress], None], cancel: CancelToken) -> BenchRun:
        require_torch()
        return runner.run(on_progress=on_progress, cancel=cancel)

    def describe(p: RunProgress) -> tuple[float, str]:
        return p.fraction, f"[{p.case_index + 1}/{p.case_count}] {p.stage}"

    try:
        run = run_with_progress(
            job,
            describe=describe,
            console=console,
            starting=tr("starting (importing torch)…"),
            thread_name="gpuprof-bench",
            quiet=quiet,
        )
    finally:
        if source is not None:
            source.close()
    if quiet:
        return 0
    if not args.no_save:
        ResultsDB().save(run)
    if args.json:
        write_json(run, args.json)
    render_run(run, console)
    if not args.no_save:
        console.print(tr("saved as {i}: `gpuprof bench show {i}`", i=run.run_id))
    if run.state is RunState.INTERRUPTED:
        return 130
    # A partial run saved what it measured, but a case failed: not a success to a script.
    return 1 if run.state in (RunState.FAILURE, RunState.PARTIAL) else 0


# --- list / show / compare ------------------------------------------------------------------------


def _cmd_list(args: argparse.Namespace) -> int:
    from rich.table import Table

    from gpuprof.bench.results import ResultsDB

    runs = ResultsDB().list_runs(limit=args.limit)
    console = _console()
    if not runs:
        console.print(tr("no benchmark runs yet: try `gpuprof bench`"))
        return 0
    table = Table(title=tr("benchmark runs"))
    table.add_column(tr("id"), no_wrap=True, min_width=max(len(r.run_id) for r in runs))
    for col in (tr("started"), tr("suite"), tr("device"), tr("state"), tr("results")):
        table.add_column(col)
    for r in runs:
        started = time.strftime("%Y-%m-%d %H:%M", time.localtime(r.started_s))
        device = f"{r.device} ({r.device_name})" if r.device_name else r.device
        table.add_row(
            r.run_id, started, r.suite, device, tr_text(r.state), f"{r.n_ok}/{r.n_results}"
        )
    console.print(table)
    return 0


def _cmd_show(args: argparse.Namespace) -> int:
    from gpuprof.bench.results import ResultsDB, run_to_dict, write_json

    run = ResultsDB().load(args.run_id)
    if args.json == "-":
        from gpuprof.jsonout import print_json

        print_json(run_to_dict(run))
        return 0
    if args.json:
        write_json(run, args.json)
    render_run(run, _console())
    return 0


def _cmd_compare(args: argparse.Namespace) -> int:
    from gpuprof.bench.results import ResultsDB

    db = ResultsDB()
    a, b = db.load(args.run_a), db.load(args.run_b)
    if a.run_id == b.run_id:
        raise InputError(tr("compare needs two different runs"))
    render_comparison(a, b, db.compare(a.run_id, b.run_id), _console())
    return 0


# --- rendering (shared with the report) -----------------------------------------------------------


def _tflops(value: float | None) -> str:
    return fmt_num(value, digits=tflops_digits(value))


def _flags(result: Any) -> str:
    parts = []
    if result.throttled:
        parts.append(tr("THROTTLED: {r}", r=", ".join(result.throttle_reasons)))
    parts.extend(tr_text(note) for note in result.notes)
    return "; ".join(parts)


def _print_table(
    console: Console,
    title: str,
    columns: Sequence[str],
    rows: Iterable[Sequence[str]],
    *,
    text: Container[str] = ("case", "op", "notes"),
) -> None:
    """A table of ``rows`` under ``columns`` (translated); the ``text`` columns are aligned
    left, the numbers right."""
    from rich.table import Table

    t = Table(title=title)
    for col in columns:
        t.add_column(tr(col), justify="left" if col in text else "right")
    for row in rows:
        t.add_row(*row)
    console.print(t)


class _Family(NamedTuple):
    """How one benchmark family's results print: the table's title (from its results), the
    columns and the cells of a result's row."""

    title: Callable[[Sequence[Any]], str]
    columns: tuple[str, ...]
    cells: Callable[[Any], tuple[str, ...]]


def _print_family(console: Console, results: Iterable[object], kind: type, family: _Family) -> None:
    """The table of the results of type ``kind``, one row each; nothing where there are none."""
    rows = [r for r in results if isinstance(r, kind)]
    if rows:
        _print_table(console, family.title(rows), family.columns, map(family.cells, rows))


def _gemm_cells(g: Any) -> tuple[str, ...]:
    tflops = (_tflops(g.tflops_median), _tflops(g.tflops_mean), _tflops(g.tflops_max))
    return (g.case, *tflops, fmt_pct(g.pct_of_peak, digits=1), str(g.iterations), _flags(g))


def _memory_cells(m: Any) -> tuple[str, ...]:
    rates = (fmt_rate(m.bandwidth_bytes_s), fmt_rate(m.bandwidth_max_bytes_s))
    return (m.case, *rates, str(m.samples), tr("yes") if m.verified else tr("NO"), _flags(m))


def _collective_cells(c: Any) -> tuple[str, ...]:
    rates = (fmt_rate(c.algbw_bytes_s), fmt_rate(c.busbw_bytes_s))
    latencies = (fmt_latency(c.latency_p50_s), fmt_latency(c.latency_p99_s))
    return (c.op, fmt_bytes(c.size_bytes), *rates, *latencies, _flags(c))


def _workload_cells(w: Any) -> tuple[str, ...]:
    throughput = fmt_num(w.throughput_per_s, f"{w.unit}/s", digits=0)
    return (w.case, throughput, fmt_latency(w.step_time_median_s), str(w.steps), _flags(w))


_GEMM = _Family(
    lambda _: tr("GEMM"),
    (
        N_("case"),
        N_("TFLOPS median"),
        N_("mean"),
        N_("max"),
        N_("% of peak"),
        N_("iters"),
        N_("notes"),
    ),
    _gemm_cells,
)
_MEMORY = _Family(
    lambda _: tr("memory bandwidth (bytes copied)"),
    (N_("case"), N_("median"), N_("best"), N_("samples"), N_("verified"), N_("notes")),
    _memory_cells,
)
_COLLECTIVES = _Family(
    lambda coll: tr("collectives ({b}, {n} ranks)", b=coll[0].backend, n=coll[0].world_size),
    (N_("op"), N_("size"), "algbw", "busbw", "p50", "p99", N_("notes")),
    _collective_cells,
)
_WORKLOAD = _Family(
    lambda _: tr("training step"),
    (N_("case"), N_("throughput"), N_("step"), N_("steps"), N_("notes")),
    _workload_cells,
)


def render_run(run: BenchRun, console: Console) -> None:
    """The results of a run as rich tables, one per benchmark family."""
    from rich.table import Table

    from gpuprof.bench.base import (
        CollectiveResult,
        GemmResult,
        MemoryResult,
        P2PResult,
        RunState,
        WorkloadResult,
    )

    env = run.environment
    what = env.gpu_name or env.cpu_model or run.device
    from gpuprof.termtext import markup, safe

    console.print(
        markup(
            tr(
                "[bold]run {i}[/bold]  suite {s}  on {d} ({w})  state {st}  {t:.0f} s",
                i=safe(run.run_id),
                s=safe(run.suite),
                d=safe(run.device),
                w=safe(what),
                st=safe(tr_text(run.state.value)),
                t=run.ended_s - run.started_s,
            )
        )
    )
    versions = [f"torch {env.torch_version}"] if env.torch_version else []
    if env.cuda_runtime_version:
        versions.append(f"CUDA {env.cuda_runtime_version}")
    if env.driver_version:
        versions.append(tr("driver {v}", v=env.driver_version))
    if env.cublas_version:
        versions.append(f"cuBLAS {env.cublas_version}")
    if env.power_limit_w:
        versions.append(tr("power limit {w:.0f} W", w=env.power_limit_w))
    if versions:
        console.print("  " + ", ".join(versions))
    for note in run.notes:
        console.print(f"  {tr_text(note)}")
    results = run.results
    _print_family(console, results, GemmResult, _GEMM)
    _print_family(console, results, MemoryResult, _MEMORY)
    for p in (x for x in results if isinstance(x, P2PResult) and x.ok):
        t = Table(
            title=tr(
                "P2P unidirectional bandwidth, peer access on ({s})", s=fmt_bytes(p.size_bytes)
            )
        )
        t.add_column("src \\ dst")
        for j in p.devices:
            t.add_column(f"GPU{j}", justify="right")
        for i, row in enumerate(p.uni_bw_on_bytes_s):
            cells = [fmt_rate(v) if v is not None else NA for v in row]
            if p.links:
                cells = [
                    f"{c}\n{p.links[i][j] or ''}" if i != j else c for j, c in enumerate(cells)
                ]
            t.add_row(f"GPU{p.devices[i]}", *cells)
        console.print(t)
    _print_family(console, results, CollectiveResult, _COLLECTIVES)
    _print_family(console, results, WorkloadResult, _WORKLOAD)
    # One place per case: a case that measured nothing is a "not measured" row with its own
    # notes (e.g. the time it took to find out it was too slow), not a second line below.
    other = [(case, r) for case in run.cases for r in case.results if not r.ok]
    if other:
        t = Table(title=tr("not measured"))
        t.add_column(tr("case"))
        t.add_column(tr("why"))
        for case, o in other:
            why = [tr_text(o.status)]
            if case.state is RunState.SKIPPED and o is case.results[-1]:
                why.extend(map(tr_text, case.notes))
            t.add_row(f"{o.bench} {o.case}", "; ".join(why))
        console.print(t)
    for case in run.cases:
        if case.state is not RunState.SKIPPED and (case.error or case.notes):
            detail = "; ".join([*(x for x in [case.error] if x), *map(tr_text, case.notes)])
            console.print(f"  {case.name}: {tr_text(case.state.value)}: {detail}")


def render_comparison(a: BenchRun, b: BenchRun, rows: list[Comparison], console: Console) -> None:

    _print_table(
        console,
        tr("{a} (A) vs {b} (B)", a=a.run_id, b=b.run_id),
        (N_("measurement"), "A", "B", "B/A"),
        [
            (
                row.key,
                fmt_measure(row.unit, row.a)
                if row.a is not None
                else (tr_text(row.a_status or "") or "-"),
                fmt_measure(row.unit, row.b)
                if row.b is not None
                else (tr_text(row.b_status or "") or "-"),
                f"{row.ratio:.3f}" if row.ratio is not None else NA,
            )
            for row in rows
        ],
        text=("measurement",),
    )
    if a.environment.gpu_name != b.environment.gpu_name or a.device != b.device:
        console.print(
            tr(
                "note: the runs were on different devices ({x} / {y})",
                x=a.environment.gpu_name or a.device,
                y=b.environment.gpu_name or b.device,
            )
        )


_ACTIONS = (
    Command("list", N_("list earlier runs, newest first"), _list_arguments, _cmd_list),
    Command(
        "show", N_("show one run (ID, a unique prefix, or 'latest')"), _show_arguments, _cmd_show
    ),
    Command(
        "compare",
        N_("compare two runs, measurement by measurement"),
        _compare_arguments,
        _cmd_compare,
    ),
)
COMMANDS = (
    Command(
        "bench",
        N_("run GPU microbenchmarks (GEMM, memory, P2P, collectives, a training step)"),
        add_arguments,
        _cmd_run,
        description=N_(
            "Measure what this GPU really delivers: GEMM TFLOPS by dtype against the spec peak, "
            "copy bandwidth, GPU-to-GPU bandwidth, all-reduce / all-gather bus bandwidth and a "
            "training step. Without a GPU the CPU versions run for real; what cannot run says "
            "why. Results go to the results database; see `gpuprof bench list`."
        ),
    ),
)
