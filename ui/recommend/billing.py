"""The Recommend tab's Billing selector (issue 24): the price basis the ranking compares
(``Workload.billing``: on-demand, spot, reserved 1y / 3y, a monthly subscription), kept in step
with the form's spot checkbox (``--spot`` is ``--billing spot``), shown in the cost column's
header and the plot's axis, and remembered in the settings."""

from __future__ import annotations

from gpuprof.recommend.workload import BILLINGS, Workload
from PySide6.QtCore import QObject, QSettings, Signal
from PySide6.QtWidgets import QCheckBox, QComboBox

from ..shell.settings import SettingsReader

__all__ = ["BillingControl"]


class BillingControl(QObject):
    """``combo`` (items keyed by :data:`BILLINGS`) and ``spot`` (the form's checkbox) as one
    setting; ``shows`` are told the basis; ``changed`` when the ranking must run again."""

    changed = Signal()

    def __init__(
        self, combo: QComboBox, spot: QCheckBox, *shows: object, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self.combo, self.spot, self._shows = combo, spot, shows
        combo.currentIndexChanged.connect(self._on_combo)
        spot.toggled.connect(self._on_spot)

    def value(self) -> str:
        key = str(self.combo.currentData() or "on-demand")
        return key if key in BILLINGS else "on-demand"

    def set_value(self, billing: str) -> None:
        self.combo.setCurrentIndex(max(0, self.combo.findData(billing)))

    def apply(self, w: Workload) -> Workload:
        """``w`` ranked on the selected basis."""
        billing = self.value()
        return w.with_(billing=billing, spot=billing == "spot")

    def _on_combo(self, *_: object) -> None:
        billing = self.value()
        self.spot.blockSignals(True)  # the checkbox follows: it is the same setting
        self.spot.setChecked(billing == "spot")
        self.spot.blockSignals(False)
        for shows in self._shows:
            shows.set_billing(billing)  # type: ignore[attr-defined]
        self.changed.emit()

    def _on_spot(self, on: bool) -> None:
        if on:
            self.set_value("spot")
        elif self.value() == "spot":
            self.set_value("on-demand")

    def save(self, s: QSettings) -> None:
        s.setValue("billing", self.value())

    def restore(self, read: SettingsReader) -> None:
        """The saved basis (settings from before it: spot when the spot box was ticked)."""
        default = "spot" if self.spot.isChecked() else "on-demand"
        self.set_value(read.choice("billing", default, BILLINGS))
        self._on_combo()
