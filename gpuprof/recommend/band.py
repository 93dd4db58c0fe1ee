"""Error bars of a training estimate, from the cross-validated errors of comparable runs (issue 23).

``perf/truth.py --residuals`` writes, for every published training run, the ratio of its
published time to the time estimated with constants fitted **without its publication**
(``resources/train_cv_residuals.csv``). A new estimate's band is the 10th to 90th percentile of
those ratios over the runs most like it: the same stack, the same GPU architecture, the same
scale (one node, up to 256 GPUs, more); where fewer than :data:`MIN_ROWS` runs are that alike,
the scale, then the architecture, then the stack are dropped from the comparison, and the band
says which runs it rests on. Time and cost scale with the ratio; throughput with its inverse.

A job profiled here and projected onto other instances (``recommend --from-profile``) takes
its band from pairs of published runs of one publication (:func:`projection_band`): the
measured step stands for one run, the projection for the other, so its error is the ratio of
the two runs' held-out errors — over pairs across the same change of GPU generation where a
publication has runs on both.

LLM inference jobs and serving take theirs from the published inference and serving runs
(:func:`inference_band`; no constant of those estimates is fitted to them, so their errors
there are out-of-fit errors too): the same GPU architecture, one GPU or several.
"""

from __future__ import annotations

import csv
import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from gpuprof.i18n import N_, tr_text

__all__ = [
    "MIN_ROWS",
    "Band",
    "Residual",
    "fmt_hours_span",
    "inference_band",
    "load_residuals",
    "projection_band",
    "top_rows_overlap",
    "training_band",
]

RESIDUALS_FILE = Path(str(resources.files("gpuprof.resources").joinpath("train_cv_residuals.csv")))
#: A band rests on at least this many runs (else the comparison is widened).
MIN_ROWS = 6
#: Percentiles of the time ratio that bound the band.
LOW_PCT, HIGH_PCT = 10.0, 90.0


@dataclass(frozen=True)
class Residual:
    id: str
    group: str
    stack: str
    architecture: str
    gpus: int
    time_ratio: float  # published time ÷ estimated time, held out
    kind: str = "train"  # "train", "infer" (a batch inference job) or "serve"


@dataclass(frozen=True)
class Band:
    """The estimate's time may be ``low``…``high`` times the point estimate (10th–90th
    percentile of the held-out ratios of ``rows`` comparable published runs)."""

    low: float
    high: float
    rows: int
    basis: str
    #: The basis as (template, stack, architecture, scale) for a translated display.
    basis_parts: tuple[str, str, str, str] = ("", "", "", "")

    def shown_basis(self) -> str:
        """:attr:`basis` in the language in use."""
        template, stack, arch, scale = self.basis_parts
        if not template:
            return self.basis
        if "{here}" in template or "{there}" in template:  # a projection: (here, there)
            return tr_text(template).format(here=stack, there=arch)
        return tr_text(template).format(stack=stack, arch=arch, scale=tr_text(scale))

    def overlaps(self, value_a: float, other: Band, value_b: float) -> bool:
        """Whether ``value_a`` with this band and ``value_b`` with ``other`` overlap."""
        return (
            value_a * self.low <= value_b * other.high
            and value_b * other.low <= value_a * self.high
        )

    def to_dict(
        self, hours: float | None, cost: float | None, per_million: float | None = None
    ) -> dict[str, object]:
        def scaled(x: float | None, r: float) -> float | None:
            return None if x is None else x * r

        return {
            "usd_per_million_low": scaled(per_million, self.low),
            "usd_per_million_high": scaled(per_million, self.high),
            "time_ratio_low": self.low,
            "time_ratio_high": self.high,
            "hours_low": scaled(hours, self.low),
            "hours_high": scaled(hours, self.high),
            "cost_usd_low": scaled(cost, self.low),
            "cost_usd_high": scaled(cost, self.high),
            "rows": self.rows,
            "basis": self.basis,
            "percentiles": [LOW_PCT, HIGH_PCT],
        }


