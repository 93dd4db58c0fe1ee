"""Parsing the reference tools' text output (nvbandwidth, mamf-finder) for perf/bench_fidelity.py."""

from __future__ import annotations

import pytest

from gpuprof.bench.external import ReferenceOutputError, parse_mamf_finder, parse_nvbandwidth

# The layout nvbandwidth's README documents; two test cases, a 2-GPU host, a SUM line (newer versions).
NVBANDWIDTH_2GPU = """\
nvbandwidth Version: v0.7
Built from Git version: v0.7

NOTE: This tool reports current measured bandwidth on your system.
Device 0: NVIDIA H200 (00000000:18:00)
Device 1: NVIDIA H200 (00000000:2a:00)

Running device_to_host_memcpy_ce.
memcpy CE CPU(row) <- GPU(column) bandwidth (GB/s)
           0         1
 0     55.10     54.80

SUM device_to_host_memcpy_ce 109.90

Running host_to_device_memcpy_ce.
memcpy CE CPU(row) -> GPU(column) bandwidth (GB/s)
           0         1
 0     53.62     52.97

SUM host_to_device_memcpy_ce 106.59
"""

NVBANDWIDTH_OLD = """\
Running host_to_device_memcpy_ce.
memcpy CE CPU(row) -> GPU(column) bandwidth (GB/s)
          0         1
0      6.20     12.36
"""


def test_nvbandwidth_reads_the_asked_test_case_and_column() -> None:
    assert parse_nvbandwidth(NVBANDWIDTH_2GPU, "host_to_device_memcpy_ce") == 53.62
    assert parse_nvbandwidth(NVBANDWIDTH_2GPU, "host_to_device_memcpy_ce", column=1) == 52.97
    assert parse_nvbandwidth(NVBANDWIDTH_2GPU, "device_to_host_memcpy_ce", column=1) == 54.80
    assert parse_nvbandwidth(NVBANDWIDTH_OLD, "host_to_device_memcpy_ce", column=1) == 12.36


def test_nvbandwidth_missing_case_column_or_number_is_an_error_naming_it() -> None:
    with pytest.raises(
        ReferenceOutputError, match="nvbandwidth: test case 'device_to_device_memcpy_read_ce'"
    ):
        parse_nvbandwidth(NVBANDWIDTH_2GPU, "device_to_device_memcpy_read_ce")
    with pytest.raises(ReferenceOutputError, match="row 0 column 2"):
        parse_nvbandwidth(NVBANDWIDTH_2GPU, "host_to_device_memcpy_ce", column=2)
    waived = NVBANDWIDTH_OLD.replace("6.20", " N/A")
    with pytest.raises(ReferenceOutputError, match="got 'N/A'"):
        parse_nvbandwidth(waived, "host_to_device_memcpy_ce")
    with pytest.raises(ReferenceOutputError, match=r"\(no output\)"):
        parse_nvbandwidth("", "host_to_device_memcpy_ce")


# The closing summary of mamf-finder up to version 3, and of version 4.
MAMF_V3 = """\
Benchmark started on 2026-12-01 10:00:00

 4096 x 4096 x 4096 | 690.2(mean) 701.5(median) 712.0(max) @ 4096x4096x4096 | best: 701.5(median) TFLOPS

--------------------------------------------------------------------------------

** Results:

Tried 80 shapes => the best outcomes were:
mean:   731.4 TFLOPS @ 11264x4096x4096
median: 742.9 TFLOPS @ 11264x4096x4096
max:    760.3 TFLOPS @ 12288x4096x4096

Across 80 shapes in range: m=0:20480:256 | n=4096 | k=4096 in this run:
arithmetic mean: 688.1 TFLOPS
geometric mean:  680.2 TFLOPS

Legend: TFLOPS = 10**12 FLOPS
"""

MAMF_V4 = """\
** Results:

Tried 31 shapes => the best outcomes were:
MAMF (max achievable,  boost burst): 781.2 TFLOPS @ 6144x17920x2816
MSMF (max sustainable, saturated):   702.4 TFLOPS @ 8192x8192x4096
"""


@pytest.mark.parametrize(
    ("text", "want"),
    [
        (MAMF_V3, ("median", 742.9, 11264, 4096, 4096)),
        (MAMF_V4, ("MAMF", 781.2, 6144, 17920, 2816)),
    ],
    ids=["v3 median summary", "v4 MAMF headline"],
)
def test_mamf_finder_headline(text: str, want: tuple[str, float, int, int, int]) -> None:
    best = parse_mamf_finder(text)
    assert (best.statistic, best.tflops, best.m, best.n, best.k) == want


def test_mamf_finder_interrupted_before_its_summary_is_an_error() -> None:
    cut = MAMF_V3.split("** Results:")[0]
    with pytest.raises(ReferenceOutputError, match=r"mamf-finder: .*summary line not found"):
        parse_mamf_finder(cut)
