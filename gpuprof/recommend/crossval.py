"""Leave-one-source-out cross-validation of fitted constants (issue 23).

An estimate whose constants were fitted to the rows it is checked on reports the error of the
fit, not the error a new user sees. Here every free constant is refitted with one publication
(a *source*: a paper, a framework's performance table, a model card) left out, that source is
predicted with the constants it did not shape, and this is repeated for every source. The
held-out errors are the figures to quote; the in-sample errors say how well the model can fit.

The fit minimizes the mean absolute log error (an L1 fit: one wild source moves the constants
less than under least squares). Each constant is searched in turn on a log scale within its
bounds (golden section), a few rounds over all of them: the problems here have a handful of
smooth, monotone constants.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

__all__ = ["CvResult", "ErrorSummary", "fit_constants", "leave_one_source_out", "summarize"]

R = TypeVar("R")
Params = dict[str, float]
#: (params, row) → the row's predicted value.
Predict = Callable[[Params, R], float]

_GOLDEN = (math.sqrt(5.0) - 1.0) / 2.0


def _loss(
    rows: Sequence[R], params: Params, predict: Predict[R], observed: Callable[[R], float]
) -> float:
    total = 0.0
    for row in rows:
        pred = predict(params, row)
        if not (pred > 0.0 and math.isfinite(pred)):
            return math.inf
        total += abs(math.log(pred / observed(row)))
    return total / max(len(rows), 1)


def fit_constants(
    rows: Sequence[R],
    predict: Predict[R],
    observed: Callable[[R], float],
    start: Mapping[str, float],
    bounds: Mapping[str, tuple[float, float]],
    *,
    fixed: Mapping[str, float] | None = None,
    rounds: int = 4,
    iterations: int = 28,
) -> Params:
    """The constants (names of ``start``) that minimize the mean |log(predicted/observed)|.

    ``fixed`` constants are passed to ``predict`` unchanged. A constant whose value does not
    change the loss (no row depends on it) keeps its start value."""
    params: Params = {**(fixed or {}), **start}
    for _ in range(rounds):
        for name in start:
            lo, hi = (math.log(max(b, 1e-12)) for b in bounds[name])

            def at(x: float, name: str = name) -> float:
                return _loss(rows, {**params, name: math.exp(x)}, predict, observed)

            base = at(math.log(max(params[name], 1e-12)))
            a, b = lo, hi
            c, d = b - _GOLDEN * (b - a), a + _GOLDEN * (b - a)
            fc, fd = at(c), at(d)
            for _ in range(iterations):
                if fc <= fd:
                    b, d, fd = d, c, fc
                    c = b - _GOLDEN * (b - a)
                    fc = at(c)
                else:
                    a, c, fc = c, d, fd
                    d = a + _GOLDEN * (b - a)
                    fd = at(d)
            best = (a + b) / 2.0
            if at(best) < base - 1e-12:
                params[name] = math.exp(best)
    return params


@dataclass(frozen=True)
class CvResult(Generic[R]):
    """Errors in percent, (predicted − observed) / observed × 100, by row id."""

    in_sample: dict[str, float]
    held_out: dict[str, float]
    #: The constants fitted on all sources, and with each source left out (by source).
    params_all: Params
    params_without: dict[str, Params]


def _pct(pred: float, obs: float) -> float:
    return (pred - obs) / obs * 100.0


def leave_one_source_out(
    rows: Sequence[R],
    *,
    row_id: Callable[[R], str],
    source: Callable[[R], str],
    fit: Callable[[Sequence[R]], Params],
    predict: Predict[R],
    observed: Callable[[R], float],
) -> CvResult[R]:
    """Fit on all rows (in-sample errors); then, for each source, fit on the other sources and
    predict that source's rows (held-out errors)."""
    params_all = fit(rows)
    in_sample = {row_id(r): _pct(predict(params_all, r), observed(r)) for r in rows}
    held_out: dict[str, float] = {}
    without: dict[str, Params] = {}
    for src in sorted({source(r) for r in rows}):
        train = [r for r in rows if source(r) != src]
        params = fit(train)
        without[src] = params
        for r in rows:
            if source(r) == src:
                held_out[row_id(r)] = _pct(predict(params, r), observed(r))
    return CvResult(in_sample, held_out, params_all, without)


@dataclass(frozen=True)
class ErrorSummary:
    rows: int
    median_abs_pct: float
    p90_abs_pct: float
    within_25_share: float
    max_abs_pct: float

    def as_dict(self) -> dict[str, float | int]:
        return {
            "rows": self.rows,
            "median_abs_error_pct": round(self.median_abs_pct, 1),
            "p90_abs_error_pct": round(self.p90_abs_pct, 1),
            "within_25_pct_share": round(self.within_25_share, 3),
            "max_abs_error_pct": round(self.max_abs_pct, 1),
        }


def summarize(errors: Mapping[str, float]) -> ErrorSummary:
    """Median, 90th percentile and maximum of |error| and the share within ±25 %."""
    a = sorted(abs(e) for e in errors.values())
    if not a:
        return ErrorSummary(0, math.nan, math.nan, math.nan, math.nan)
    p90 = a[min(len(a) - 1, math.ceil(0.9 * len(a)) - 1)]
    within = sum(1 for e in a if e <= 25.0) / len(a)
    return ErrorSummary(len(a), statistics.median(a), p90, within, a[-1])
