"""``gpuprof catalog audit``: the rows of a catalog checked against each other, their own
notes and what is known of the machines, each outlier listed with its reason.

Rules (each finding names one):

* ``date``: a row has no day it was read (a year or a month alone, or nothing). Every row can
  have one: where the source carries no date, the day its copy was read, said in a notes clause
  ``snapshot date: why`` (:data:`SNAPSHOT_MARK`);
* ``band``: the on-demand price per GPU-hour is outside [median / BAND, median × BAND] of the
  rows of the same GPU model (the median of the rows the data does not doubt), or outside
  [$0.05, $40] per GPU-hour (a catalog compared in USD);
* ``notes``: the notes quote a price (``$87.83/h``, ``would be 9.46+78.37=87.83``) that none of
  the row's prices is within 25 % of;
* ``spot``: spot above on-demand;
* ``count`` / ``memory``: the GPU count or memory per GPU differs from the instance's published
  configuration (:data:`KNOWN_CONFIG`, the count a provider writes in the name), or the memory
  from the spec table by over 10 % (clouds report usable memory: 22.4 GiB of a 24 GiB L4).

A finding is *known* when the row already says so: its notes carry ``doubtful: why`` (the
recommender then never ranks it first silently). A ``date`` finding is never known: a year
alone ("2026") says neither how old a price is nor where to look. Exit status of the command:
0 when every finding is known, 1 when any is not, 2 for a catalog that cannot be read.
"""

from __future__ import annotations

import re
import statistics
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from gpuprof.catalog.asof import date_precision
from gpuprof.catalog.instances import Catalog, Instance
from gpuprof.catalog.skypilot import COMPOSED_MARK
from gpuprof.i18n import tr

__all__ = ["BAND", "KNOWN_CONFIG", "SNAPSHOT_MARK", "Finding", "audit"]

#: A notes clause ``snapshot date: why``: the row's date is the day its source was copied or
#: read by gpuprof, the source itself carrying none (its prices may be older).
SNAPSHOT_MARK = "snapshot date:"
#: How far a per-GPU-hour price may sit from its model's median (a 1-GPU VM with a 64-vCPU
#: host is 4.5x the T4 median: AWS g4dn.16xlarge).
BAND = 6.0
#: The most a note's price may differ from the row's nearest price before it disagrees.
NOTE_TOLERANCE = 0.25
#: Per GPU-hour, in USD: below and above these no offer exists.
USD_PER_GPU_HOUR = (0.05, 40.0)

# Instance configurations published by the provider: (GPU count, GiB per GPU or None).
# Azure ND96isr_H100_v5 / ND96isr_H200_v5 / NC40ads / NC80adis: Microsoft's AKS VM size list
#   (https://aspire.dev/reference/api/csharp/aspire.hosting.azure.kubernetes/standardndsh100v5/
#   fields.md: "Standard_ND96isr_H100_v5 -- 96 vCPUs -- 1900 GB RAM -- 8 GPU(s)").
# Azure ND96isr_MI300X_v5: MicrosoftDocs/azure-docs nd-mi300x-v5-series.md (8 MI300X, 192 GiB).
# AWS p4d.24xlarge: reference/cloud_gpu_instances.csv, AWS-TSAOL ("320 GB HBM2" total, 8).
KNOWN_CONFIG: dict[tuple[str, str], tuple[int, float | None]] = {
    ("azure", "standard_nd96isr_h100_v5"): (8, 80.0),
    ("azure", "standard_nd96isr_h200_v5"): (8, None),
    ("azure", "standard_nc40ads_h100_v5"): (1, None),
    ("azure", "standard_nc80adis_h100_v5"): (2, None),
    ("azure", "standard_nd96isr_mi300x_v5"): (8, 192.0),
    ("aws", "p4d.24xlarge"): (8, 40.0),
}

#: The GPU count some providers write into the instance name.
COUNT_IN_NAME = {
    "gcp": re.compile(r"^a[234]-\w+-(\d+)g$"),
    "lambda": re.compile(r"^gpu_(\d+)x_"),
    "runpod": re.compile(r"^(\d+)x_"),
}

_NOTE_PRICES = (
    re.compile(r"\$\s?(\d[\d,]*(?:\.\d+)?)\s*/\s*h\b"),
    re.compile(r"would be [\d.+ ]*=\s*(\d+(?:\.\d+)?)"),
)


@dataclass(frozen=True)
class Finding:
    """One outlier: which row, which rule, why; ``known`` when the row already says so."""

    rule: str
    provider: str
    instance: str
    region: str
    reason: str
    known: bool

    def as_dict(self) -> dict[str, object]:
        return {
            "rule": self.rule,
            "provider": self.provider,
            "instance": self.instance,
            "region": self.region,
            "reason": self.reason,
            "known": self.known,
        }


def audit(catalog: Catalog) -> list[Finding]:
    """Every finding over ``catalog``, row by row in catalog order."""
    medians = _medians(catalog.instances)
    usd = catalog.currency == "USD"
    out: list[Finding] = []
    for inst in catalog.instances:
        for rule, reason in _row_findings(catalog, inst, medians, usd):
            known = bool(inst.doubt) and rule != "date"
            out.append(Finding(rule, inst.provider, inst.instance, inst.region, reason, known))
    return out


def _per_gpu_hour(inst: Instance) -> float | None:
    price = inst.price_ondemand_usd_hr
    return price / inst.gpu_count if price and inst.gpu_count else None


