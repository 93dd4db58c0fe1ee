"""The Recommend tab's table: ranked rows in a QAbstractTableModel behind a filtering proxy.

The model sorts itself (the proxy forwards header clicks): sort keys are numbers or text, missing
numbers +inf so they sort last in ascending order; ``Qt.UserRole`` returns them.
``ROW_ROLE`` gives the :class:`RecommendationRow` itself.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from gpuprof.catalog.money import shown_as_of
from gpuprof.i18n import N_
from gpuprof.recommend.rank import RecommendationRow
from gpuprof.recommend.rank.billing import basis_label
from gpuprof.units import NA, fmt_bytes, fmt_hours, fmt_pct, fmt_usd, money_sign
from PySide6.QtCore import (
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
)
from PySide6.QtGui import QBrush, QColor, QFont

from ..shell.i18n import translate as _t
from ..shell.table_model import ColumnsModel

__all__ = [
    "COLUMNS",
    "JOB_ONLY",
    "ROW_ROLE",
    "SERVING_ONLY",
    "RecommendModel",
    "RecommendProxy",
    "column",
]

_Index = QModelIndex | QPersistentModelIndex
ROW_ROLE = int(Qt.ItemDataRole.UserRole) + 1
_INF = math.inf


def _usd(value: float | None) -> str:
    if value is None:
        return NA
    return fmt_usd(value, digits=0 if value >= 100 else 2)


def _speedup(value: float | None) -> str:
    if value is None:
        return NA
    return f"{value:.3g}×"


def _gpus(r: RecommendationRow) -> str:
    return f"{r.gpus_total:g}× {r.instance.gpu_model}"


def _memory(r: RecommendationRow) -> str:
    # Both in GiB so the two numbers compare at a glance: "0.4 / 48 GiB".
    need = r.mem_need_per_gpu_bytes / 2**30
    have = fmt_bytes(r.mem_per_gpu_bytes, digits=0)
    text = f"{need:.2g}" if need < 1 else f"{need:.{1 if need < 100 else 0}f}"
    return f"{text} / {have}"


def _instance(r: RecommendationRow) -> str:
    return f"{r.nodes}× {r.instance.instance}" if r.nodes > 1 else r.instance.instance


def _layout(r: RecommendationRow) -> str:
    s = r.serving
    if s is None:
        return NA
    text = f"TP{s.tp}" + (f" PP{s.pp}" if s.pp > 1 else "") + (f" EP{s.ep}" if s.ep > 1 else "")
    return text + (f" ×{s.replicas_per_instance}" if s.replicas_per_instance > 1 else "")


def _ms(seconds: float | None) -> str:
    from gpuprof.recommend.explain import fmt_duration_ms

    return NA if seconds is None else fmt_duration_ms(seconds)


def _num(value: float | None) -> float:
    return _INF if value is None or not math.isfinite(value) else float(value)


# (key, header, tooltip, display(row), sort key(row): a float or str); headers and tooltips are translated when
# shown. Prices are the whole job's cost; "as of" sits next to the ranking price, and every price
# cell's tooltip repeats it with the source.
_Col = tuple[
    str, str, str, Callable[[RecommendationRow], str], Callable[[RecommendationRow], float | str]
]
COLUMNS: tuple[_Col, ...] = (
    (
        "rank",
        N_("#"),
        N_("Rank: fitting first, then the objective (cheapest or fastest)"),
        lambda r: str(r.rank) if r.rank else "—",
        lambda r: r.rank if r.rank else _INF,
    ),
    (
        "pareto",
        N_("★"),
        N_("★ = on the Pareto front of time against cost: nothing else is both faster and cheaper"),
        lambda r: "★" if r.pareto else "",
        lambda r: 0 if r.pareto else 1,
    ),
    (
        "provider",
        N_("Provider"),
        N_('Cloud provider ("local" is this machine)'),
        lambda r: r.instance.provider,
        lambda r: r.instance.provider.lower(),
    ),
    (
        "instance",
        N_("Instance"),
        N_('Instance type; "N×" when the job needs N nodes'),
        _instance,
        lambda r: _instance(r).lower(),
    ),
    (
        "region",
        N_("Region"),
        N_("Region of the price"),
        lambda r: r.instance.region or NA,
        lambda r: r.instance.region.lower(),
    ),
    (
        "gpus",
        N_("GPUs"),
        N_("GPUs in the whole configuration (all nodes) and their model"),
        _gpus,
        lambda r: r.gpus_total,
    ),
    (
        "memory",
        N_("Memory / GPU"),
        N_("Memory the workload needs per GPU / memory each GPU has"),
        _memory,
        lambda r: r.mem_need_per_gpu_bytes / r.mem_per_gpu_bytes if r.mem_per_gpu_bytes else _INF,
    ),
    (
        "fits",
        N_("Fits"),
        N_("Whether the workload fits in GPU memory with 15% headroom"),
        lambda r: _t("yes") if r.fits else _t("no"),
        lambda r: 0 if r.fits else 1,
    ),
    (
        "hours",
        N_("Time"),
        N_("Estimated wall-clock time of the job, hours (spot: +10% for restarts)"),
        lambda r: fmt_hours(r.hours),
        lambda r: _num(r.hours),
    ),
    (
        "speedup",
        N_("vs here"),
        N_("How many times faster than this machine (> 1: faster)"),
        lambda r: _speedup(r.speedup_vs_local),
        lambda r: _num(r.speedup_vs_local),
    ),
    (
        "cost",
        N_("Job cost"),
        N_(
            "Cost of the whole job on the price the ranking compares (Billing: on-demand, "
            "spot, reserved, or a monthly subscription in whole months), USD"
        ),
        lambda r: (
            _usd(r.cost_usd)
            + (" " + _t("spot") if r.cost_basis == "spot" and r.cost_usd is not None else "")
        ),
        lambda r: _num(r.cost_usd),
    ),
    (
        "per_hour",
        N_("$/h"),
        N_("Price per hour of all nodes on the ranking basis, USD/h"),
        lambda r: _usd(r.price_per_hour_usd) + "/h" if r.price_per_hour_usd is not None else NA,
        lambda r: _num(r.price_per_hour_usd),
    ),
    (
        "as_of",
        N_("Prices as of"),
        N_("Date of the prices in this row (prices change; check the provider)"),
        lambda r: shown_as_of(r.instance) or NA,  # "2026-01-21 (old)", as every view
        lambda r: r.instance.as_of,
    ),
    (
        "ondemand",
        N_("On-demand"),
        N_("Whole job at the on-demand price, USD"),
        lambda r: _usd(r.cost_ondemand_usd),
        lambda r: _num(r.cost_ondemand_usd),
    ),
    (
        "spot",
        N_("Spot"),
        N_("Whole job at the spot price (+10% time for checkpoints and interruptions), USD"),
        lambda r: _usd(r.cost_spot_usd),
        lambda r: _num(r.cost_spot_usd),
    ),
    (
        "reserved1",
        N_("Reserved 1y"),
        N_("Whole job at the 1-year reserved price, USD"),
        lambda r: _usd(r.cost_reserved_1y_usd),
        lambda r: _num(r.cost_reserved_1y_usd),
    ),
    (
        "reserved3",
        N_("Reserved 3y"),
        N_("Whole job at the 3-year reserved price, USD"),
        lambda r: _usd(r.cost_reserved_3y_usd),
        lambda r: _num(r.cost_reserved_3y_usd),
    ),
    (
        "monthly",
        N_("Monthly"),
        N_(
            "A monthly subscription: the whole job in whole months of every node (at least "
            "one); serving: one month of the instances the rate needs, USD"
        ),
        lambda r: _usd(r.cost_monthly_usd),
        lambda r: _num(r.cost_monthly_usd),
    ),
    (
        "efficiency",
        N_("Efficiency"),
        N_(
            "Share of the spec peak the job achieves: base × multi-GPU "
            'scaling; "measured" when benchmarked on this machine'
        ),
        lambda r: (
            (fmt_pct(r.efficiency * 100) + (" " + _t("measured") if r.efficiency_measured else ""))
            if r.efficiency is not None
            else NA
        ),
        lambda r: _num(r.efficiency),
    ),
    (
        "pflop",
        N_("$/PFLOP-h"),
        N_("USD per achieved PFLOP-hour (price per hour ÷ achieved PFLOP/s)"),
        lambda r: _usd(r.usd_per_pflop_hour),
        lambda r: _num(r.usd_per_pflop_hour),
    ),
    # Serving (issue 22): shown instead of the job's time and cost when the workload is traffic.
    (
        "instances",
        N_("Instances"),
        N_("Instances that together sustain the request rate"),
        lambda r: str(r.instances_needed) if r.instances_needed is not None else NA,
        lambda r: _num(None if r.instances_needed is None else float(r.instances_needed)),
    ),
    (
        "per_million",
        N_("$/M out"),
        N_(
            "USD per million output tokens: the hourly price of all the instances ÷ the "
            "output tokens they serve per hour"
        ),
        lambda r: _usd(r.usd_per_million),
        lambda r: _num(r.usd_per_million),
    ),
    (
        "layout",
        N_("Layout"),
        N_("Tensor parallel (TP), pipeline across nodes (PP), expert parallel (EP); ×N replicas"),
        lambda r: _layout(r),
        lambda r: _layout(r),
    ),
    (
        "batch",
        N_("Batch"),
        N_("Sequences in flight per replica at this load / that fit in the KV cache"),
        lambda r: f"{r.serving.batch:.0f} / {r.serving.batch_max}" if r.serving is not None else NA,
        lambda r: _num(None if r.serving is None else r.serving.batch),
    ),
    (
        "throughput",
        N_("tok/s/inst"),
        N_("Output tokens per second one instance sustains at its best batch"),
        lambda r: (
            f"{r.serving.capacity_tokens_per_s_per_instance:,.0f}" if r.serving is not None else NA
        ),
        lambda r: (
            -_num(None if r.serving is None else r.serving.capacity_tokens_per_s_per_instance)
        ),
    ),
    (
        "ttft",
        N_("TTFT"),
        N_("Time to first token at this load (the latency percentile of the workload)"),
        lambda r: _ms(None if r.serving is None else r.serving.ttft_s),
        lambda r: _num(None if r.serving is None else r.serving.ttft_s),
    ),
    (
        "tpot",
        N_("TPOT"),
        N_("Time per output token at this load (the latency percentile of the workload)"),
        lambda r: _ms(None if r.serving is None else r.serving.tpot_s),
        lambda r: _num(None if r.serving is None else r.serving.tpot_s),
    ),
    (
        "bound",
        N_("Bound"),
        N_(
            "What limits the configuration: latency target, communication, compute, "
            "memory capacity (the KV cache is full) or memory bandwidth"
        ),
        lambda r: _t(r.serving.bound) if r.serving is not None and r.fits else NA,
        lambda r: r.serving.bound if r.serving is not None else "~",
    ),
)
#: The job's columns, hidden for serving; the serving ones, hidden for a job.
JOB_ONLY = ("hours", "cost", "ondemand", "spot", "reserved1", "reserved3", "efficiency", "pflop")
SERVING_ONLY = (
    "instances",
    "per_million",
    "layout",
    "batch",
    "throughput",
    "ttft",
    "tpot",
    "bound",
)
_KEYS = tuple(c[0] for c in COLUMNS)
_PRICE_KEYS = {
    "cost",
    "ondemand",
    "spot",
    "reserved1",
    "reserved3",
    "monthly",
    "per_hour",
    "per_million",
}
#: Right-aligned: the numbers (every price among them).
_RIGHT = _PRICE_KEYS | {
    "rank",
    "hours",
    "efficiency",
    "pflop",
    "speedup",
    "memory",
    "instances",
    "batch",
    "throughput",
    "ttft",
    "tpot",
}
#: The columns on the ranking's price basis: their headers name it (the Billing setting).
_BASIS_KEYS = ("cost", "per_hour", "per_million")


def column(key: str) -> int:
    """The column number of ``key`` (e.g. ``"cost"``)."""
    return _KEYS.index(key)


class RecommendModel(ColumnsModel):
    """Ranked rows plus, optionally, this machine's row (drawn in italics at the end)."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._rows: list[RecommendationRow] = []
        self._local: RecommendationRow | None = None
        self._sort: tuple[int, Qt.SortOrder] = (0, Qt.SortOrder.AscendingOrder)
        self.muted = QColor("#868e96")
        self.local_bg = QColor(28, 126, 214, 36)
        self.pareto_fg = QColor("#e8590c")
        self.currency = "USD"  # the tab's display currency: every amount is in it
        self.rate_note = ""  # the dated exchange rate that converted them ("" when none)
        self.billing = "on-demand"  # the price basis of the ranking (the Billing setting)

    # -- data in --------------------------------------------------------------------------------
    def set_currency(self, code: str, rate_note: str = "") -> None:
        """Amounts are in ``code`` now, converted at ``rate_note``: headers and their tooltips
        say so."""
        self.currency, self.rate_note = code, rate_note
        self.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, len(COLUMNS) - 1)

    def set_billing(self, billing: str) -> None:
        """The ranking compares ``billing`` prices now: the cost columns' headers say so."""
        self.billing = billing
        self.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, len(COLUMNS) - 1)

    def set_rows(self, rows: Sequence[RecommendationRow], local: RecommendationRow | None) -> None:
        self.beginResetModel()
        self._rows = self._sorted(list(rows))
        self._local = local
        self.endResetModel()

    def set_muted(self, colour: QColor) -> None:
        """The theme's muted text colour. Only colours change, so this is ``dataChanged`` over
        every cell: a bare ``layoutChanged`` (without ``layoutAboutToBeChanged``) leaves the
        proxy's persistent indexes dangling, and a selected row then crashes the app."""
        self.muted = QColor(colour)
        rows = self.rowCount()
        if rows:
            roles = [Qt.ItemDataRole.ForegroundRole, Qt.ItemDataRole.BackgroundRole]
            self.dataChanged.emit(self.index(0, 0), self.index(rows - 1, len(COLUMNS) - 1), roles)

    # Sorting happens here, once, in Python, rather than in the proxy: QSortFilterProxyModel
    # would call data() from C++ for every comparison, which costs more than the ranking itself.
    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        if not 0 <= column < len(COLUMNS):
            return
        self._sort = (column, order)
        self.layoutAboutToBeChanged.emit()
        before = self._rows
        self._rows = self._sorted(before)
        new_pos = {id(r): i for i, r in enumerate(self._rows)}
        old = self.persistentIndexList()
        new = []
        for index in old:
            if index.row() < len(before):
                row = new_pos[id(before[index.row()])]
                new.append(self.index(row, index.column()))
            else:
                new.append(self.index(index.row(), index.column()))  # this machine stays last
        self.changePersistentIndexList(old, new)
        self.layoutChanged.emit()

    def _sorted(self, rows: list[RecommendationRow]) -> list[RecommendationRow]:
        column, order = self._sort
        key = COLUMNS[column][4]
        return sorted(rows, key=key, reverse=order == Qt.SortOrder.DescendingOrder)

    @property
    def sort_column(self) -> int:
        return self._sort[0]

    def row_at(self, row: int) -> RecommendationRow:
        if row == len(self._rows) and self._local is not None:
            return self._local
        return self._rows[row]

    def is_local(self, row: int) -> bool:
        return self._local is not None and row == len(self._rows)

    @property
    def rows(self) -> tuple[RecommendationRow, ...]:
        return tuple(self._rows)

    # -- Qt API ---------------------------------------------------------------------------------
    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008 - Qt API
        if parent.isValid():
            return 0
        return len(self._rows) + (1 if self._local is not None else 0)

    def column_count(self) -> int:
        return len(COLUMNS)

    def header_text(self, section: int) -> str:
        # amounts are in the tab's currency (its Currency setting): so are the headers
        text = _t(COLUMNS[section][1]).replace("$", money_sign())
        if COLUMNS[section][0] in _BASIS_KEYS:
            text += f" ({basis_label(self.billing)})"
        return text

    def header_tip(self, section: int) -> str:
        tip = _t(COLUMNS[section][2])
        if "USD" not in tip:
            return tip
        tip = tip.replace("USD", self.currency)
        if self.rate_note:
            tip += "\n" + _t("Converted at %1.").replace("%1", self.rate_note)
        return tip

    # Qt API: the value's type depends on the role (text, sort key, row, brush, font, None).
    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:  # noqa: ANN401
        if not index.isValid():
            return None
        r = self.row_at(index.row())
        key, _, _, display, sort_key = COLUMNS[index.column()]
        if role == Qt.ItemDataRole.DisplayRole:
            return display(r)
        if role == Qt.ItemDataRole.UserRole:
            return sort_key(r)
        if role == ROW_ROLE:
            return r
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tooltip(r, key)
        if role == Qt.ItemDataRole.TextAlignmentRole and key in _RIGHT:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ForegroundRole:
            if key == "pareto" and r.pareto:
                return QBrush(self.pareto_fg)
            if not r.viable:
                return QBrush(self.muted)
            return None
        if role == Qt.ItemDataRole.BackgroundRole and self.is_local(index.row()):
            return QBrush(self.local_bg)
        if role == Qt.ItemDataRole.FontRole and self.is_local(index.row()):
            font = QFont()
            font.setItalic(True)
            return font
        return None

    @staticmethod
    def _tooltip(r: RecommendationRow, key: str) -> str:
        inst = r.instance
        if key in _PRICE_KEYS:
            as_of = shown_as_of(inst) or _t("unknown date")
            return (
                _t("Price as of %1 — source: %2")
                .replace("%1", as_of)
                .replace("%2", inst.source or NA)
            )
        if key == "fits" and not r.fits:
            return (
                _t("Needs %1 per GPU; the GPU has %2")
                .replace("%1", fmt_bytes(r.mem_need_per_gpu_bytes))
                .replace("%2", fmt_bytes(r.mem_per_gpu_bytes))
            )
        if key == "efficiency":
            return r.efficiency_source
        if key == "instance":
            return r.label
        if key == "gpus":
            return _gpus(r)
        if key == "region":
            return inst.region or NA
        return ""


class RecommendProxy(QSortFilterProxyModel):
    """Filters (``fits_only`` hides rows that do not fit; this machine stays) and hands sorting
    to the source model, whose order it then keeps."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._fits_only = False
        self.setSortRole(Qt.ItemDataRole.UserRole)

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        model = self.sourceModel()
        if model is not None:
            model.sort(column, order)

    @property
    def fits_only(self) -> bool:
        return self._fits_only

    def set_fits_only(self, on: bool) -> None:
        if on != self._fits_only:
            self.beginFilterChange()
            self._fits_only = on
            self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def filterAcceptsRow(self, source_row: int, source_parent: _Index) -> bool:
        model = self.sourceModel()
        if not self._fits_only or not isinstance(model, RecommendModel):
            return True
        if model.is_local(source_row):
            return True
        return model.row_at(source_row).viable
