"""File → Connect…: watch another machine's ``gpuprof exporter`` (what ``--connect URL`` does).

The dialog asks for the exporter's URL, the file holding its bearer token and, for ``https://``,
the CA file; it connects in a thread (a machine that does not answer costs the timeout, never a
frozen window), shows what failed in one line and stays open, or hands the source to the window.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpuprof.errors import GpuprofError
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ..shell.context import ActionSpec, WindowContext
from ..shell.i18n import translate as _t
from ..shell.widgets import field_row, plain_label
from ..shell.workers import run_in_thread

if TYPE_CHECKING:
    from gpuprof.telemetry.source import TelemetrySource

__all__ = ["ConnectDialog", "ConnectFeature"]

#: What the URL field suggests: the SSH tunnel's end (README, "One remote machine").
EXAMPLE_URL = "http://127.0.0.1:9400"


class ConnectDialog(QDialog):
    """Asks for an exporter's URL, token file and CA file, then connects ``window`` to it."""

    def __init__(self, window: WindowContext) -> None:
        super().__init__(window.widget())
        self._window = window
        self.setWindowTitle(self.tr("Connect to a machine"))
        self.url = QLineEdit(self)
        self.url.setPlaceholderText(EXAMPLE_URL)
        self.url.setToolTip(
            self.tr(
                "The URL of `gpuprof exporter` on the other machine; through an SSH tunnel "
                "(ssh -L 9400:127.0.0.1:9400 HOST) it is http://127.0.0.1:9400"
            )
        )
        self.token_file = QLineEdit(self)
        self.token_file.setPlaceholderText(self.tr("none"))
        self.token_file.setToolTip(self.tr("The file holding the exporter's --token-file token"))
        self.ca_file = QLineEdit(self)
        self.ca_file.setPlaceholderText(self.tr("the system's certificates"))
        self.ca_file.setToolTip(
            self.tr("For https://: the CA certificate (PEM) that signed the exporter's")
        )
        form = QFormLayout()
        form.addRow(self.tr("&URL:"), self.url)
        form.addRow(self.tr("&Token file:"), self._with_browse(self.token_file))
        form.addRow(self.tr("&CA file:"), self._with_browse(self.ca_file))
        self.message = plain_label(parent=self)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        self.connect_button = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.connect_button.setText(self.tr("Co&nnect"))
        self.buttons.accepted.connect(self.try_connect)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.message)
        layout.addWidget(self.buttons)
        self.resize(560, self.sizeHint().height())
        self._busy = False

    def _with_browse(self, field: QLineEdit) -> QWidget:
        def choose() -> None:
            chosen, _ = QFileDialog.getOpenFileName(self, self.tr("Choose a file"), field.text())
            if chosen:
                field.setText(chosen)

        browse = QPushButton(self.tr("Browse…"))
        browse.clicked.connect(choose)
        return field_row(field, browse, parent=self)

    def try_connect(self) -> None:
        """Connect in a thread; on success the window watches the exporter and the dialog
        closes, on failure the dialog says what failed and stays."""
        if self._busy:
            return
        url = self.url.text().strip() or EXAMPLE_URL
        token = self.token_file.text().strip() or None
        ca = self.ca_file.text().strip() or None
        self._busy = True
        self.connect_button.setEnabled(False)
        self.message.setText(self.tr("Connecting to %1…").replace("%1", url))

        def open_remote() -> TelemetrySource:
            from gpuprof.telemetry.sources import open_source

            return open_source(connect=url, token_file=token, ca_file=ca)

        run_in_thread(open_remote, self._connected, self._failed, self, name="gpuprof-connect")

    def _connected(self, source: object) -> None:
        self._busy = False
        if self._window.closing:
            source.close()  # type: ignore[attr-defined]
            return
        self._window.set_source(source)  # type: ignore[arg-type]
        self.accept()

    def _failed(self, exc: BaseException) -> None:
        self._busy = False
        self.connect_button.setEnabled(True)
        if isinstance(exc, GpuprofError):
            self.message.setText(str(exc))
        else:
            self.message.setText(f"{type(exc).__name__}: {exc}")


class ConnectFeature:
    """File → Connect to a machine… (Ctrl+Shift+O): a :class:`ConnectDialog` for the window."""

    name = "connect"

    def __init__(self, context: WindowContext) -> None:
        self._context = context

    def actions(self) -> list[ActionSpec]:
        return [
            ActionSpec(
                "file.connect",
                _t("Co&nnect to a machine…"),
                lambda _c, _on: self.open_dialog(),
                menu="file",
                order=1,
                shortcut="Ctrl+Shift+O",
                tip=_t("Watch another machine running `gpuprof exporter` (Ctrl+Shift+O)"),
                object_name="connectAction",
            )
        ]

    def strip(self) -> None:
        return None

    def open_dialog(self) -> ConnectDialog:
        dialog = ConnectDialog(self._context)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.open()  # not exec(): never blocks the redraw timer or a test
        return dialog

    def shutdown(self, deadline: float) -> None:
        """A connection still being made is dropped when it arrives (the window is closing)."""
