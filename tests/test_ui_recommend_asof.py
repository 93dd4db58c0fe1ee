"""The Recommend tab's "Prices as of" column and price tooltips mark an old price as every other
view does (issue 24: catalog.asof.price_dated through catalog.money.shown_as_of)."""

from __future__ import annotations

import datetime

from PySide6.QtCore import Qt

from gpuprof.catalog.asof import STALE_DAYS
from gpuprof.catalog.instances import Catalog, Instance, load_catalog
from gpuprof.recommend.rank import recommend
from gpuprof.recommend.workload import Workload
from tests.helpers.catalog import offer


def _row(as_of: str, price: float | None) -> Instance:
    return offer(f"h100.{as_of}.{price}", price=price, provider="Acme", as_of=as_of, origin="test")


def test_the_gui_column_and_tooltip_mark_old_prices(qapp) -> None:  # type: ignore[no-untyped-def]
    from ui.recommend.model import COLUMNS, RecommendModel

    old = (datetime.date.today() - datetime.timedelta(days=STALE_DAYS + 5)).isoformat()
    cat = Catalog(
        instances=(_row(old, 20.0), _row(old, None)), specs=load_catalog().specs, issues=()
    )
    rec = recommend(Workload(scenario="train", params=7e9, tokens=2e10), cat, limit=None)
    model = RecommendModel()
    model.set_rows(rec.rows, None)
    keys = [c[0] for c in COLUMNS]
    col, name = keys.index("as_of"), keys.index("instance")
    shown = {
        model.index(i, name).data(Qt.ItemDataRole.DisplayRole): model.index(i, col).data(
            Qt.ItemDataRole.DisplayRole
        )
        for i in range(model.rowCount())
    }
    priced = next(v for k, v in shown.items() if "20.0" in str(k))
    unpriced = next(v for k, v in shown.items() if "None" in str(k))
    assert priced == f"{old} (old)" and unpriced == old
    price_col = keys.index("per_hour")
    priced_row = next(i for i in range(model.rowCount()) if model.index(i, col).data() == priced)
    tip = model.index(priced_row, price_col).data(Qt.ItemDataRole.ToolTipRole)
    assert f"{old} (old)" in tip
