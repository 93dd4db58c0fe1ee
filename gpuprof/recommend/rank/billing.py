"""The price a ranking compares (``--billing``, :data:`~gpuprof.recommend.workload.BILLINGS`):
each row's price per instance-hour on that basis, and a job's cost on it.

Hourly bases (on-demand, spot, reserved 1y / 3y) cost hours × price (spot: +10 % time for
checkpoints and restarts). A monthly subscription (包月, ``Instance.price_monthly_usd``: the
whole instance for a month) is paid in whole months: a job pays ``ceil(hours / 730)`` months,
at least one; its hourly equivalent (price per hour, serving's cost per hour) is the monthly
price ÷ 730, a month of sustained use. A row without a price on the basis is unpriced for the
ranking (it comes after every priced row), whatever other prices it has.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from gpuprof.catalog.row import Instance
from gpuprof.i18n import N_, tr, tr_text
from gpuprof.recommend.estimate import SPOT_OVERHEAD, CandidateArrays

__all__ = [
    "HOURS_PER_MONTH",
    "basis_hours",
    "basis_label",
    "hourly_price",
    "job_cost",
    "monthly_prices",
    "months_billed",
    "price_kinds",
    "unpriced_note",
]

#: Hours in a billed month (365 × 24 ÷ 12): a monthly price's hourly equivalent and the span
#: one month of a subscription covers.
HOURS_PER_MONTH = 730.0

_LABELS = {
    "on-demand": N_("on-demand"),
    "spot": N_("spot"),
    "reserved-1y": N_("reserved 1y"),
    "reserved-3y": N_("reserved 3y"),
    "monthly": N_("monthly"),
}

Arr = npt.NDArray[np.float64]


def basis_label(billing: str) -> str:
    """The basis as tables name it (translated): "on-demand", "reserved 1y", "monthly" …"""
    return tr_text(_LABELS.get(billing, billing))


def months_billed(hours: Arr | float) -> Arr:
    """Whole months a subscription is paid for to run ``hours``: ``ceil(hours / 730)``, at
    least 1 (NaN stays NaN)."""
    h = np.asarray(hours, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        # 1e-9: a job of exactly one month is one month, not two after rounding
        out: Arr = np.maximum(np.ceil(h / HOURS_PER_MONTH * (1.0 - 1e-9)), 1.0)
    return np.where(np.isnan(h), np.nan, out)


def monthly_prices(arr: CandidateArrays) -> Arr:
    """Each instance's monthly price (whole instance, the catalog's currency; NaN: none)."""
    return np.fromiter(
        (np.nan if i.price_monthly_usd is None else i.price_monthly_usd for i in arr.instances),
        dtype=np.float64,
        count=len(arr),
    )


def hourly_price(arr: CandidateArrays, billing: str) -> Arr:
    """Each instance's price per hour on ``billing`` (monthly: its hourly equivalent, ÷ 730);
    NaN where the row has no such price."""
    if billing == "spot":
        return arr.price_spot
    if billing == "reserved-1y":
        return arr.price_r1
    if billing == "reserved-3y":
        return arr.price_r3
    if billing == "monthly":
        return monthly_prices(arr) / HOURS_PER_MONTH
    return arr.price_ondemand


def basis_hours(hours: Arr, billing: str) -> Arr:
    """A job's wall-clock hours on ``billing``: spot adds :data:`SPOT_OVERHEAD`."""
    return hours * (1.0 + SPOT_OVERHEAD) if billing == "spot" else hours


def job_cost(arr: CandidateArrays, billing: str, hours: Arr, instances: Arr) -> Arr:
    """What ``instances`` instances cost on ``billing`` for ``hours`` (already on the basis,
    :func:`basis_hours`): hours × price, or whole months × the monthly price."""
    if billing == "monthly":
        out: Arr = months_billed(hours) * monthly_prices(arr) * instances
        return out
    return hours * hourly_price(arr, billing) * instances


def price_kinds(inst: Instance) -> tuple[str, ...]:
    """The bases (:data:`~gpuprof.recommend.workload.BILLINGS`) ``inst`` has a price on."""
    prices = (
        inst.price_ondemand_usd_hr,
        inst.price_spot_usd_hr,
        inst.price_reserved_1y_usd_hr,
        inst.price_reserved_3y_usd_hr,
        inst.price_monthly_usd,
    )
    return tuple(b for b, p in zip(_LABELS, prices, strict=True) if p is not None)


def unpriced_note(billing: str, inst: Instance) -> str:
    """Why a row without a price on ``billing`` comes after every priced row, and the bases it
    does have a price on."""
    others = [b for b in price_kinds(inst) if b != billing]
    if not others:
        if billing == "on-demand":
            return tr("no price: listed after every priced row under 'cheapest'")
        return tr(
            "no {basis} price: listed after every priced row (--billing {b})",
            basis=basis_label(billing),
            b=billing,
        )
    return tr(
        "no {basis} price: listed after every priced row (--billing {b}); it has a price on "
        "--billing {others}",
        basis=basis_label(billing),
        b=billing,
        others=", ".join(others),
    )
