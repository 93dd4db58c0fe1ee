"""Cloud instance catalog: the packaged ``resources/cloud_instances.csv`` plus user overlays.

File format (UTF-8 CSV, header required; the packaged file and overlays share it):

``provider, instance, region, zone, gpu_model, gpu_count, gpu_mem_gib, vcpus, ram_gib,
interconnect, network_gbps, price_ondemand_usd_hr, price_spot_usd_hr, price_reserved_1y_usd_hr,
price_reserved_3y_usd_hr, source, as_of, notes, currency, price_monthly``

``provider``, ``instance``, ``gpu_model`` and ``gpu_count`` are required; every other cell may be
blank (unknown). Prices are per hour for the whole instance (``price_monthly``: per month, a
subscription such as 包月) in the row's ``currency`` (an ISO code; blank: USD; the ``_usd_hr``
column names predate the column and are kept so that older overlays still read); a catalog
compares them in one currency at a dated exchange rate (:mod:`gpuprof.catalog.money`).
``as_of`` is the day the price was read (YYYY-MM-DD; a year or month alone is read, and the
price treated as old, :mod:`gpuprof.catalog.asof`). A bad row is reported as
``file:line: reason`` and skipped; the good rows load. A GPU name the spec table does not know is
kept (its rates are unknown) and flagged. A ``region`` may name several regions joined by ``/``
(a specs-only row of a family its document offers in each, or a quote that does not say which
of them); ``Catalog.filter(regions=...)`` matches the whole or any one of them. An overlay row
with the same provider, instance and region as a packaged row replaces it (negotiated prices,
private clouds). Rows that repeat an earlier one (same provider, instance, region, GPUs and
prices: a SkyPilot file has one per zone) are merged into it, their zones joined, and said so: a
recommendation never ranks one offer five times. Numbers are kept exactly as read (a written
overlay reads back to the same floats).
"""

from __future__ import annotations

import io
import math
import operator
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from functools import partial
from importlib import resources
from pathlib import Path

from gpuprof import csvsafe
from gpuprof.catalog import money, rowcache
from gpuprof.catalog.asof import NOT_FUTURE, STALE_DAYS, in_future, is_stale, price_age_days
from gpuprof.catalog.csvrows import open_text, paused_gc, read_cells
from gpuprof.catalog.money import FxRate
from gpuprof.catalog.names import normalize_gpu_model, provider_key
from gpuprof.catalog.row import DOUBT_MARK, CatalogIssue, Instance, _frozen, _Unfrozen
from gpuprof.catalog.specs import GpuSpec, load_specs
from gpuprof.errors import InputError
from gpuprof.fileio import atomic_open
from gpuprof.i18n import tr

__all__ = [
    "COLUMNS",
    "DOUBT_MARK",
    "Catalog",
    "CatalogIssue",
    "Instance",
    "STALE_DAYS",
    "is_stale",
    "load_catalog",
    "parse_instances_csv",
    "price_age_days",
    "read_instances_file",
    "write_instances_csv",
]

COLUMNS = (
    "provider",
    "instance",
    "region",
    "zone",
    "gpu_model",
    "gpu_count",
    "gpu_mem_gib",
    "vcpus",
    "ram_gib",
    "interconnect",
    "network_gbps",
    "price_ondemand_usd_hr",
    "price_spot_usd_hr",
    "price_reserved_1y_usd_hr",
    "price_reserved_3y_usd_hr",
    "source",
    "as_of",
    "notes",
    "currency",
    "price_monthly",
)
_REQUIRED = ("provider", "instance", "gpu_model", "gpu_count")


def _region_parts(region: str) -> set[str]:
    """The regions a row's ``region`` names: 'cn-shanghai/cn-shenzhen' names two."""
    whole = region.strip().lower()
    return {whole} | {part.strip() for part in whole.split("/") if part.strip()}


