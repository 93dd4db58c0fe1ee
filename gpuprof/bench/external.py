"""Read the numbers out of the reference tools that gpuprof's benchmarks are checked against.

``perf/bench_fidelity.py --device cuda:0`` runs nvbandwidth and mamf-finder, when the user points it
at them, and compares their numbers with ours on the same GPU. Neither tool has a stable
machine-readable output across its versions, so the text they print is parsed here. A parse that
finds nothing raises ``ReferenceOutputError``: it names the tool and shows the start of the text,
so that a changed output format is reported as such and never turned into a wrong number.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["MamfBest", "ReferenceOutputError", "parse_mamf_finder", "parse_nvbandwidth"]


class ReferenceOutputError(ValueError):
    """A reference tool's output did not hold the number asked for."""

    def __init__(self, tool: str, what: str, text: str) -> None:
        head = text.strip()[:300] or "(no output)"
        super().__init__(f"{tool}: {what} not found in its output; it began:\n{head}")


_NUMBER = r"[-+]?\d+(?:\.\d+)?"


def parse_nvbandwidth(text: str, testcase: str, row: int = 0, column: int = 0) -> float:
    """The GB/s in ``row`` / ``column`` of ``testcase``'s matrix in nvbandwidth's text output.

    nvbandwidth prints, for each test case, ``Running <testcase>.``, a title line, a header of
    column indices, then one line per row: the row index and one value per column (``N/A`` where a
    pair is not measured). Newer versions add a ``SUM <testcase> <value>`` line, which is not used:
    on a machine with several GPUs it adds them up.
    """
    start = re.search(rf"^Running {re.escape(testcase)}\.\s*$", text, re.MULTILINE)
    if start is None:
        raise ReferenceOutputError("nvbandwidth", f"test case {testcase!r}", text)
    lines = text[start.end() :].splitlines()
    header: list[int] | None = None
    for line in lines:
        cells = line.split()
        if not cells:
            if header is not None:
                break  # a blank line ends the matrix
            continue
        if cells[0] == "Running" or cells[0] == "SUM":
            break
        if header is None:
            if all(c.isdigit() for c in cells):
                header = [int(c) for c in cells]
            continue
        if cells[0].isdigit() and int(cells[0]) == row:
            values = cells[1:]
            if column not in header or len(values) != len(header):
                break
            value = values[header.index(column)]
            if re.fullmatch(_NUMBER, value) is None:
                raise ReferenceOutputError(
                    "nvbandwidth",
                    f"a number for {testcase} row {row} column {column} (got {value!r})",
                    text,
                )
            return float(value)
    raise ReferenceOutputError("nvbandwidth", f"{testcase} row {row} column {column}", text)


@dataclass(frozen=True, slots=True)
class MamfBest:
    """mamf-finder's headline: the best TFLOPS of a statistic and the shape that reached it."""

    statistic: str  # "median" (versions up to 3), "MAMF" (version 4 on)
    tflops: float
    m: int
    n: int
    k: int


_SHAPE = r"(\d+)\s*x\s*(\d+)\s*x\s*(\d+)"


def parse_mamf_finder(text: str) -> MamfBest:
    """The best median TFLOPS and its M×N×K from mamf-finder's closing summary.

    Up to version 3 the summary lists ``mean:``, ``median:`` and ``max:`` lines, each
    ``<value> TFLOPS @ MxNxK``; the median is the one comparable with our median. Version 4 reports
    ``MAMF (max achievable, boost burst): <value> TFLOPS @ MxNxK``, a median of the fastest
    iterations, instead.
    """
    patterns = (
        ("median", rf"^\s*median:\s*({_NUMBER})\s*TFLOPS\s*@\s*{_SHAPE}"),
        ("MAMF", rf"^\s*MAMF\b[^:\n]*:\s*({_NUMBER})\s*TFLOPS\s*@\s*{_SHAPE}"),
    )
    for statistic, pattern in patterns:
        found = re.findall(pattern, text, re.MULTILINE)
        if found:
            value, m, n, k = found[-1]  # the last summary, if the tool printed interim ones
            return MamfBest(statistic, float(value), int(m), int(n), int(k))
    raise ReferenceOutputError(
        "mamf-finder", "a 'median: … TFLOPS @ MxNxK' or 'MAMF …' summary line", text
    )
