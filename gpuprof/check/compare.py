"""Results from many machines side by side: ``gpuprof compare A.json B.json …``.

Reads acceptance-check results (``gpuprof check --json``: ``"schema": "gpuprof.check"``, see
:mod:`gpuprof.check.model`) and benchmark runs (``gpuprof bench --json``:
``"format": "gpuprof-bench-run"``, :mod:`gpuprof.bench.results`). Each readable file is one column
(a *machine*); each numeric measurement is one row, keyed by the check item (``perf.gemm_bf16``
plus ``/gpuN`` for a per-GPU item) or the benchmark result (``gemm/bf16-8192``).

Outliers, two kinds, both against a median of *peers* (never including the value itself):

* **fleet**: a machine's value against the median of the same row in the other machines;
* **sibling**: in a check result, one GPU's value against the median of the same item on the
  other GPUs of that machine (a GPU whose GEMM is low while its siblings are fine).

A value is an outlier when it is worse than the peer median by more than the larger of
``rel_threshold`` (20 %) and ``mad_k`` (3) robust standard deviations of the peers
(1.4826 × their median absolute deviation, relative to the median): a fleet that is noisy
anyway widens its own threshold. At least ``min_peers`` (2) peers are needed. *Worse* is lower
for rates (TFLOPS, B/s, MHz, …/s), higher for times and temperatures, and either way for
other units.

**Two machines** have no fleet outliers (one peer has no median to stand against), so each row
gets the ratio second / first instead (:attr:`Comparison.ratios`), and the summary says that
outliers need three or more machines rather than "0 outliers" beside a 13× gap.

Result files are read into machines by :mod:`gpuprof.check.machines` (a file that cannot be
read is left out with the reason; the others are still compared); its names are re-exported here.
"""

from __future__ import annotations

import bisect
import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gpuprof.check.machines import (
    CHECK_SCHEMA,
    CHECK_SCHEMA_VERSION,
    Machine,
    Metric,
    Skipped,
    fmt_cell,
    load_result,
    load_results,
    read_result_json,
)
from gpuprof.i18n import tr
from gpuprof.resultlimits import MAX_FILE_BYTES, MAX_ITEMS

__all__ = [
    "CHECK_SCHEMA",
    "CHECK_SCHEMA_VERSION",
    "MAX_FILE_BYTES",
    "MAX_ITEMS",
    "MIN_MACHINES_FOR_OUTLIERS",
    "Comparison",
    "Machine",
    "Metric",
    "Outlier",
    "Skipped",
    "compare",
    "comparison_to_dict",
    "fmt_cell",
    "fmt_ratio",
    "load_result",
    "load_results",
    "read_result_json",
]

#: Fleet outliers need a median of at least two peers.
MIN_MACHINES_FOR_OUTLIERS = 3

_HIGHER_BETTER_UNITS = {"TFLOPS", "B/s", "GB/s", "MHz", "tflops", "bytes_s"}
_LOWER_BETTER_UNITS = {"s", "ms", "us", "µs", "°C", "C"}


@dataclass(frozen=True, slots=True)
class Outlier:
    machine: str
    key: str
    kind: str  # "fleet" or "sibling"
    value: float
    peer_median: float
    ratio: float
    unit: str
    threshold: float  # the relative deviation that counted as an outlier

    def describe(self) -> str:
        what = tr("its peers") if self.kind == "fleet" else tr("its sibling GPUs")
        return tr(
            "{k} at {r:.0f}% of the median of {w}",
            k=self.key,
            r=100.0 * self.ratio,
            w=what,
        )