@dataclass(frozen=True, eq=False)
class Catalog:
    """Specs + instances + what went wrong while reading them (compared by identity)."""

    specs: Mapping[str, GpuSpec]
    instances: tuple[Instance, ...]
    issues: tuple[CatalogIssue, ...] = ()
    files: tuple[str, ...] = field(default=())
    currency: str = "USD"  # the currency every row's price fields are in
    rates: Mapping[str, FxRate] = field(default_factory=dict)  # the rates that converted them

    def in_currency(self, currency: str, rates: Mapping[str, FxRate] | None = None) -> Catalog:
        """This catalog with every price in ``currency`` (from each row's own published
        figures, at ``rates``, default this catalog's); rows that need a missing rate lose
        their comparable prices and an issue says so."""
        use = dict(self.rates if rates is None else rates)
        rows, issues = money.reprice(self.instances, currency, use)
        kept = tuple(
            i for i in self.issues if i.file != "catalog" or "exchange rate" not in i.reason
        )
        return replace(
            self, instances=tuple(rows), issues=kept + tuple(issues), currency=currency, rates=use
        )

    def spec_for(self, instance: Instance) -> GpuSpec | None:
        return self.specs.get(instance.gpu_model) if instance.gpu_known else None

    def filter(
        self,
        *,
        gpu: str | None = None,
        providers: Iterable[str] | None = None,
        regions: Iterable[str] | None = None,
        instance: str | None = None,
    ) -> Catalog:
        """A catalog with only the matching instances (``gpu`` is normalized first)."""
        rows: Iterable[Instance] = self.instances
        if gpu:
            key = normalize_gpu_model(gpu)
            want = key.lower() if key else gpu.strip().lower()
            rows = [r for r in rows if r.gpu_model.lower() == want or r.gpu_name.lower() == want]
        if providers:
            wanted = {provider_key(p) for p in providers if p.strip()}
            rows = [r for r in rows if r.provider.lower() in wanted]
        if regions:
            wanted_r = {p.strip().lower() for p in regions if p.strip()}
            rows = [r for r in rows if _region_parts(r.region) & wanted_r]
        if instance:
            rows = [r for r in rows if r.instance.lower() == instance.strip().lower()]
        return replace(self, instances=tuple(rows))

    @property
    def providers(self) -> tuple[str, ...]:
        return tuple(sorted({r.provider for r in self.instances}))


def _loose_num(name: str, text: str) -> float | None:
    """A cell ``float()`` refused: blank, ``$1.50``, ``1,234.5``; a decimal comma is an error."""
    clean = text.strip().replace("$", "")
    if not clean:
        return None
    if "," in clean:
        whole = clean.partition(".")[0]
        groups = whole.lstrip("+-").split(",")
        # 1,234.5 is a thousands separator; 1,5 (a decimal comma) would silently be 15
        if not (1 <= len(groups[0]) <= 3 and all(len(g) == 3 for g in groups[1:])):
            raise ValueError(f"{name} is not a number: {text.strip()!r} (write 1.5, not 1,5)")
        clean = clean.replace(",", "")
    try:
        return float(clean)
    except ValueError:
        raise ValueError(f"{name} is not a number: {text.strip()!r}") from None


#: The number columns, in the order :func:`_numbers` returns them; the first two must be > 0.
_NUMBERS = (
    "gpu_count",
    "gpu_mem_gib",
    "vcpus",
    "ram_gib",
    "network_gbps",
    "price_ondemand_usd_hr",
    "price_spot_usd_hr",
    "price_reserved_1y_usd_hr",
    "price_reserved_3y_usd_hr",
    "price_monthly",
)
_POSITIVE = frozenset(_NUMBERS[:2])
#: Where each number column sits in a row of :data:`COLUMNS` cells, and whether it must be > 0.
_NUMBER_AT = tuple((COLUMNS.index(n), n, n in _POSITIVE) for n in _NUMBERS)
_NUMBER_COLS = tuple(at for at, _, _ in _NUMBER_AT)


def _numbers(cells: Sequence[str]) -> list[float | None]:
    """The number cells of a row of :data:`COLUMNS` cells as floats, exactly as written (no
    rounding); None when blank.

    It runs for each of 100,000 rows of a big overlay: cells that are plain numbers go
    through one comprehension; anything else (``$1.50``, a space, a bad cell) the slow way."""
    try:
        fast = [float(cells[at]) if cells[at] else None for at in _NUMBER_COLS]
    except ValueError:
        return _numbers_slowly(cells)
    # The first two must be > 0, all >= 0 and finite: a NaN or an inf makes the sum not finite
    # (so does an overflow of two huge cells: the slow path then judges each one)
    given = [v for v in fast if v is not None]
    if fast[0] != 0 and fast[1] != 0 and min(given) >= 0.0 and math.isfinite(sum(given)):
        return fast
    return _numbers_slowly(cells)


