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

A file that cannot be read (not JSON, another program's JSON, a newer schema than this gpuprof
reads, too large, broken inside) is left out with the reason; the others are still compared.
"""

from __future__ import annotations

import bisect
import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from gpuprof.errors import GpuprofError, InputError
from gpuprof.i18n import tr

__all__ = [
    "CHECK_SCHEMA",
    "CHECK_SCHEMA_VERSION",
    "MAX_FILE_BYTES",
    "Comparison",
    "Machine",
    "Metric",
    "Outlier",
    "Skipped",
    "compare",
    "comparison_to_dict",
    "fmt_cell",
    "load_result",
    "load_results",
    "read_result_json",
]

CHECK_SCHEMA = "gpuprof.check"
#: The newest check-result schema this reader knows (gpuprof.check.model.SCHEMA_VERSION).
CHECK_SCHEMA_VERSION = 1
BENCH_FORMAT = "gpuprof-bench-run"
MAX_FILE_BYTES = 64 << 20

_HIGHER_BETTER_UNITS = {"TFLOPS", "B/s", "GB/s", "MHz", "tflops", "bytes_s"}
_LOWER_BETTER_UNITS = {"s", "ms", "us", "µs", "°C", "C"}


@dataclass(frozen=True, slots=True)
class Metric:
    """One measurement of one machine: the value (None when not a finite number), its unit and
    the check status or benchmark status it came with."""

    value: float | None
    unit: str = ""
    status: str = ""
    text: str = ""  # a non-numeric measurement ("NV18", "12.4"), shown as it is

    @property
    def shown(self) -> str:
        """The value as a table cell shows it (:func:`fmt_cell`), or the text measurement."""
        return fmt_cell(self.value, self.unit) if self.value is not None else self.text

    @property
    def cell(self) -> str:
        """:attr:`shown` and then the status, as the terminal and the app show a cell."""
        return f"{self.shown} {self.status}" if self.status else self.shown


@dataclass(frozen=True, slots=True)
class Machine:
    """One readable result file."""

    label: str
    path: str
    kind: str  # "check" or "bench"
    verdict: str = ""  # a check's PASS/WARN/FAIL; a benchmark run's state
    metrics: dict[str, Metric] = field(default_factory=dict)
    groups: dict[str, tuple[str, int]] = field(default_factory=dict)  # key → (item, GPU index)


@dataclass(frozen=True, slots=True)
class Skipped:
    path: str
    reason: str


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

    def outliers_of(self, label: str) -> tuple[Outlier, ...]:
        return tuple(o for o in self.outliers if o.machine == label)

    def summary(self, machine: Machine) -> str:
        """One line: what the file is, its verdict or state, its counts and its outliers."""
        statuses = [m.status for m in machine.metrics.values() if m.status]
        counts = ", ".join(
            f"{s} {statuses.count(s)}"
            for s in ("PASS", "WARN", "FAIL", "SKIP")
            if statuses.count(s)
        )
        mine = self.outliers_of(machine.label)
        line = tr(
            "{m}: {kind} {v}, {n} measurements{c}; {o} outliers",
            m=machine.label,
            kind=machine.kind,
            v=machine.verdict or "-",
            n=len(machine.metrics),
            c=f" ({counts})" if counts else "",
            o=len(mine),
        )
        if mine:
            line += ": " + "; ".join(o.describe() for o in mine[:5])
            if len(mine) > 5:
                line += tr("; and {n} more", n=len(mine) - 5)
        return line


# --- reading ---------------------------------------------------------------------------------------


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def _text(value: Any, max_len: int = 80) -> str:
    """Text from the file, safe to print: plain ASCII passes as it is (the common case, fast),
    anything else goes through :func:`gpuprof.termtext.plain` (controls, bidi, length)."""
    if value is None:
        return ""
    if isinstance(value, str) and len(value) <= max_len and value.isascii() and value.isprintable():
        return value
    from gpuprof.termtext import plain

    return plain(value, one_line=True, max_len=max_len)


def _check_machine(data: dict[str, Any], path: Path) -> Machine:
    version = data.get("schema_version")
    if isinstance(version, bool) or not isinstance(version, int):
        raise InputError(tr("schema_version is not a whole number"))
    if version > CHECK_SCHEMA_VERSION:
        raise InputError(
            tr(
                "check result schema {v} is newer than this gpuprof reads ({m})",
                v=version,
                m=CHECK_SCHEMA_VERSION,
            )
        )
    items = data.get("items")
    if not isinstance(items, list):
        raise InputError(tr("a check result without a list of items"))
    identity = data.get("identity")
    host = identity.get("hostname") if isinstance(identity, dict) else None
    metrics: dict[str, Metric] = {}
    groups: dict[str, tuple[str, int]] = {}
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("item_id"), str):
            raise InputError(tr("an item that is not an object with an item_id"))
        gpu = item.get("gpu_index")
        key = _text(item["item_id"], 120)
        if isinstance(gpu, int) and not isinstance(gpu, bool):
            groups[f"{key}/gpu{gpu}"] = (key, gpu)
            key = f"{key}/gpu{gpu}"
        measured = item.get("measured")
        value = _number(measured)
        metrics[key] = Metric(
            value=value,
            unit=_text(item.get("unit"), 20),
            status=_text(item.get("status"), 8),
            text="" if value is not None else _text(measured),
        )
    verdict = data.get("verdict")
    return Machine(
        label=_text(host or path.stem),
        path=str(path),
        kind="check",
        verdict=_text(verdict, 10),
        metrics=metrics,
        groups=groups,
    )


def _bench_machine(data: dict[str, Any], path: Path) -> Machine:
    from gpuprof.bench.results import run_from_dict

    try:
        run = run_from_dict(data)
    except GpuprofError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise InputError(tr("a broken benchmark run ({e})", e=_text(exc))) from None
    metrics: dict[str, Metric] = {}
    for result in run.results:
        _name, value, unit = result.headline()
        metrics.setdefault(
            result.key,
            Metric(
                value=_number(value) if result.ok else None,
                unit=unit,
                status=_text(result.status.split(":")[0], 10),
            ),
        )
    host = run.environment.hostname or path.stem
    return Machine(
        label=_text(f"{host} {run.device}"),
        path=str(path),
        kind="bench",
        verdict=run.state.value,
        metrics=metrics,
    )


def read_result_json(path: str | Path) -> dict[str, Any]:
    """A result file's JSON object (at most :data:`MAX_FILE_BYTES`, strict JSON); an
    :class:`InputError` naming the file if it is not one. Also the report's check page reader."""
    p = Path(path)
    try:
        with p.open("rb") as fh:
            raw = fh.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise InputError(tr("{p}: cannot read: {e}", p=p, e=exc.strerror or exc)) from None
    if len(raw) > MAX_FILE_BYTES:
        raise InputError(
            tr("{p}: larger than {n} MiB: not a result file", p=p, n=MAX_FILE_BYTES >> 20)
        )
    try:
        from gpuprof.jsonout import loads_strict

        data = loads_strict(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise InputError(tr("{p}: not JSON", p=p)) from None
    if not isinstance(data, dict):
        raise InputError(tr("{p}: not a gpuprof check or benchmark result", p=p))
    return data


def load_result(path: str | Path) -> Machine:
    """One result file as a :class:`Machine`; an :class:`InputError` naming the file if not."""
    p = Path(path)
    data = read_result_json(p)
    try:
        if data.get("schema") == CHECK_SCHEMA:
            return _check_machine(data, p)
        if data.get("format") == BENCH_FORMAT:
            return _bench_machine(data, p)
    except InputError as exc:
        raise InputError(tr("{p}: {e}", p=p, e=exc)) from None
    raise InputError(tr("{p}: not a gpuprof check or benchmark result", p=p))


def load_results(paths: Sequence[str | Path]) -> tuple[list[Machine], list[Skipped]]:
    """Every readable file, and every other one with its reason. Two files with the same label
    (the same host twice) are told apart by their file names."""
    machines: list[Machine] = []
    skipped: list[Skipped] = []
    for path in paths:
        try:
            machines.append(load_result(path))
        except InputError as exc:
            skipped.append(Skipped(str(path), str(exc)))
    seen: dict[str, int] = {}
    for m in machines:
        seen[m.label] = seen.get(m.label, 0) + 1
    out = []
    for m in machines:
        if seen[m.label] > 1:
            m = replace(m, label=f"{m.label} ({Path(m.path).name})")
        out.append(m)
    return out, skipped


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
    for key in keys:
        column = [(m, m.metrics.get(key)) for m in machines]
        present = [(m, x) for m, x in column if x is not None and x.value is not None]
        row = _Row([x.value for _m, x in present if x.value is not None])
        for m, x in present:
            assert x.value is not None
            hit = _outlier(x.value, row, _direction(key, x.unit), **opts)
            if hit:
                med, ratio, limit = hit
                outliers.append(Outlier(m.label, key, "fleet", x.value, med, ratio, x.unit, limit))
    for m in machines:
        by_item: dict[str, list[tuple[str, float]]] = {}
        for key, (item, _gpu) in m.groups.items():
            v = m.metrics[key].value
            if v is not None:
                by_item.setdefault(item, []).append((key, v))
        for siblings in by_item.values():
            row = _Row([w for _k, w in siblings])
            for key, v in siblings:
                unit = m.metrics[key].unit
                hit = _outlier(v, row, _direction(key, unit), **opts)
                if hit:
                    med, ratio, limit = hit
                    outliers.append(Outlier(m.label, key, "sibling", v, med, ratio, unit, limit))
    return Comparison(tuple(machines), tuple(skipped), tuple(keys), tuple(outliers))


def comparison_to_dict(comp: Comparison) -> dict[str, Any]:
    """The ``--json`` document: machines (columns), rows, outliers, skipped files, summaries."""
    return {
        "schema": "gpuprof.compare",
        "schema_version": 1,
        "machines": [
            {"label": m.label, "path": m.path, "kind": m.kind, "verdict": m.verdict}
            for m in comp.machines
        ],
        "rows": [
            {
                "key": key,
                "unit": next((x.unit for m in comp.machines if (x := m.metrics.get(key))), ""),
                "values": [(x.value if (x := m.metrics.get(key)) else None) for m in comp.machines],
                "status": [
                    (x.status if (x := m.metrics.get(key)) else None) for m in comp.machines
                ],
                "text": [(x.text if (x := m.metrics.get(key)) else None) for m in comp.machines],
            }
            for key in comp.keys
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


def fmt_cell(value: float, unit: str) -> str:
    """A table cell: rates in GB/s, times below a millisecond in µs, others to 4 digits."""
    if unit in ("B/s", "bytes_s"):
        return f"{value / 1e9:.1f} GB/s"
    if unit == "s" and abs(value) < 1e-3:
        return f"{value * 1e6:.1f} µs"
    return f"{value:.4g} {unit}".strip()


def render_html(comp: Comparison) -> str:
    """A self-contained HTML page: the summaries, then the table (outliers marked)."""
    from html import escape

    flagged = {(o.machine, o.key) for o in comp.outliers}
    head = "".join(f"<th>{escape(m.label)}</th>" for m in comp.machines)
    rows = []
    for key in comp.keys:
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
        rows.append(f"<tr><th>{escape(key)}</th>{''.join(cells)}</tr>")
    summary = "".join(f"<li>{escape(comp.summary(m))}</li>" for m in comp.machines)
    left = "".join(f"<li>{escape(s.reason)}</li>" for s in comp.skipped)
    title = escape(tr("gpuprof: {n} machines compared", n=len(comp.machines)))
    left_out = escape(tr("Left out"))
    return (
        '<!DOCTYPE html>\n<html><head><meta charset="utf-8">'
        f"<title>{title}</title><style>"
        "body{font-family:sans-serif}table{border-collapse:collapse}"
        "td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}"
        "td.outlier{background:#fdd;font-weight:bold}</style></head><body>"
        f"<h1>{title}</h1><ul>{summary}</ul>"
        + (f"<h2>{left_out}</h2><ul>{left}</ul>" if left else "")
        + f"<table><tr><th></th>{head}</tr>{''.join(rows)}</table></body></html>\n"
    )


def dumps_json(comp: Comparison) -> str:
    from gpuprof.jsonout import dumps

    # One line: the indenting encoder is pure Python and slow on 100 machines' rows.
    return dumps(comparison_to_dict(comp), indent=None) + "\n"
