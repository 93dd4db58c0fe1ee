"""Acceptance-check items made in a test."""

from __future__ import annotations

from typing import Any

from gpuprof.check.model import CheckItem, Status


def perf_item(
    item_id: str,
    status: Status,
    measured: float,
    expected: float | None = None,
    ratio: float | None = None,
    **fields: Any,
) -> CheckItem:
    """A performance item ``item_id`` measured at ``measured`` TFLOPS against ``expected``
    (``ratio`` their quotient, as the grader wrote it); ``fields``: the item's others (unit,
    reason, hint, source, gpu_index, runs, spread)."""
    fields.setdefault("unit", "TFLOPS")
    return CheckItem(
        item_id=item_id,
        group="performance",
        status=status,
        measured=measured,
        expected=expected,
        ratio=ratio,
        **fields,
    )