def _numbers_slowly(cells: Sequence[str]) -> list[float | None]:
    """:func:`_numbers` cell by cell, with loose forms and the error for a bad cell."""
    out: list[float | None] = []
    for at, name, positive in _NUMBER_AT:
        text = cells[at]
        if not text:
            out.append(None)
            continue
        try:
            value: float | None = float(text)
        except ValueError:
            value = _loose_num(name, text)
            if value is None:
                out.append(None)
                continue
        assert value is not None
        if not 0.0 <= value < math.inf or (positive and value == 0):  # NaN fails the test
            raise ValueError(f"{name} must be {'> 0' if positive else '>= 0'}, got {text.strip()}")
        out.append(value)
    return out


def instance_from_row(row: Mapping[str, str | None], *, origin: str) -> tuple[Instance, str | None]:
    """Build an Instance from a row by column name; returns (instance, warning or None).
    Raises ValueError for a bad row."""
    return instance_from_cells(tuple(row.get(c) or "" for c in COLUMNS), origin=origin)


def instance_from_cells(cells: Sequence[str], *, origin: str) -> tuple[Instance, str | None]:
    """:func:`instance_from_row` for the cells of :data:`COLUMNS` in order (what
    :func:`~gpuprof.catalog.csvrows.read_cells` yields): no dict per row of a big overlay."""
    (
        provider,
        instance,
        region,
        zone,
        gpu_name,
        count_text,
        *_,
        interconnect,
        _network,
        _ondemand,
        _spot,
        _reserved_1y,
        _reserved_3y,
        source,
        as_of,
        notes,
        currency,
        _monthly,
    ) = cells
    provider = provider.strip()
    instance = instance.strip()
    gpu_name = gpu_name.strip()
    if not (provider and instance and gpu_name and count_text.strip()):
        given = (provider, instance, gpu_name, count_text.strip())
        for name, value in zip(_REQUIRED, given, strict=True):
            if not value:
                raise ValueError(f"missing {name}")
    count, mem, vcpus, ram, network, ondemand, spot, reserved_1y, reserved_3y, monthly = _numbers(
        cells
    )
    assert count is not None
    currency = currency.strip().upper() or "USD"
    if currency != "USD" and not (len(currency) == 3 and currency.isascii() and currency.isalpha()):
        raise ValueError(f"currency {currency!r} is not a three-letter code such as USD or CNY")
    key = normalize_gpu_model(gpu_name, mem)
    warning = None
    if key is None:
        warning = f"unknown GPU {gpu_name!r}: kept, but its rates are unknown"
    if mem is None and key is not None:
        mem = load_specs()[key].memory_gib  # the spec table's figure when the row gives none
    inst: Instance = _Unfrozen(  # an Instance at a third of the cost: see _Unfrozen
        provider=provider,
        instance=instance,
        region=region.strip(),
        zone=zone.strip(),
        gpu_model=key or gpu_name,
        gpu_name=gpu_name,
        gpu_known=key is not None,
        gpu_count=count,
        gpu_mem_gib=mem,
        vcpus=vcpus,
        ram_gib=ram,
        interconnect=interconnect.strip(),
        network_gbps=network,
        price_ondemand_usd_hr=ondemand,
        price_spot_usd_hr=spot,
        price_reserved_1y_usd_hr=reserved_1y,
        price_reserved_3y_usd_hr=reserved_3y,
        source=source.strip() or f"user:{origin}",
        as_of=as_of.strip(),
        notes=notes.strip(),
        origin=origin,
        currency=currency,
        price_monthly_usd=monthly,
    )
    # check_plausible, asked only when a figure is out of bounds or there is a date to check
    if (
        count > MAX_GPUS_PER_ROW
        or (mem or 0.0) > MAX_GPU_MEM_GIB
        or (ondemand or 0.0) > MAX_PRICE_USD_HR
        or (spot or 0.0) > MAX_PRICE_USD_HR
        or (reserved_1y or 0.0) > MAX_PRICE_USD_HR
        or (reserved_3y or 0.0) > MAX_PRICE_USD_HR
        or (monthly or 0.0) > MAX_PRICE_USD_HR * 730
        or (inst.as_of and origin != "packaged" and inst.as_of not in NOT_FUTURE)
    ):
        check_plausible(inst)
    return _frozen(inst), warning


