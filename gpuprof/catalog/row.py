"""One row of the instance catalog (:class:`Instance`) and a problem with one
(:class:`CatalogIssue`): the data types every catalog reader and view shares.

Prices: the ``price_*_usd_hr`` fields (and ``price_monthly_usd``) hold the row's prices in its
catalog's comparison currency (``Catalog.currency``: USD unless the catalog was converted,
:mod:`gpuprof.catalog.money`); ``currency`` and ``published`` keep what the source wrote.
"""

from __future__ import annotations

from dataclasses import MISSING, dataclass, fields
from typing import Any, cast

__all__ = ["DOUBT_MARK", "CatalogIssue", "Instance"]

DOUBT_MARK = "doubtful"  # a notes clause "doubtful: why" marks a row the data doubts


@dataclass(frozen=True, slots=True)  # slots: 100,000 rows in tens of MB, not hundreds
class Instance:
    """One rentable machine shape. ``gpu_model`` is the spec-table key when ``gpu_known``."""

    provider: str
    instance: str
    gpu_model: str
    gpu_count: float
    region: str = ""
    zone: str = ""
    gpu_name: str = ""  # the GPU name as the source wrote it
    gpu_known: bool = True
    gpu_mem_gib: float | None = None  # per GPU
    vcpus: float | None = None
    ram_gib: float | None = None
    interconnect: str = ""
    network_gbps: float | None = None
    price_ondemand_usd_hr: float | None = None
    price_spot_usd_hr: float | None = None
    price_reserved_1y_usd_hr: float | None = None
    price_reserved_3y_usd_hr: float | None = None
    source: str = ""
    as_of: str = ""
    notes: str = ""
    origin: str = "packaged"  # "packaged" or the overlay file's name
    currency: str = "USD"  # the currency the source published the prices in
    price_monthly_usd: float | None = None  # a monthly subscription (包月), whole instance
    # The source's own figures, in ``currency``, when the price fields above were converted
    # (on-demand, spot, reserved 1y, reserved 3y, monthly); () when they are the source's own.
    published: tuple[float | None, ...] = ()

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.provider.lower(), self.instance.lower(), self.region.lower())

    @property
    def offer(self) -> tuple[object, ...]:
        """What makes two rows the same offer (a duplicate): the key, the GPUs and the prices."""
        return (
            self.provider.lower(),
            self.instance.lower(),
            self.region.lower(),
            self.gpu_model,
            self.gpu_count,
            self.gpu_mem_gib,
            self.price_ondemand_usd_hr,
            self.price_spot_usd_hr,
            self.price_reserved_1y_usd_hr,
            self.price_reserved_3y_usd_hr,
        )

    @property
    def doubt(self) -> str:
        """Why the data itself doubts this row ("" when it does not): a notes clause that
        starts with ``doubtful:``. Such rows are shown with a warning and never rank first
        ahead of an undoubted row (gpuprof/recommend/rank.py)."""
        for clause in self.notes.split(";"):
            head, sep, why = clause.strip().partition(":")
            if sep and head.strip().lower() == DOUBT_MARK:
                return why.strip() or DOUBT_MARK
        return ""

    def as_dict(self) -> dict[str, object]:
        """Every field by name (``vars()`` has none: the class has slots)."""
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


# A frozen dataclass sets each of its 21 fields through object.__setattr__: for a 100,000-row
# overlay that was the largest single cost of reading it. Rows read from a file are filled in
# an unfrozen twin with the very same slots and then become Instances (``__class__``
# assignment; same layout, checked here): from then on they are frozen like any other.
_Unfrozen: Any = dataclass(slots=True)(
    type(
        "_UnfrozenInstance",
        (),
        {
            "__annotations__": {f.name: f.type for f in fields(Instance)},
            **{f.name: f.default for f in fields(Instance) if f.default is not MISSING},
        },
    )
)
assert _Unfrozen.__slots__ == Instance.__slots__  # type: ignore[attr-defined]


def _frozen(unfrozen: Any) -> Instance:
    """An ``_Unfrozen`` made the Instance it was built as (see above)."""
    object.__setattr__(unfrozen, "__class__", Instance)
    return cast(Instance, unfrozen)


@dataclass(frozen=True)
class CatalogIssue:
    """A problem with one row of a catalog file; ``severity`` is "error" (row skipped) or "warning"."""

    file: str
    line: int
    reason: str
    severity: str = "error"

    def __str__(self) -> str:
        # line 0: about the whole file (rows merged across files, a renamed overlay)
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where}: {self.reason}"