@functools.cache
def load_residuals(path: Path = RESIDUALS_FILE) -> tuple[Residual, ...]:
    """The shipped held-out ratios (none when the file is missing: no band, not a crash)."""
    try:
        text = path.read_text("utf-8")
    except OSError:
        return ()
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.startswith("#")]
    out = []
    for row in csv.DictReader(lines):
        try:
            ratio = float(row["time_ratio"])
            gpus = int(row["gpus"])
        except (KeyError, TypeError, ValueError):
            continue
        if math.isfinite(ratio) and ratio > 0:
            kind = row.get("kind") or "train"
            out.append(
                Residual(
                    row["id"], row["group"], row["stack"], row["architecture"], gpus, ratio, kind
                )
            )
    return tuple(out)


def _scale(gpus: float) -> int:
    return 0 if gpus <= 8 else 1 if gpus <= 256 else 2


def _percentile(values: list[float], pct: float) -> float:
    v = sorted(values)
    pos = (len(v) - 1) * pct / 100.0
    lo, hi = math.floor(pos), math.ceil(pos)
    return v[lo] + (v[hi] - v[lo]) * (pos - lo)


def training_band(
    stack: str, architecture: str | None, gpus: float, residuals: tuple[Residual, ...] | None = None
) -> Band | None:
    """The band of a training estimate on ``gpus`` GPUs of ``architecture`` with ``stack``."""
    res = tuple(
        r for r in (load_residuals() if residuals is None else residuals) if r.kind == "train"
    )
    if not res:
        return None
    arch = architecture or ""
    here = _scale(gpus)
    tiers: tuple[tuple[str, Callable[[Residual], bool]], ...] = (
        (N_("{stack}, the same GPU generation, {scale}"), lambda r: r.stack == stack
         and r.architecture == arch and _scale(r.gpus) == here),
        (N_("{stack}, the same GPU generation"), lambda r: r.stack == stack
         and r.architecture == arch),
        (N_("{stack}"), lambda r: r.stack == stack),
        (N_("the same GPU generation, {scale}"), lambda r: r.architecture == arch
         and _scale(r.gpus) == here),
        (N_("all stacks and GPUs"), lambda r: True),
    )  # fmt: skip
    scale = (N_("one node"), N_("up to 256 GPUs"), N_("over 256 GPUs"))[_scale(gpus)]
    for text, keep in tiers:
        chosen = [r.time_ratio for r in res if keep(r)]
        if len(chosen) >= MIN_ROWS:
            basis = text.format(stack=stack, arch=arch or "?", scale=scale)
            return Band(
                low=_percentile(chosen, LOW_PCT),
                high=_percentile(chosen, HIGH_PCT),
                rows=len(chosen),
                basis=basis,
                basis_parts=(text, stack, arch or "?", scale),
            )
    return None


def fmt_hours_span(hours: float, band: Band) -> str:
    """The band of ``hours`` compactly, in the unit that suits it: ``27–43 d``, ``4.1–6.3 h``."""
    lo, hi = hours * band.low, hours * band.high
    if lo >= 48.0:
        lo_d, hi_d = lo / 24.0, hi / 24.0
        if hi_d >= 100.0:
            return f"{lo_d:,.0f}–{hi_d:,.0f} d"
        return f"{lo_d:.3g}–{hi_d:.3g} d"
    if lo >= 1.0:
        return f"{lo:.2g}–{hi:.2g} h"
    return f"{lo * 60.0:.2g}–{hi * 60.0:.2g} min"


def top_rows_overlap(rows: list[object], objective: str) -> bool:
    """Whether the first two rows' bands overlap on the ranking's number (cost or time)."""
    if len(rows) < 2:
        return False
    a, b = rows[0], rows[1]
    band_a, band_b = getattr(a, "band", None), getattr(b, "band", None)
    key = "cost_usd" if objective == "cheapest" else "hours"
    va, vb = getattr(a, key, None), getattr(b, key, None)
    if band_a is None or band_b is None or va is None or vb is None:
        return False
    span = getattr(a, "cost_span", None), getattr(b, "cost_span", None)
    if key == "cost_usd" and callable(span[0]) and callable(span[1]):
        # a row's own span of cost (a monthly subscription's is in whole months)
        sa, sb = span[0](), span[1]()
        if sa is not None and sb is not None:
            return bool(sa[0] <= sb[1] and sb[0] <= sa[1])
    return bool(band_a.overlaps(va, band_b, vb))