#: Beyond these a catalog cell is a typo, not a machine (a GB200 NVL72 rack is 72 GPUs).
MAX_GPUS_PER_ROW = 1024
MAX_GPU_MEM_GIB = 4096.0
MAX_PRICE_USD_HR = 1e5


def check_plausible(inst: Instance) -> None:
    """Raise ValueError for a row no real offer can have: 1e12 GPUs, a price of $1e9 an hour,
    or prices "as of" a date that has not come yet (``2099-01-01``)."""
    if inst.gpu_count > MAX_GPUS_PER_ROW:
        raise ValueError(
            f"gpu_count {inst.gpu_count:g} is beyond any instance (at most {MAX_GPUS_PER_ROW})"
        )
    if inst.gpu_mem_gib is not None and inst.gpu_mem_gib > MAX_GPU_MEM_GIB:
        raise ValueError(
            f"gpu_mem_gib {inst.gpu_mem_gib:g} is beyond any GPU (at most {MAX_GPU_MEM_GIB:g})"
        )
    for name in (
        "price_ondemand_usd_hr",
        "price_spot_usd_hr",
        "price_reserved_1y_usd_hr",
        "price_reserved_3y_usd_hr",
    ):
        price = getattr(inst, name)
        if price is not None and price > MAX_PRICE_USD_HR:
            raise ValueError(f"{name} {price:g} is beyond any offer (at most {MAX_PRICE_USD_HR:g})")
    monthly = inst.price_monthly_usd
    if monthly is not None and monthly > MAX_PRICE_USD_HR * 730:
        raise ValueError(
            f"price_monthly {monthly:g} is beyond any offer (at most {MAX_PRICE_USD_HR * 730:g})"
        )
    # The packaged rows are ours: a machine whose clock is behind must not lose them.
    text = inst.as_of if inst.origin != "packaged" else ""
    if text and in_future(text):
        raise ValueError(f"as_of {text} is in the future: check the date")