def _medians(rows: Iterable[Instance]) -> dict[str, tuple[float, int]]:
    """(median per-GPU-hour, rows) per GPU model, over the rows nobody doubts."""
    per_model: dict[str, list[float]] = defaultdict(list)
    for inst in rows:
        p = _per_gpu_hour(inst)
        if p is not None and not inst.doubt:
            per_model[inst.gpu_model].append(p)
    return {m: (statistics.median(ps), len(ps)) for m, ps in per_model.items()}


def _row_findings(
    catalog: Catalog, inst: Instance, medians: dict[str, tuple[float, int]], usd: bool
) -> Iterable[tuple[str, str]]:
    precision = date_precision(inst.as_of)
    if precision != "day":
        yield (
            "date",
            tr(
                "dated only {d}: give the day the row was read (where the source has no date, "
                "the day its copy was read, and a notes clause 'snapshot date: why')",
                d=inst.as_of,
            )
            if precision
            else tr("no date the price was read"),
        )
    yield from _price_findings(inst, medians, usd, catalog.currency)
    yield from _shape_findings(catalog, inst)


def _price_findings(
    inst: Instance, medians: dict[str, tuple[float, int]], usd: bool, currency: str
) -> Iterable[tuple[str, str]]:
    p = _per_gpu_hour(inst)
    if p is not None:
        median, n = medians.get(inst.gpu_model, (p, 1))
        lo, hi = USD_PER_GPU_HOUR
        if n >= 3 and not median / BAND <= p <= median * BAND:
            yield (
                "band",
                tr(
                    "{p:.2f} {c} per GPU-hour is {x:.1f}x the median of {n} {g} rows ({m:.2f})",
                    p=p,
                    c=currency,
                    x=p / median,
                    n=n,
                    g=inst.gpu_model,
                    m=median,
                ),
            )
        elif usd and not lo <= p <= hi:
            yield (
                "band",
                tr("{p:.2f} USD per GPU-hour is outside {lo}..{hi}", p=p, lo=lo, hi=hi),
            )
    od, spot = inst.price_ondemand_usd_hr, inst.price_spot_usd_hr
    if od is not None and spot is not None and spot > od:
        yield "spot", tr("spot {s:g} is above on-demand {o:g}", s=spot, o=od)
    if usd:  # notes quote USD figures
        yield from _note_findings(inst)


def note_prices(notes: str) -> list[float]:
    """The per-hour prices a row's notes quote, outside a ``composed:`` clause (whose figures
    are the parts the row's price adds up: a GCP host VM and its GPUs)."""
    found: list[float] = []
    clauses = [c for c in notes.split(";") if not c.strip().startswith(COMPOSED_MARK)]
    text = ";".join(clauses)
    for pattern in _NOTE_PRICES:
        for m in pattern.finditer(text):
            try:
                found.append(float(m.group(1).replace(",", "")))
            except ValueError:
                continue
    return found


def _note_findings(inst: Instance) -> Iterable[tuple[str, str]]:
    mine = [
        p
        for p in (
            inst.price_ondemand_usd_hr,
            inst.price_spot_usd_hr,
            inst.price_reserved_1y_usd_hr,
            inst.price_reserved_3y_usd_hr,
        )
        if p
    ]
    if not mine:
        return
    for quoted in sorted({round(q, 2) for q in note_prices(inst.notes)}):
        if not any(abs(quoted - p) <= NOTE_TOLERANCE * p for p in mine):
            yield (
                "notes",
                tr(
                    "the notes quote {q:g}/h, the row's prices are {p}",
                    q=quoted,
                    p=", ".join(f"{x:g}" for x in mine),
                ),
            )


def _shape_findings(catalog: Catalog, inst: Instance) -> Iterable[tuple[str, str]]:
    key = (inst.provider.lower(), inst.instance.lower())
    known = KNOWN_CONFIG.get(key)
    expected_count: int | None = known[0] if known else None
    pattern = COUNT_IN_NAME.get(key[0])
    m = pattern.match(inst.instance) if pattern else None
    if expected_count is None and m:
        expected_count = int(m.group(1))
    if expected_count is not None and inst.gpu_count != expected_count:
        yield (
            "count",
            tr(
                "{n:g} GPUs; the published configuration has {k}",
                n=inst.gpu_count,
                k=expected_count,
            ),
        )
    mem = inst.gpu_mem_gib
    if known and known[1] is not None and mem is not None and abs(mem - known[1]) > 0.05 * known[1]:
        yield (
            "memory",
            tr("{m:g} GiB per GPU; the published configuration has {k:g}", m=mem, k=known[1]),
        )
    spec = catalog.spec_for(inst)
    if (
        spec is not None
        and spec.memory_gib
        and mem is not None
        and abs(mem - spec.memory_gib) > 0.10 * spec.memory_gib
    ):
        yield (
            "memory",
            tr(
                "{m:g} GiB per GPU; a {g} has {s:g} GiB",
                m=mem,
                g=inst.gpu_model,
                s=spec.memory_gib,
            ),
        )


def summary(findings: Sequence[Finding]) -> dict[str, dict[str, int]]:
    """Findings per rule: {rule: {"known": n, "unexplained": m}}."""
    out: dict[str, dict[str, int]] = {}
    for f in findings:
        d = out.setdefault(f.rule, {"known": 0, "unexplained": 0})
        d["known" if f.known else "unexplained"] += 1
    return out