@dataclass(frozen=True, slots=True)
class Comparison:
    machines: tuple[Machine, ...]
    skipped: tuple[Skipped, ...]
    keys: tuple[str, ...]
    outliers: tuple[Outlier, ...]
    #: With exactly two machines, second / first per key (None where either has no number or
    #: the first is 0); empty otherwise.
    ratios: tuple[float | None, ...] = ()
    #: The relative gap a ratio must pass to be worth a look: the outlier threshold.
    rel_threshold: float = 0.20

    @property
    def pair(self) -> bool:
        """Two machines: ratios instead of fleet outliers."""
        return len(self.machines) == 2

    @property
    def ratio_header(self) -> str:
        """``node-b / node-a``: what a ratio is (empty unless :attr:`pair`)."""
        if not self.pair:
            return ""
        return f"{self.machines[1].label} / {self.machines[0].label}"

    def outliers_of(self, label: str) -> tuple[Outlier, ...]:
        return tuple(o for o in self.outliers if o.machine == label)

    def is_gap(self, ratio: float | None) -> bool:
        """Whether a ratio differs from 1 by more than the outlier threshold, either way."""
        t = self.rel_threshold
        return ratio is not None and (ratio > 1.0 + t or ratio < 1.0 / (1.0 + t))

    def gaps(self) -> list[tuple[str, float]]:
        """(key, ratio) of each row whose ratio :meth:`is_gap`, the largest gap first."""
        if not self.pair:
            return []
        pairs = zip(self.keys, self.ratios, strict=True)
        out = [(k, r) for k, r in pairs if r is not None and self.is_gap(r)]
        # The largest gap either way (×13 and ×0.077 alike); a ratio <= 0 is larger than any.
        return sorted(out, key=lambda kr: -abs(math.log(kr[1])) if kr[1] > 0 else -math.inf)

    def pair_line(self) -> str:
        """With two machines, one line on their ratios and why there are no fleet outliers."""
        if not self.pair:
            return ""
        gaps = self.gaps()
        measured = sum(r is not None for r in self.ratios)
        if gaps:
            key, ratio = gaps[0]
            line = tr(
                "{h}: {g} of {n} measurements differ by more than {t:.0f}% (largest: {k} {r})",
                h=self.ratio_header,
                g=len(gaps),
                n=measured,
                t=100.0 * self.rel_threshold,
                k=key,
                r=fmt_ratio(ratio),
            )
        else:
            line = tr(
                "{h}: none of {n} measurements differs by more than {t:.0f}%",
                h=self.ratio_header,
                n=measured,
                t=100.0 * self.rel_threshold,
            )
        return line + tr(
            "; outliers need three or more machines (a median of the others to stand against)"
        )

    def summary(self, machine: Machine) -> str:
        """One line: what the file is, its verdict or state, its counts and its outliers."""
        statuses = [m.status for m in machine.metrics.values() if m.status]
        counts = ", ".join(
            f"{s} {statuses.count(s)}"
            for s in ("PASS", "WARN", "FAIL", "SKIP", "INFO")
            if statuses.count(s)
        )
        mine = self.outliers_of(machine.label)
        fields: dict[str, Any] = {
            "m": machine.label,
            "kind": machine.kind,
            "v": machine.verdict or "-",
            "n": len(machine.metrics),
            "c": f" ({counts})" if counts else "",
            "o": len(mine),
        }
        if self.pair and not mine:
            # No count: "0 outliers" beside a 13x gap reads as "nothing to see". pair_line
            # says why, and gives the gaps instead.
            line = tr("{m}: {kind} {v}, {n} measurements{c}", **fields)
        elif self.pair:
            # Only sibling outliers (one GPU against the machine's others) exist between two.
            line = tr("{m}: {kind} {v}, {n} measurements{c}; {o} outliers among its GPUs", **fields)
        else:
            line = tr("{m}: {kind} {v}, {n} measurements{c}; {o} outliers", **fields)
        if mine:
            line += ": " + "; ".join(o.describe() for o in mine[:5])
            if len(mine) > 5:
                line += tr("; and {n} more", n=len(mine) - 5)
        return line


# --- outliers --------------------------------------------------------------------------------------


def _direction(key: str, unit: str) -> int:
    """+1: higher is better; -1: lower is better; 0: either way is suspect."""
    if "latency" in key or unit in _LOWER_BETTER_UNITS:
        return -1
    if unit in _HIGHER_BETTER_UNITS or unit.endswith("/s"):
        return 1
    return 0