class RowMerger:
    """Rows of one file in order, each offer once: a repeat is merged into the first (zones
    joined) and counted, and :meth:`result` says so after the file's other issues."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.rows: list[Instance] = []
        # A repeat has the key of an earlier row: offers are only made for keys seen twice.
        self._first: dict[tuple[str, str, str], int] = {}
        self._twice: set[tuple[str, str, str]] = set()
        self._at: dict[tuple[object, ...], int] = {}
        self.merged = 0
        self._first_line = 0
        self.issues: list[CatalogIssue] = []

    def on_issue(self, line: int, reason: str, severity: str) -> None:
        """A problem with ``line`` of the file (``severity``: "error" or "warning")."""
        self.issues.append(CatalogIssue(self.name, line, reason, severity))

    def take(self, line: int, make: Callable[[], tuple[Instance, str | None]]) -> None:
        """Add the row ``make`` builds from ``line``: a ValueError it raises is an error (the
        row skipped), the warning it returns a warning."""
        try:
            inst, warning = make()
        except ValueError as exc:
            self.on_issue(line, str(exc), "error")
            return
        if warning:
            self.on_issue(line, warning, "warning")
        self.add(inst, line)

    def add(self, inst: Instance, line: int) -> None:
        key = inst.key
        first = self._first.get(key)
        if first is None:
            self._first[key] = self._append(inst)
            return
        if key not in self._twice:
            self._twice.add(key)
            self._at[self.rows[first].offer] = first
        offer = inst.offer
        idx = self._at.get(offer)
        if idx is None:
            self._at[offer] = self._append(inst)
            return
        self.rows[idx] = _merge(self.rows[idx], inst)
        self.merged += 1
        self._first_line = self._first_line or line

    def _append(self, inst: Instance) -> int:
        """Add ``inst`` as a new row; its index."""
        self.rows.append(inst)
        return len(self.rows) - 1

    def result(self) -> tuple[list[Instance], list[CatalogIssue]]:
        """The rows, and the issues with the count of merged rows last."""
        if not self.merged:
            return self.rows, self.issues
        return self.rows, [*self.issues, self._merged_issue()]

    def _merged_issue(self) -> CatalogIssue:
        return CatalogIssue(
            self.name,
            self._first_line,
            tr(
                "merged {n} duplicate rows (same provider, instance, region, GPUs and prices as "
                "an earlier row; the first on this line)",
                n=self.merged,
            ),
            "warning",
        )


def _merge(kept: Instance, again: Instance) -> Instance:
    """``kept`` with the zone of ``again`` added: the same offer, sold in one more zone."""
    zones = [z for z in kept.zone.split(",") if z]
    if not again.zone or again.zone in zones:
        return kept
    return replace(kept, zone=",".join([*zones, again.zone]))


def parse_instances_csv(
    text: str, *, name: str, origin: str = "packaged"
) -> tuple[list[Instance], list[CatalogIssue]]:
    """Parse a catalog CSV; bad rows become issues (``name:line: reason``), good rows load."""
    return _parse_lines(io.StringIO(text), name=name, origin=origin)


def _parse_lines(
    lines: Iterable[str], *, name: str, origin: str
) -> tuple[list[Instance], list[CatalogIssue]]:
    merger = RowMerger(name)
    # Text cells our writer guarded against spreadsheet formulas ('=x) read back as =x.
    rows = read_cells(
        lines,
        name=name,
        columns=COLUMNS,
        required=_REQUIRED,
        on_issue=merger.on_issue,
        unguard=True,
    )
    for line, cells in rows:
        merger.take(line, partial(instance_from_cells, cells, origin=origin))
    return merger.result()


def read_instances_file(path: Path) -> tuple[list[Instance], list[CatalogIssue]]:
    """One overlay file, read as a stream (a 100,000-row file is never held as text); a big
    one from its parsed copy while that is current (:mod:`gpuprof.catalog.rowcache`)."""

    def build() -> tuple[list[Instance], list[CatalogIssue]]:
        with open_text(path) as fh:
            return _parse_lines(fh, name=str(path), origin=path.name)

    def unpack(value: object) -> tuple[list[Instance], list[CatalogIssue]] | None:
        return _unpack_rows(value, name=str(path))

    return rowcache.cached(path, build, _pack_rows, unpack)


_FIELD_NAMES = tuple(f.name for f in fields(Instance))


def _pack_rows(parsed: tuple[list[Instance], list[CatalogIssue]]) -> object:
    """A file's rows and issues as plain tuples (what the row cache stores)."""
    rows, issues = parsed
    get = operator.attrgetter(*_FIELD_NAMES)
    return (
        list(map(get, rows)),
        [(i.line, i.reason, i.severity) for i in issues],
    )


def _unpack_rows(value: object, *, name: str) -> tuple[list[Instance], list[CatalogIssue]] | None:
    """:func:`_pack_rows` undone; None when ``value`` is not of that shape."""
    if not (isinstance(value, tuple) and len(value) == 2):
        return None
    packed_rows, packed_issues = value
    width = len(_FIELD_NAMES)
    if not (isinstance(packed_rows, list) and isinstance(packed_issues, list)):
        return None
    if not all(type(t) is tuple and len(t) == width for t in packed_rows):
        return None
    if not all(type(t) is tuple and len(t) == 3 for t in packed_issues):
        return None
    with paused_gc():
        rows = [_frozen(_Unfrozen(*t)) for t in packed_rows]
    return rows, [CatalogIssue(name, *t) for t in packed_issues]


