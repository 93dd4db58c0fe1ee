"""The machines of ``gpuprof compare``: result files read into :class:`Machine` columns.

Reads acceptance-check results (``gpuprof check --json``: ``"schema": "gpuprof.check"``, see
:mod:`gpuprof.check.model`) and benchmark runs (``gpuprof bench --json``:
``"format": "gpuprof-bench-run"``, :mod:`gpuprof.bench.results`). Each readable file is one
machine; each numeric measurement is one :class:`Metric`, keyed by the check item
(``perf.gemm_bf16`` plus ``/gpuN`` for a per-GPU item) or the benchmark result
(``gemm/bf16-8192``). A file that cannot be read (not JSON, another program's JSON, a newer
schema than this gpuprof reads, larger than :data:`MAX_FILE_BYTES` or holding more than
:data:`MAX_ITEMS` items, a number no float holds, broken inside) is a :class:`Skipped` with the
reason. Files are read by :func:`gpuprof.jsonin.read_json`: regular files only (a FIFO is
refused, not waited on), UTF-8 with or without a byte-order mark.

Split from :mod:`gpuprof.check.compare` along its seam: what a result file holds changes with
the check and bench formats; how machines are compared does not.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from gpuprof.errors import GpuprofError, InputError
from gpuprof.i18n import N_, tr
from gpuprof.jsonin import checked_version
from gpuprof.resultlimits import MAX_FILE_BYTES, MAX_ITEMS

__all__ = [
    "BENCH_FORMAT",
    "CHECK_SCHEMA",
    "CHECK_NEWER",
    "CHECK_SCHEMA_VERSION",
    "Machine",
    "Metric",
    "Skipped",
    "check_items",
    "fmt_cell",
    "load_result",
    "load_results",
    "read_result_json",
]

CHECK_SCHEMA = "gpuprof.check"
#: The newest check-result schema this reader knows (gpuprof.check.model.SCHEMA_VERSION).
CHECK_SCHEMA_VERSION = 1
#: Why a check result of a newer schema is refused.
CHECK_NEWER = N_("check result schema {v} is newer than this gpuprof reads ({m})")
BENCH_FORMAT = "gpuprof-bench-run"


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


def fmt_cell(value: float, unit: str) -> str:
    """A table cell: rates in GB/s, times below a millisecond in µs, others to 4 digits."""
    if unit in ("B/s", "bytes_s"):
        return f"{value / 1e9:.1f} GB/s"
    if unit == "s" and abs(value) < 1e-3:
        return f"{value * 1e6:.1f} µs"
    return f"{value:.4g} {unit}".strip()


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


def check_items(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The items of the check result ``data`` (``gpuprof check --json``), of a schema version
    this gpuprof reads and each an object with an ``item_id``; an :class:`InputError` (the
    caller names the file) if not. Also the report's check page reader."""
    checked_version(data.get("schema_version"), CHECK_SCHEMA_VERSION, CHECK_NEWER)
    items = data.get("items")
    if not isinstance(items, list):
        raise InputError(tr("a check result without a list of items"))
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("item_id"), str):
            raise InputError(tr("an item that is not an object with an item_id"))
    return items


def _check_machine(data: dict[str, Any], path: Path) -> Machine:
    items = check_items(data)
    _check_count(len(items))
    identity = data.get("identity")
    host = identity.get("hostname") if isinstance(identity, dict) else None
    metrics: dict[str, Metric] = {}
    groups: dict[str, tuple[str, int]] = {}
    for item in items:
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


def _check_count(n: int) -> None:
    if n > MAX_ITEMS:
        raise InputError(
            tr(
                "{n} items, more than the {m} a result file may hold",
                n=f"{n:,}",
                m=f"{MAX_ITEMS:,}",
            )
        )


def _bench_machine(data: dict[str, Any], path: Path) -> Machine:
    from gpuprof.bench.results import run_from_dict

    cases = data.get("cases")
    if isinstance(cases, list):  # counted before the run is built: that is the costly part
        _check_count(
            max(
                len(cases),
                sum(
                    len(c["results"])
                    for c in cases
                    if isinstance(c, dict) and isinstance(c.get("results"), list)
                ),
            )
        )
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
    """A result file's JSON object (:func:`gpuprof.jsonin.read_json`: a regular file of at most
    :data:`MAX_FILE_BYTES`, strict JSON, a byte-order mark allowed); an :class:`InputError`
    naming the file if it is not one. Also the report's check page reader."""
    from gpuprof.jsonin import read_json

    p = Path(path)
    data = read_json(p, MAX_FILE_BYTES, what=tr("result file"))
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
