"""Bounds on one result file (``gpuprof compare``, the report's check page, a benchmark run's
JSON), in a leaf module of their own: ``gpuprof compare --help`` states them, and the CLI imports
this at every start-up, where :mod:`gpuprof.check.compare` (statistics, bisect) would cost
~3 ms; the benchmark reader (:mod:`gpuprof.bench.results`) shares them without importing the
check, which imports the benchmarks."""

from __future__ import annotations

__all__ = ["MAX_FILE_BYTES", "MAX_ITEMS"]

#: A result file larger than this is not one (a check of 8 GPUs is ~60 KB; a benchmark run with
#: an hour of telemetry a few MB).
MAX_FILE_BYTES = 16 << 20
#: Items of a check result, or results of a benchmark run, one file may hold (a check of 8 GPUs
#: has ~150): a bound on the work one file can ask for.
MAX_ITEMS = 10_000