class _Row:
    """One row's values, sorted once: the median without any one of them, and the spread."""

    def __init__(self, values: Sequence[float]) -> None:
        self.sorted = sorted(values)
        n = len(self.sorted)
        self.median = statistics.median(self.sorted) if n else 0.0
        self.mad = statistics.median(abs(v - self.median) for v in self.sorted) if n else 0.0

    def median_without(self, value: float) -> float:
        s, m = self.sorted, len(self.sorted) - 1
        p = bisect.bisect_left(s, value)

        def get(r: int) -> float:
            return s[r if r < p else r + 1]

        return get(m // 2) if m % 2 else (get(m // 2 - 1) + get(m // 2)) / 2.0


def _outlier(
    value: float,
    row: _Row,
    direction: int,
    *,
    rel_threshold: float,
    mad_k: float,
    min_peers: int,
) -> tuple[float, float, float] | None:
    """(peer median, ratio, threshold) when ``value`` (one of ``row``) is an outlier against the
    rest of the row: the median of the others, the spread (MAD) of the whole row."""
    if len(row.sorted) - 1 < min_peers:
        return None
    med = row.median_without(value)
    if med <= 0 or row.median <= 0:
        return None
    threshold = max(rel_threshold, mad_k * 1.4826 * row.mad / row.median)
    deviation = (value - med) / med
    worse = -deviation if direction > 0 else deviation if direction < 0 else abs(deviation)
    if worse > threshold:
        return med, value / med, threshold
    return None


def compare(
    machines: Sequence[Machine],
    skipped: Sequence[Skipped] = (),
    *,
    rel_threshold: float = 0.20,
    mad_k: float = 3.0,
    min_peers: int = 2,
) -> Comparison:
    """Rows, columns and outliers of ``machines`` (see the module docstring)."""
    keys: list[str] = []
    seen: set[str] = set()
    for m in machines:
        for k in m.metrics:
            if k not in seen:
                seen.add(k)
                keys.append(k)
    opts: dict[str, Any] = {"rel_threshold": rel_threshold, "mad_k": mad_k, "min_peers": min_peers}
    outliers: list[Outlier] = []
    if len(machines) > min_peers:  # else no value has enough peers: skip building the rows
        for key in keys:
            present = [
                (m, x.value, x.unit)
                for m in machines
                if (x := m.metrics.get(key)) is not None and x.value is not None
            ]
            if len(present) <= min_peers:
                continue
            row = _Row([v for _m, v, _u in present])
            for m, v, unit in present:
                hit = _outlier(v, row, _direction(key, unit), **opts)
                if hit:
                    med, ratio, limit = hit
                    outliers.append(Outlier(m.label, key, "fleet", v, med, ratio, unit, limit))
    for m in machines:
        by_item: dict[str, list[tuple[str, float]]] = {}
        for key, (item, _gpu) in m.groups.items():
            value = m.metrics[key].value
            if value is not None:
                by_item.setdefault(item, []).append((key, value))
        for siblings in by_item.values():
            if len(siblings) <= min_peers:
                continue
            row = _Row([w for _k, w in siblings])
            for key, v in siblings:
                unit = m.metrics[key].unit
                hit = _outlier(v, row, _direction(key, unit), **opts)
                if hit:
                    med, ratio, limit = hit
                    outliers.append(Outlier(m.label, key, "sibling", v, med, ratio, unit, limit))
    ratios = _ratios(machines[0], machines[1], keys) if len(machines) == 2 else ()
    return Comparison(
        tuple(machines), tuple(skipped), tuple(keys), tuple(outliers), ratios, rel_threshold
    )


def _ratios(a: Machine, b: Machine, keys: Sequence[str]) -> tuple[float | None, ...]:
    """b / a for each key; None where either has no number, or a is 0 (no ratio to say)."""
    out: list[float | None] = []
    for key in keys:
        x, y = a.metrics.get(key), b.metrics.get(key)
        if x is None or y is None or x.value is None or y.value is None or x.value == 0:
            out.append(None)
            continue
        r = y.value / x.value
        out.append(r if math.isfinite(r) else None)
    return tuple(out)


def _row_dict(key: str, cells: list[Metric | None], ratio: float | None) -> dict[str, Any]:
    return {
        "key": key,
        "unit": next((x.unit for x in cells if x), ""),
        "values": [x.value if x else None for x in cells],
        "status": [x.status if x else None for x in cells],
        "text": [x.text if x else None for x in cells],
        "ratio": ratio,
    }


def comparison_to_dict(comp: Comparison) -> dict[str, Any]:
    """The ``--json`` document: machines (columns), rows, outliers, skipped files, summaries.

    With two machines each row's ``ratio`` is second / first (``ratio_of`` names them) and
    ``note`` says why there are no fleet outliers; otherwise ``ratio`` is null."""
    ratios = comp.ratios or (None,) * len(comp.keys)
    machines = comp.machines
    return {
        "schema": "gpuprof.compare",
        "schema_version": 1,
        "machines": [
            {"label": m.label, "path": m.path, "kind": m.kind, "verdict": m.verdict}
            for m in machines
        ],
        "min_machines_for_outliers": MIN_MACHINES_FOR_OUTLIERS,
        "ratio_of": (
            {"numerator": machines[1].label, "denominator": machines[0].label}
            if comp.pair
            else None
        ),
        "note": comp.pair_line() or None,
        "rows": [
            _row_dict(key, [m.metrics.get(key) for m in machines], ratio)
            for key, ratio in zip(comp.keys, ratios, strict=True)
        ],
        "outliers": [
            {
                "machine": o.machine,
                "key": o.key,
                "kind": o.kind,
                "value": o.value,
                "peer_median": o.peer_median,
                "ratio": o.ratio,
                "unit": o.unit,
                "threshold": o.threshold,
            }
            for o in comp.outliers
        ],
        "skipped": [{"path": s.path, "reason": s.reason} for s in comp.skipped],
        "summary": [comp.summary(m) for m in comp.machines],
    }


def fmt_ratio(ratio: float | None) -> str:
    """``×13.2``, ``×0.076``, ``×1,234``: a ratio of two machines' values (empty for None)."""
    if ratio is None:
        return ""
    return f"×{ratio:,.0f}" if abs(ratio) >= 1000 else f"×{ratio:.3g}"


def render_html(comp: Comparison) -> str:
    """A self-contained HTML page: the summaries, then the table (outliers marked; with two
    machines a last column of ratios, those past the outlier threshold marked)."""
    from html import escape

    flagged = {(o.machine, o.key) for o in comp.outliers}
    head = "".join(f"<th>{escape(m.label)}</th>" for m in comp.machines)
    if comp.pair:
        head += f"<th>{escape(comp.ratio_header)}</th>"
    rows = []
    for i, key in enumerate(comp.keys):
        cells = []
        for m in comp.machines:
            x = m.metrics.get(key)
            if x is None:
                cells.append("<td></td>")
                continue
            shown = x.shown
            cls = ' class="outlier"' if (m.label, key) in flagged else ""
            status = f" <small>{escape(x.status)}</small>" if x.status else ""
            cells.append(f"<td{cls}>{escape(shown)}{status}</td>")
        if comp.pair:
            r = comp.ratios[i]
            cls = ' class="gap"' if comp.is_gap(r) else ""
            cells.append(f"<td{cls}>{escape(fmt_ratio(r))}</td>")
        rows.append(f"<tr><th>{escape(key)}</th>{''.join(cells)}</tr>")
    summary = "".join(f"<li>{escape(comp.summary(m))}</li>" for m in comp.machines)
    pair = f"<p>{escape(comp.pair_line())}</p>" if comp.pair else ""
    left = "".join(f"<li>{escape(s.reason)}</li>" for s in comp.skipped)
    title = escape(tr("gpuprof: {n} machines compared", n=len(comp.machines)))
    left_out = escape(tr("Left out"))
    return (
        '<!DOCTYPE html>\n<html><head><meta charset="utf-8">'
        f"<title>{title}</title><style>"
        "body{font-family:sans-serif}table{border-collapse:collapse}"
        "td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}"
        "td.outlier,td.gap{background:#fdd;font-weight:bold}</style></head><body>"
        f"<h1>{title}</h1><ul>{summary}</ul>{pair}"
        + (f"<h2>{left_out}</h2><ul>{left}</ul>" if left else "")
        + f"<table><tr><th></th>{head}</tr>{''.join(rows)}</table></body></html>\n"
    )


def dumps_json(comp: Comparison) -> str:
    from gpuprof.jsonout import dumps

    # One line: the indenting encoder is pure Python and slow on 100 machines' rows.
    return dumps(comparison_to_dict(comp), indent=None) + "\n"