def write_instances_csv(rows: Sequence[Instance], path: Path) -> None:
    """Write instances in the catalog format (``gpu_model`` as the source named it)."""
    with atomic_open(path, "w", newline="") as fh:
        writer = csvsafe.writer(fh, lineterminator="\n")  # text cells never become formulas
        writer.writerow(COLUMNS)
        for r in rows:
            values = r.as_dict() | {"gpu_model": r.gpu_name or r.gpu_model}  # as the source said
            # the prices as the source published them, in its currency
            prices = r.published or (
                r.price_ondemand_usd_hr,
                r.price_spot_usd_hr,
                r.price_reserved_1y_usd_hr,
                r.price_reserved_3y_usd_hr,
                r.price_monthly_usd,
            )
            values |= dict(zip(_PRICE_COLUMNS, prices, strict=True))
            writer.writerow(["" if values[c] is None else _fmt(values[c]) for c in COLUMNS])


#: The price columns of a row, in the order of ``Instance.published``.
_PRICE_COLUMNS = (
    "price_ondemand_usd_hr",
    "price_spot_usd_hr",
    "price_reserved_1y_usd_hr",
    "price_reserved_3y_usd_hr",
    "price_monthly",
)


def _fmt(value: object) -> str:
    """Numbers exactly (``repr`` reads back to the same float; ``:g`` kept 6 digits)."""
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() and abs(value) < 1e15 else repr(value)
    return str(value)


def _packaged() -> tuple[list[Instance], list[CatalogIssue]]:
    text = resources.files("gpuprof.resources").joinpath("cloud_instances.csv").read_text("utf-8")
    return parse_instances_csv(text, name="cloud_instances.csv")


def load_catalog(
    overlays: bool = True, *, extra_files: Sequence[Path] = (), overlay_dir: Path | None = None
) -> Catalog:
    """Packaged catalog + user overlays (``paths.user_catalog_dir()/*.csv``) + ``extra_files``."""
    with paused_gc():  # 100,000 rows and their keys: no collection walks them as they come
        return _load(overlays, extra_files, overlay_dir)


def _load(overlays: bool, extra_files: Sequence[Path], overlay_dir: Path | None) -> Catalog:
    rows, issues = _packaged()
    files = ["cloud_instances.csv"]
    extra: list[Path] = []
    if overlays:
        if overlay_dir is None:
            from gpuprof.paths import user_catalog_dir

            overlay_dir = user_catalog_dir()
        extra.extend(sorted(overlay_dir.glob("*.csv")))
    extra.extend(extra_files)
    by_key = {r.key: i for i, r in enumerate(rows)}
    # Offers of earlier overlays' rows: a row of a later overlay that repeats one is merged.
    # (A packaged offer has the packaged row's key: that row is replaced, not repeated; a file
    # has no repeats of its own, RowMerger saw to that. One overlay: no offer is computed.)
    by_offer: dict[tuple[object, ...], int] = {}
    pending: list[int] = []  # rows of the previous overlays not yet in by_offer
    for path in extra:
        more, more_issues = read_instances_file(path)
        issues.extend(more_issues)
        files.append(str(path))
        for i in pending:
            by_offer.setdefault(rows[i].offer, i)
        pending.clear()
        repeats = 0
        for inst in more:
            key = inst.key
            idx = by_key.get(key)
            if idx is not None and rows[idx].origin == "packaged":
                rows[idx] = inst
                pending.append(idx)
                continue
            idx = by_offer.get(inst.offer) if by_offer else None
            if idx is not None:  # another overlay has this very offer: once in the catalog
                rows[idx] = _merge(rows[idx], inst)
                repeats += 1
                continue
            by_key[key] = len(rows)
            pending.append(len(rows))
            rows.append(inst)
        if repeats:
            issues.append(
                CatalogIssue(
                    str(path),
                    0,
                    f"merged {repeats} rows that repeat rows of other catalog files",
                    "warning",
                )
            )
    try:
        rates = money.load_rates()
    except InputError as exc:  # a broken rates file converts nothing, and says so
        rates = {}
        issues.append(CatalogIssue(str(money.rates_path()), 0, str(exc), "error"))
    if any(r.currency != "USD" for r in rows):
        rows, more_issues = money.reprice(rows, "USD", rates)
        issues.extend(more_issues)
    return Catalog(load_specs(), tuple(rows), tuple(issues), tuple(files), "USD", rates)