def inference_band(
    kind: str, architecture: str | None, gpus: float, residuals: tuple[Residual, ...] | None = None
) -> Band | None:
    """The band of an LLM inference job (``kind`` "infer") or of serving capacity ("serve"),
    from the errors of the published runs of that kind: the same GPU architecture and scale
    (one GPU, a node), else the architecture, else all of them."""
    res = tuple(r for r in (load_residuals() if residuals is None else residuals) if r.kind == kind)
    if not res:
        return None
    arch = architecture or ""
    one = gpus <= 1
    scale = N_("one GPU") if one else N_("several GPUs")
    tiers: tuple[tuple[str, Callable[[Residual], bool]], ...] = (
        (
            N_("the same GPU generation, {scale}"),
            lambda r: r.architecture == arch and (r.gpus <= 1) == one,
        ),
        (N_("the same GPU generation"), lambda r: r.architecture == arch),
        (N_("all published runs of this kind"), lambda r: True),
    )
    for text, keep in tiers:
        chosen = [r.time_ratio for r in res if keep(r)]
        if len(chosen) >= MIN_ROWS:
            return Band(
                low=_percentile(chosen, LOW_PCT),
                high=_percentile(chosen, HIGH_PCT),
                rows=len(chosen),
                basis=text.format(arch=arch or "?", scale=scale),
                basis_parts=(text, "", arch or "?", scale),
            )
    return None


def _pair_ratios(
    res: tuple[Residual, ...], keep: Callable[[Residual, Residual], bool]
) -> list[float]:
    """``b.time_ratio / a.time_ratio`` over the ordered pairs (a, b) of different runs of one
    publication that ``keep`` accepts (a: the run measured, b: the run projected to)."""
    by_group: dict[str, list[Residual]] = {}
    for r in res:
        by_group.setdefault(r.group, []).append(r)
    return [
        b.time_ratio / a.time_ratio
        for rows in by_group.values()
        for a in rows
        for b in rows
        if a.id != b.id and keep(a, b)
    ]


@functools.cache
def _projection_band(here: str, there: str, res: tuple[Residual, ...]) -> Band | None:
    tiers: tuple[tuple[str, Callable[[Residual, Residual], bool]], ...] = (
        (
            N_("pairs of one publication's runs on {here} and {there}")
            if here != there
            else N_("pairs of one publication's runs on {here}"),
            lambda a, b: a.architecture == here and b.architecture == there,
        ),
        (
            N_("pairs of one publication's runs across a GPU generation")
            if here != there
            else N_("pairs of one publication's runs on one GPU generation"),
            lambda a, b: (a.architecture != b.architecture) == (here != there),
        ),
        (N_("pairs of one publication's runs"), lambda a, b: True),
    )
    for text, keep in tiers:
        chosen = _pair_ratios(res, keep)
        if len(chosen) >= MIN_ROWS:
            return Band(
                low=_percentile(chosen, LOW_PCT),
                high=_percentile(chosen, HIGH_PCT),
                rows=len(chosen),
                basis=text.format(here=here or "?", there=there or "?"),
                basis_parts=(text, here or "?", there or "?", ""),
            )
    return None


def projection_band(
    here: str | None, there: str | None, residuals: tuple[Residual, ...] | None = None
) -> Band | None:
    """The band of a profiled job's step projected from a GPU of architecture ``here`` onto one
    of ``there``: the 10th–90th percentile of the ratio of two runs' held-out errors over pairs
    of runs of one publication — on those two architectures where :data:`MIN_ROWS` pairs
    exist, else across any change of generation (or within one, when here is there), else any
    pair. ``rows`` counts pairs."""
    res = tuple(
        r for r in (load_residuals() if residuals is None else residuals) if r.kind == "train"
    )
    return _projection_band(here or "", there or "", res) if res else None
